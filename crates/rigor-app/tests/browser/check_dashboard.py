#!/usr/bin/env python3
"""Open a rigor dashboard (`rigor track publish`) in headless Chromium and check what it built.

Usage: check_dashboard.py SITE_DIR --change NAME=REV ... [--hostile TEXT] [--repo-url URL]
                          [--compare JSON] [--screenshots DIR]

Checks, in the DOM Chromium builds after running the page's script, and in its console log:
  * every page (the index and each benchmark page) logs nothing to the console: no script
    error, no Content-Security-Policy violation (first verified on a page that does log, so
    that the check cannot pass by capturing nothing);
  * the script ran (the index's filter controls are shown) from file://;
  * each expected change (benchmark NAME at version REV) is listed, and its dashed marker in the
    history plot is drawn between REV and the version before it; a change marked invalid
    (--invalid) is drawn apart: grey dots there, no orange marker; a confounded one (--confounded)
    likewise in violet;
  * session boundaries (--sessions NAME=REV,…: a session starts at REV) are drawn as thin violet
    lines just before REV, versions re-measured as anchors (--anchors) are ringed in green, and
    the history plot's axis names commits (--commit REV=SHORT: SHORT is a tick label);
  * the filter works: the index opened with ?q=TEXT shows exactly the rows whose name holds
    TEXT, and ?machine= / ?branch= likewise, on the benchmark list and on the change table;
  * every link resolves: relative links name files of the site, absolute ones only the
    repository's address; nothing is loaded from anywhere;
  * the hostile benchmark name shows as text and builds no element;
  * the comparison of two versions (--compare): on load the script writes the same words as the
    page rigor wrote for scripts-off readers; picking a baseline and a candidate shows the ratio
    and its interval equal, to 4 significant digits, to what the caller computed with rigor's own
    Fieller interval from the raw samples, and an unbounded interval is said to be unbounded.

Finds chromium as check_report.py does (that script's helper is reused): SKIP where it is
missing, FAIL under CI (CI=true); scripts/test_deps.sh installs it. Exits 1 when a check fails.
Python 3 standard library only.
"""

import argparse
import fcntl
import html
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "rigor-report", "tests", "browser"))
from check_report import (  # noqa: E402
    CHROMIUM_FLAGS, CHROMIUM_TIMEOUT, chromium_env, find_chromium, unavailable_status)

CONSOLE = re.compile(r":CONSOLE(?:\(\d+\)|:\d+)?\] (.*)")
# Chromium draws the change markers in this colour (plots' CHANGE, #e67800).
CHANGE_STROKE = "#E67800"
# Invalid changes' grey dots (REFERENCE), session boundaries' violet (BUILD), anchors' green rings.
INVALID_STROKE = "#6E6E6E"
SESSION_STROKE = "#3C2878"
ANCHOR_STROKE = "#2CA02C"
CONFOUNDED_STROKE = "#9467BD"
# Chromium processes run at once. Each one spends much of its start-up waiting, so a few at a
# time finish the same checks sooner, even on two cores; every check keeps its own browser and
# profile, and results are reported in the order the checks are listed.
WORKERS = 3


def in_parallel(calls):
    """The results of the zero-argument `calls`, in their order, WORKERS of them at a time."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(lambda call: call(), calls))


def chromium_dom(chromium, url, extra=()):
    """(DOM after scripts, console messages) of `url`."""
    with tempfile.TemporaryDirectory(prefix="rigor-chromium-") as profile:
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
               "--enable-logging=stderr", "--v=0", *extra, "--dump-dom", url]
        try:
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, timeout=CHROMIUM_TIMEOUT, check=False,
                                  env=chromium_env(profile))
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"chromium did not finish within {CHROMIUM_TIMEOUT} s on {url} "
                               "(an alert() from user text would block it)") from None
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited {done.returncode}: {done.stderr.strip()[-800:]}")
    console = [m.group(1) for m in map(CONSOLE.search, done.stderr.splitlines()) if m]
    return done.stdout, console


def screenshot(chromium, url, out, size):
    with tempfile.TemporaryDirectory(prefix="rigor-chromium-") as profile:
        subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                        f"--screenshot={out}", f"--window-size={size}", "--hide-scrollbars",
                        url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=CHROMIUM_TIMEOUT, check=False, env=chromium_env(profile))


class DevTools:
    """Chromium driven over --remote-debugging-pipe (JSON messages separated by NUL on file
    descriptors 3 and 4): no WebSocket client needed, standard library only."""

    def __init__(self, chromium):
        self.profile = tempfile.TemporaryDirectory(prefix="rigor-chromium-",
                                                   ignore_cleanup_errors=True)
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()
        # The child's fd 3 reads our commands, its fd 4 writes replies. They are set up in the
        # child alone, through copies above both (either pipe end may itself be 3 or 4), and
        # not named in pass_fds: the checks run in threads, and fds 3 and 4 of this process
        # may be another thread's, closed at the moment of the fork, which pass_fds turns into
        # EBADF. Without close_fds the child keeps only what is inheritable, as 3 and 4 are
        # after dup2 (os.pipe's ends and the copies are not).
        def wire():
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_child, from_child)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile.name}",
             "--remote-debugging-pipe", "--window-size=1300,1000", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=chromium_env(self.profile.name), close_fds=False, preexec_fn=wire)
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._id = 0

    def call(self, method, session=None, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self._write)
        os.close(self._read)
        # Chromium's helper processes may still be writing to the profile for a moment after the
        # browser is gone ("Directory not empty"): retry briefly rather than fail the check.
        import shutil
        import time
        for _ in range(20):
            shutil.rmtree(self.profile.name, ignore_errors=True)
            if not os.path.exists(self.profile.name):
                break
            time.sleep(0.1)


def hover_check(chromium, url, rev, failures, out):
    """Moves the mouse over version `rev` of the first history plot (real input events) and
    checks that the tooltip names it. What it saw goes to the list `out`."""
    tools = DevTools(chromium)
    try:
        target = tools.call("Target.createTarget", url="about:blank")["targetId"]
        session = tools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tools.call("Page.enable", session)
        tools.call("Page.navigate", session, url=url)
        expr = """(function (rev) {
          var box = document.querySelector('.plotbox'), svg = box && box.querySelector('svg');
          var row = svg && document.querySelector('#' + box.dataset.table + ' tr[data-rev="' + rev + '"]');
          // The tooltip exists once the page's script has run (the rows are parsed before it).
          if (!row || !box.querySelector('.tip')) return null;
          svg.scrollIntoView();
          var r = svg.getBoundingClientRect(), i = +row.dataset.i, n = +box.dataset.n;
          var px = +box.dataset.x0 + i * (box.dataset.x1 - box.dataset.x0) / (n - 1);
          return [r.left + px * r.width / box.dataset.w, r.top + r.height / 2];
        })(%s)""" % json.dumps(rev)
        point = None
        for _ in range(50):
            got = tools.call("Runtime.evaluate", session, expression=expr, returnByValue=True)
            point = got.get("result", {}).get("value")
            if point:
                break
            import time
            time.sleep(0.1)
        if not point:
            failures.append(f"hover: version {rev} not found on {url}")
            return
        tools.call("Input.dispatchMouseEvent", session, type="mouseMoved", x=point[0], y=point[1])
        got = tools.call("Runtime.evaluate", session, returnByValue=True, expression=
                         "(function(){var t=document.querySelector('.tip');"
                         "return t && !t.hidden ? t.textContent : null})()")
        tip = got.get("result", {}).get("value")
        out.append(f"hover over {rev}: {tip!r}")
        if not tip or rev not in tip:
            failures.append(f"hover over {rev} on {url}: tooltip {tip!r}")
    except (OSError, RuntimeError, ValueError) as err:
        failures.append(f"hover: DevTools failed: {err}")
    finally:
        tools.close()


def pick_check(chromium, url, base, cand, failures, out):
    """Shift-clicks version `base` and Ctrl-clicks version `cand` on the first history plot
    (real input events) and checks that the comparison now compares them. What it saw goes to
    the list `out`."""
    tools = DevTools(chromium)
    try:
        target = tools.call("Target.createTarget", url="about:blank")["targetId"]
        session = tools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tools.call("Page.enable", session)
        tools.call("Page.navigate", session, url=url)
        import time
        for rev, modifiers in ((base, 8), (cand, 2)):  # DevTools: Shift = 8, Ctrl = 2
            point = None
            for _ in range(50):
                got = tools.call("Runtime.evaluate", session, returnByValue=True,
                                 expression=POINT_JS % json.dumps(rev))
                point = got.get("result", {}).get("value")
                if point:
                    break
                time.sleep(0.1)
            if not point:
                failures.append(f"pick: version {rev} not found on {url}")
                return
            for kind in ("mousePressed", "mouseReleased"):
                tools.call("Input.dispatchMouseEvent", session, type=kind, x=point[0], y=point[1],
                           button="left", clickCount=1, modifiers=modifiers)
        got = tools.call("Runtime.evaluate", session, returnByValue=True, expression=
                         "(function(){var b=document.querySelector('.compare');"
                         "return [b.querySelector('.cmp-base').selectedOptions[0].textContent,"
                         "b.querySelector('.cmp-cand').selectedOptions[0].textContent,"
                         "b.querySelector('.cmp-out').textContent]})()")
        picked = got.get("result", {}).get("value")
        out.append(f"picked on the plot: {picked!r}")
        if not picked or picked[:2] != [base, cand] or not picked[2].startswith(f"{cand} is "):
            failures.append(f"pick {base} and {cand} on the plot of {url}: got {picked!r}")
    except (OSError, RuntimeError, ValueError) as err:
        failures.append(f"pick: DevTools failed: {err}")
    finally:
        tools.close()


# Where version REV is on the first history plot, once the page's script has run.
POINT_JS = """(function (rev) {
  var box = document.querySelector('.plotbox'), svg = box && box.querySelector('svg');
  var row = svg && document.querySelector('#' + box.dataset.table + ' tr[data-rev="' + rev + '"]');
  if (!row || !box.querySelector('.tip') || !document.querySelector('.compare .cmp-base option')) return null;
  svg.scrollIntoView();
  var r = svg.getBoundingClientRect(), i = +row.dataset.i, n = +box.dataset.n;
  var px = +box.dataset.x0 + i * (box.dataset.x1 - box.dataset.x0) / (n - 1);
  return [r.left + px * r.width / box.dataset.w, r.top + r.height / 2];
})(%s)"""


def load_time(chromium, url):
    """Seconds from navigation start until the page is loaded, its script has run and the
    next frame is drawn (two animation frames after the load event), in a warm browser."""
    tools = DevTools(chromium)
    try:
        target = tools.call("Target.createTarget", url="about:blank")["targetId"]
        session = tools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tools.call("Page.enable", session)
        tools.call("Page.navigate", session, url=url)
        expr = """new Promise(function (done) {
          function drawn() { requestAnimationFrame(function () { requestAnimationFrame(function () {
            done(performance.now() / 1000); }); }); }
          if (document.readyState === 'complete') drawn(); else addEventListener('load', drawn);
        })"""
        import time
        for _ in range(100):
            got = tools.call("Runtime.evaluate", session, expression=expr, awaitPromise=True,
                             returnByValue=True)
            value = got.get("result", {}).get("value")
            href = tools.call("Runtime.evaluate", session, expression="location.href",
                              returnByValue=True)["result"].get("value", "")
            if value is not None and href.startswith("file:"):
                return value
            time.sleep(0.05)
        return None
    finally:
        tools.close()


COMPARE_JS = """(function (c) {
  var sec = Array.prototype.find.call(document.querySelectorAll('section.series'), function (s) {
    return s.querySelector('h2').textContent.indexOf(c.machine + ' / ') === 0; });
  var box = sec && sec.querySelector('.compare');
  if (!box || box.querySelector('.cmp-pick').hidden) return null;
  var out = box.querySelector('.cmp-out'), first = out.textContent;
  var table = document.getElementById(box.dataset.table);
  function pick(sel, rev) {
    var tr = table.querySelector('tr[data-rev="' + rev + '"]');
    sel.value = tr ? tr.dataset.i : ''; sel.dispatchEvent(new Event('change'));
    return sel.selectedOptions.length ? sel.selectedOptions[0].textContent : null;
  }
  var chosen = [pick(box.querySelector('.cmp-base'), c.base),
                pick(box.querySelector('.cmp-cand'), c.cand)];
  return {first: first, chosen: chosen, text: out.textContent, ratio: out.dataset.ratio,
          lower: out.dataset.lower, upper: out.dataset.upper};
})(%s)"""


def server_words(path, machine):
    """The comparison text rigor wrote into the page (what a reader without scripts sees)."""
    with open(path, encoding="utf-8") as f:
        page = f.read()
    for section in page.split('<section class="series"')[1:]:
        if f"<h2>{html.escape(machine)} / " in section:
            m = re.search(r'<p class="cmp-out"[^>]*>(.*?)</p>', section, re.S)
            return html.unescape(m.group(1)) if m else None
    return None


def same4(got, want):
    """Equal to 4 significant digits."""
    return abs(got - want) <= 5e-5 * abs(want)


def compare_check(chromium, url, path, case, failures, out):
    """Picks `case`'s baseline and candidate on the page and checks the comparison shown. What
    it saw goes to the list `out`."""
    tools = DevTools(chromium)
    label = f"compare {case['benchmark']} on {case['machine']}: {case['cand']} vs {case['base']}"
    try:
        target = tools.call("Target.createTarget", url="about:blank")["targetId"]
        session = tools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tools.call("Page.enable", session)
        tools.call("Page.navigate", session, url=url)
        import time
        got = None
        for _ in range(50):
            reply = tools.call("Runtime.evaluate", session, returnByValue=True,
                               expression=COMPARE_JS % json.dumps(case))
            got = reply.get("result", {}).get("value")
            if got:
                break
            time.sleep(0.1)
    except (OSError, RuntimeError, ValueError) as err:
        failures.append(f"{label}: DevTools failed: {err}")
        return
    finally:
        tools.close()
    if not got:
        failures.append(f"{label}: no comparison controls shown")
        return
    out.append(f"{label}: {got['text']}")
    server = server_words(path, case["machine"])
    if got["first"] != server:
        failures.append(f"{label}: on load the script wrote {got['first']!r}, rigor wrote {server!r}")
    if got["chosen"] != [case["base"], case["cand"]]:
        failures.append(f"{label}: picked {got['chosen']}")
    want = f"{case['cand']} is "
    if not got["text"].startswith(want) or f" than {case['base']} (" not in got["text"]:
        failures.append(f"{label}: text {got['text']!r} does not name the two versions")
    if case.get("confounded") and "Confounded: " not in got["text"]:
        failures.append(f"{label}: a confounded comparison not said to be: {got['text']!r}")
    elif case.get("unknown") and not case.get("confounded") and \
            "spread between sessions is unknown" not in got["text"]:
        failures.append(f"{label}: the unknown spread between sessions not said: {got['text']!r}")
    if not same4(float(got["ratio"]), case["ratio"]):
        failures.append(f"{label}: ratio {got['ratio']}, rigor: {case['ratio']}")
    if case["lower"] is None:
        if "CI unbounded" not in got["text"] or "unbounded: the baseline is too noisy" not in got["text"]:
            failures.append(f"{label}: an unbounded interval not said to be: {got['text']!r}")
        return
    for key in ("lower", "upper"):
        if not same4(float(got[key]), case[key]):
            failures.append(f"{label}: {key} {got[key]}, rigor: {case[key]}")
    shown = f"ratio {case['ratio']:.4f} ({case['lower']:.4f}\u2013{case['upper']:.4f})"
    if shown not in got["text"]:
        failures.append(f"{label}: {shown!r} not in {got['text']!r}")


class Survey(html.parser.HTMLParser):
    """Links, loads, rows, text and change markers of a page's DOM."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.loads, self.elements = [], [], []
        self.rows = []  # [name, machine, branch, hidden, page]
        self.crows = []  # change table rows: [name, machine, branch, hidden]
        self.versions = {}  # table id -> {rev: index}
        self.boxes = []  # plot boxes: dict(table, x0, x1, n, markers)
        self.controls_hidden = None
        self.text = []
        self._table = None
        self._overview = False
        self._text = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append(tag)
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
            if self.rows and self.rows[-1][4] is None:
                self.rows[-1][4] = a["href"]
        for key in ("src", "srcset", "data", "poster", "action", "xlink:href"):
            if key in a:
                self.loads.append(f"<{tag} {key}={a[key]!r}>")
        if tag == "link":
            self.loads.append(f"<link href={a.get('href')!r}>")
        if a.get("id") == "controls":
            self.controls_hidden = "hidden" in a
        if tag == "tr" and "row" in (a.get("class") or "").split():
            self.rows.append([a.get("data-name"), a.get("data-machine"), a.get("data-branch"),
                              "hidden" in a, None])
        if tag == "table" and (a.get("id") or "").endswith("-versions"):
            self._table = a["id"]
            self.versions[self._table] = {}
        if tag == "tr" and self._table and "data-rev" in a:
            self.versions[self._table][a["data-rev"]] = int(a["data-i"])
        if tag == "div" and "plotbox" in (a.get("class") or "").split():
            self.boxes.append({"table": a.get("data-table"), "x0": int(a["data-x0"]),
                               "x1": int(a["data-x1"]), "n": int(a["data-n"]), "markers": set(),
                               "invalid": set(), "sessions": set(), "anchors": set(),
                               "confounded": set(),
                               "texts": []})
        if tag == "tr" and "crow" in (a.get("class") or "").split():
            self.crows.append([a.get("data-name"), a.get("data-machine"), a.get("data-branch"),
                               "hidden" in a])
        if tag == "text" and self.boxes and not self._overview:
            self._text = True
        if (tag == "circle" and (a.get("stroke") or "").upper() == ANCHOR_STROKE and self.boxes
                and not self._overview):
            self.boxes[-1]["anchors"].add(round(float(a.get("cx", "nan"))))
        if tag == "svg" and "overview" in (a.get("class") or "").split():
            self._overview = True
        stroke = (a.get("stroke") or "").upper()
        kinds = {CHANGE_STROKE: "markers", INVALID_STROKE: "invalid", SESSION_STROKE: "sessions",
                 CONFOUNDED_STROKE: "confounded"}
        if tag == "polyline" and stroke in kinds and self.boxes and not self._overview:
            xs = {round(float(p.split(",")[0])) for p in (a.get("points") or "").split()}
            if len(xs) == 1:
                self.boxes[-1][kinds[stroke]] |= xs

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        if tag == "svg":
            self._overview = False
        if tag == "text":
            self._text = False

    def handle_data(self, data):
        self.text.append(data)
        if self._text and self.boxes:
            self.boxes[-1]["texts"].append(data.strip())


def survey_of(dom):
    s = Survey()
    s.feed(dom)
    s.close()
    return s


def check_links(site, page, survey, repo_url, failures):
    base = os.path.dirname(page)
    for href in survey.links:
        parsed = urllib.parse.urlparse(href)
        if parsed.scheme in ("http", "https"):
            if not (repo_url and href.startswith(repo_url.rstrip("/") + "/")):
                failures.append(f"{page}: link outside the repository: {href}")
            continue
        if parsed.scheme:
            failures.append(f"{page}: link with scheme {parsed.scheme}: {href}")
            continue
        target = os.path.normpath(os.path.join(site, base, urllib.parse.unquote(parsed.path)))
        if parsed.path and not os.path.isfile(target):
            failures.append(f"{page}: broken link {href}")
    if survey.loads:
        failures.append(f"{page}: loads something: {survey.loads[:3]}")


def check_markers(page, survey, revs, failures):
    """Each expected change's marker is drawn half-way between REV and the version before."""
    for rev in revs:
        found = False
        for box in survey.boxes:
            index = survey.versions.get(box["table"], {}).get(rev)
            if index is None or box["n"] < 2:
                continue
            step = (box["x1"] - box["x0"]) / (box["n"] - 1)
            expected = box["x0"] + (index - 0.5) * step
            if any(abs(x - expected) <= 1.5 for x in box["markers"]):
                found = True
            else:
                failures.append(f"{page}: no change marker at {rev} (x ≈ {expected:.0f}; "
                                f"markers at {sorted(box['markers'])})")
        if not found and not any(f.startswith(f"{page}: no change marker at {rev}")
                                 for f in failures):
            failures.append(f"{page}: version {rev} not found in its versions table")


def at_versions(page, survey, revs, kind, label, failures, offset=-0.5, history_only=True):
    """Each of `revs` has a mark of `kind` in a history plot, at the version's place plus
    `offset` steps (half-way before it for lines, on it for rings)."""
    for rev in revs:
        found, where = False, []
        for box in survey.boxes:
            index = survey.versions.get(box["table"], {}).get(rev)
            if index is None or box["n"] < 2:
                continue
            step = (box["x1"] - box["x0"]) / (box["n"] - 1)
            expected = box["x0"] + (index + offset) * step
            where.append(round(expected))
            if any(abs(x - expected) <= 1.5 for x in box[kind]):
                found = True
        if not found:
            failures.append(f"{page}: no {label} at {rev} (x ≈ {where}; drawn at "
                            f"{[sorted(b[kind]) for b in survey.boxes]})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("site")
    p.add_argument("--change", action="append", default=[], help="NAME=REV (repeatable)")
    p.add_argument("--invalid", action="append", default=[],
                   help="NAME=REV: a change marked invalid, drawn apart (repeatable)")
    p.add_argument("--confounded", action="append", default=[],
                   help="NAME=REV: a change confounded with a session boundary (repeatable)")
    p.add_argument("--sessions", action="append", default=[],
                   help="NAME=REV,REV: versions where a session starts (repeatable)")
    p.add_argument("--anchors", action="append", default=[],
                   help="NAME=REV,REV: versions re-measured as anchors (repeatable)")
    p.add_argument("--commit", action="append", default=[],
                   help="REV=SHORT: the history plot labels REV's tick SHORT (repeatable)")
    p.add_argument("--hostile", default="<img src=x onerror=alert(1)>")
    p.add_argument("--repo-url")
    p.add_argument("--screenshots", help="folder for index.png and benchmark.png")
    p.add_argument("--compare", default="[]",
                   help="JSON list of {benchmark, machine, base, cand, ratio, lower, upper} "
                        "(lower and upper null when unbounded): comparisons to pick and check")
    p.add_argument("--archives", action="store_true",
                   help="the site must have archive pages of older versions")
    p.add_argument("--load-times", nargs="+", metavar="PAGE",
                   help="only measure how long these pages of SITE take to load and draw")
    args = p.parse_args()
    chromium = find_chromium()
    if chromium is None:
        return unavailable_status()
    site = os.path.abspath(args.site)
    url = lambda rel, q="": "file://" + os.path.join(site, rel) + q  # noqa: E731
    if args.load_times:
        for page in args.load_times:
            runs = sorted(load_time(chromium, url(page)) or float("nan") for _ in range(3))
            size = os.path.getsize(os.path.join(site, page)) / 1024
            print(f"{page}: {size:.0f} kB, loaded and drawn in {runs[1]:.2f} s "
                  f"(median of 3; {runs[0]:.2f}–{runs[2]:.2f})")
        return 0
    failures = []

    # The console capture itself: a page that logs must be seen logging.
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html><p>x</p><script>console.log('probe-logged')</script>")
        _, console = chromium_dom(chromium, "file://" + probe)
        if not any("probe-logged" in c for c in console):
            print("FAIL: chromium's console log is not captured; the console checks would be "
                  "vacuous")
            return 1

    queries = [("?q=parse", lambda r: "parse" in r[0].lower()),
               ("?q=" + urllib.parse.quote(args.hostile), lambda r: r[0] == args.hostile),
               ("?machine=ci-2", lambda r: r[1] == "ci-2"),
               ("?branch=main&q=csv", lambda r: r[2] == "main" and "csv" in r[0])]
    loaded = in_parallel([lambda q=q: chromium_dom(chromium, url("index.html", q))
                          for q in ["", *(q for q, _ in queries)]])
    dom, console = loaded[0]
    index = survey_of(dom)
    failures += [f"index.html console: {c}" for c in console]
    if index.controls_hidden is not False:
        failures.append("index.html: the filter controls are hidden: the script did not run")
    check_links(site, "index.html", index, args.repo_url, failures)
    names = [r[0] for r in index.rows]
    print(f"index: {len(index.rows)} rows, {len(index.links)} links, console {len(console)}")
    if args.hostile:
        if args.hostile not in names or args.hostile not in "".join(index.text):
            failures.append("index.html: the hostile name is not shown as text")
        if "img" in index.elements:
            failures.append("index.html: an <img> element was built (user text as markup)")

    # The filter, driven by the address as a user's shared link would.
    for (query, keep), (dom, console) in zip(queries, loaded[1:]):
        rows = survey_of(dom).rows
        failures += [f"index.html{query} console: {c}" for c in console]
        wrong = [r[0] for r in rows if r[3] == keep(r)]
        shown = sum(1 for r in rows if not r[3])
        print(f"filter {query}: {shown} of {len(rows)} rows shown")
        if wrong or not rows:
            failures.append(f"filter {query}: wrong rows shown or hidden: {wrong[:5]}")
        crows = survey_of(dom).crows
        wrong = [r[0] for r in crows if r[3] == keep(r)]
        print(f"filter {query}: {sum(1 for r in crows if not r[3])} of {len(crows)} changes shown")
        if wrong:
            failures.append(f"filter {query}: wrong changes shown or hidden: {wrong[:5]}")

    pages = {r[0]: r[4] for r in index.rows}
    expected = {}
    for spec in args.change:
        name, rev = spec.rsplit("=", 1)
        expected.setdefault(name, []).append(rev)
    # Every benchmark page, and every page they link to beside them (archive pages of older
    # versions, and the pages those link to).
    queue = sorted(set(l for l in index.links if l.startswith("b/")))
    seen, archives = set(queue), 0

    def visit(page, dom, console):
        """Checks one loaded page; returns the pages it links to that were not seen yet."""
        nonlocal archives
        s = survey_of(dom)
        failures.extend(f"{page} console: {c}" for c in console)
        check_links(site, page, s, args.repo_url, failures)
        if "img" in s.elements:
            failures.append(f"{page}: an <img> element was built")
        print(f"{page}: {len(s.boxes)} history plot(s), markers "
              f"{[sorted(b['markers']) for b in s.boxes]}, console {len(console)}")
        found = []
        for href in s.links:
            path = urllib.parse.urlparse(href)
            if path.scheme or not path.path or "/" in path.path:
                continue
            target = "b/" + urllib.parse.unquote(path.path)
            if target not in seen and os.path.isfile(os.path.join(site, target)):
                seen.add(target)
                found.append(target)
                archives += 1
        return found

    while queue:
        # Breadth first, a wave of pages at a time: the order of a queue taken one by one.
        wave, queue = queue, []
        for page, (dom, console) in zip(wave, in_parallel(
                [lambda p=p: chromium_dom(chromium, url(p)) for p in wave])):
            queue += visit(page, dom, console)
    print(f"{len(seen)} benchmark and archive pages, {archives} reached from benchmark pages only")
    if args.archives and archives == 0:
        failures.append("no archive page was reached from the benchmark pages")

    # The interactive checks, each in a browser of its own: (lines to print, failures) each.
    def change_checks(name, revs):
        out, found = [], []
        page = pages.get(name)
        if page is None:
            return out, [f"benchmark {name!r} has no page on the index"]
        dom, _ = chromium_dom(chromium, url(page))
        check_markers(page, survey_of(dom), revs, found)
        hover_check(chromium, url(page), revs[0], found, out)
        pick_check(chromium, url(page), "v3", revs[0], found, out)
        return out, found

    def compare_case(case):
        out, found = [], []
        page = pages.get(case["benchmark"])
        if page is None:
            return out, [f"compare: benchmark {case['benchmark']!r} has no page"]
        compare_check(chromium, url(page), os.path.join(site, page), case, found, out)
        return out, found

    def marks_checks():
        """Invalid changes, session boundaries, anchors and commit ticks."""
        found = []
        specs = [(args.invalid, "invalid", "grey invalid-change marker", -0.5),
                 (args.confounded, "confounded", "violet confounded-change marker", -0.5),
                 (args.sessions, "sessions", "session boundary", -0.5),
                 (args.anchors, "anchors", "anchor ring", 0.0)]
        for given, kind, label, offset in specs:
            for spec in given:
                name, revs = spec.rsplit("=", 1)
                page = pages.get(name)
                if page is None:
                    found.append(f"benchmark {name!r} has no page on the index")
                    continue
                s = survey_of(chromium_dom(chromium, url(page))[0])
                at_versions(page, s, revs.split(","), kind, label, found, offset)
                if kind in ("invalid", "confounded"):
                    # Drawn apart: no orange marker of a new change there.
                    strays = []
                    at_versions(page, s, revs.split(","), "markers", "orange marker", strays)
                    if not strays:
                        found.append(f"{page}: the {kind} change at {revs} is drawn like a new one")
        for spec in args.commit:
            rev, short = spec.split("=", 1)
            page = pages.get(next(iter(expected), ""))
            if page:
                s = survey_of(chromium_dom(chromium, url(page))[0])
                if not any(short in b["texts"] for b in s.boxes):
                    found.append(f"{page}: no tick labelled {short} ({rev}); ticks "
                                 f"{[b['texts'][:12] for b in s.boxes]}")
        return [], found

    checks = [lambda n=n, r=r: change_checks(n, r) for n, r in expected.items()]
    checks.append(marks_checks)
    checks += [lambda c=c: compare_case(c) for c in json.loads(args.compare)]
    for out, found in in_parallel(checks):
        for line in out:
            print(line)
        failures += found
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
        screenshot(chromium, url("index.html"), os.path.join(args.screenshots, "index.png"),
                   "1300,1100")
        first = pages.get(next(iter(expected), ""), None)
        if first:
            screenshot(chromium, url(first), os.path.join(args.screenshots, "benchmark.png"),
                       "1300,1500")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("OK: every dashboard check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
