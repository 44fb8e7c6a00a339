#!/usr/bin/env python3
"""Render a rigor HTML report in headless Chromium and check what the browser built.

Usage: check_report.py REPORT.html [--expect-plots N] [--expect-kind CLASS ...]
                       [--expect-builds CLASS=N,N,... ...]
                       [--hostile TEXT] [--screenshot OUT.png] [--window-size W,H]

Checks, in the DOM Chromium dumps after parsing the page:
  * the number of <svg class="plot ..."> elements (when --expect-plots is given), and that each
    has a non-empty <title> and drawn content;
  * that a plot of each --expect-kind class is among them (e.g. overview-means);
  * for each --expect-builds CLASS=N1,N2,...: the first plot of that class has one build boundary
    (a line in the build colour) after N1 data positions (distinct circle x), one after N2, ...,
    and the labels "build 1", "build 2", ... each just right of its build's start;
  * that no <script> element exists (the report has none, so any would come from user input);
  * that the hostile benchmark name appears as escaped text, never as markup;
  * that no element loads anything from the network.

Installs nothing: scripts/test_deps.sh installs Debian's chromium (.ci/run calls it). Where
chromium is missing it prints SKIP, naming that script, and exits 0 -- or under CI (CI=true)
prints FAIL and exits 1. RIGOR_BROWSER_TESTS=0 skips it deliberately, outside CI only. Exits 1
when a check fails, 2 on usage errors. Python 3 standard library only.
"""

import argparse
import html.parser
import os
import shutil
import subprocess
import sys
import tempfile

DEFAULT_HOSTILE = "<script>alert(1)</script>"
# A report renders in a second or two; an injected alert() blocks headless Chromium for good.
CHROMIUM_TIMEOUT = 60
# Drawn shapes plotters emits; a plot needs several (background, axes, data).
SHAPES = {"rect", "line", "polyline", "polygon", "circle", "path", "text"}
MIN_SHAPES = 4
# Colour of build boundaries and labels in run-order plots (plots::BUILD in rigor-report).
BUILD_COLOUR = "#3c2878"
# A build label starts this close (pixels) right of its boundary.
LABEL_GAP = 12
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def in_ci():
    """Whether this runs under CI (CI set, and not to false or 0), where nothing may be skipped."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def find_chromium():
    """Path of the Chromium binary; None after printing why the browser checks cannot run.

    None means SKIP (exit 0) outside CI and FAIL (exit 1) under CI: see `unavailable_status`.
    """
    if os.environ.get("RIGOR_BROWSER_TESTS") == "0":
        if not in_ci():
            print("SKIP: browser tests skipped: RIGOR_BROWSER_TESTS=0")
            return None
        print("note: RIGOR_BROWSER_TESTS=0 is ignored under CI (CI=true): the browser tests run")
    for candidate in ("/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    why = "chromium is not installed (no /usr/bin/chromium)"
    if in_ci():
        print(f"FAIL: browser tests: {why}; under CI (CI=true) they must run, not skip "
              "(scripts/test_deps.sh installs chromium)")
    else:
        print(f"SKIP: browser tests skipped: {why} (scripts/test_deps.sh installs chromium)")
    return None


def unavailable_status():
    """The exit status when find_chromium found nothing to run: 1 under CI, else 0 (SKIP)."""
    return 1 if in_ci() else 0


def chromium_env(profile):
    """The environment for a Chromium whose profile is `profile`: its temporary files (the
    `org.chromium.Chromium.*` folder of its singleton socket, which it makes in TMPDIR whatever
    the profile) inside the profile, so that removing the profile leaves nothing in /tmp."""
    return {**os.environ, "TMPDIR": profile}


def run_chromium(chromium, extra, url):
    """Runs headless Chromium on `url` with a fresh profile; returns its standard output."""
    with tempfile.TemporaryDirectory(prefix="rigor-chromium-") as profile:
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url]
        try:
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  timeout=CHROMIUM_TIMEOUT, check=False,
                                  env=chromium_env(profile))
        except subprocess.TimeoutExpired:
            raise RuntimeError(
                f"chromium did not finish within {CHROMIUM_TIMEOUT} s; a script dialog such as "
                "alert() blocks headless Chromium, so user input may have been run as a script"
            ) from None
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited {done.returncode}: {done.stderr.strip()[-800:]}")
    return done.stdout


class DomSurvey(html.parser.HTMLParser):
    """Collects plots, scripts, external references and the page's text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.plots = []  # dicts: id, classes, shapes, title
        self.scripts = 0
        self.external = []
        self.text = []
        self._svg_depth = 0
        self._in_title = False
        self._in_label = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("src", "href", "xlink:href", "data", "action", "poster"):
            value = (attrs.get(key) or "").strip().lower()
            if value.startswith(("http:", "https:", "//", "ftp:")):
                self.external.append(f"<{tag} {key}={attrs[key]!r}>")
        if tag == "script":
            self.scripts += 1
        if tag == "svg":
            self._svg_depth += 1
            classes = (attrs.get("class") or "").split()
            if self._svg_depth == 1 and "plot" in classes:
                self.plots.append({"id": attrs.get("id", "?"), "classes": classes,
                                   "shapes": 0, "title": "", "circles": set(),
                                   "build_lines": [], "build_labels": []})
        elif self._svg_depth and self.plots:
            plot = self.plots[-1]
            if tag in SHAPES:
                plot["shapes"] += 1
            if tag == "title":
                self._in_title = True
            if tag == "circle":
                plot["circles"].add(float(attrs.get("cx", "nan")))
            if tag == "polyline" and (attrs.get("stroke") or "").lower() == BUILD_COLOUR:
                plot["build_lines"].append(float(attrs["points"].split(",")[0]))
            if tag == "text" and (attrs.get("fill") or "").lower() == BUILD_COLOUR:
                plot["build_labels"].append([float(attrs.get("x", "nan")), ""])
                self._in_label = True

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self._svg_depth -= 1

    def handle_endtag(self, tag):
        if tag == "svg" and self._svg_depth:
            self._svg_depth -= 1
        if tag == "title":
            self._in_title = False
        if tag == "text":
            self._in_label = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title and self.plots:
            self.plots[-1]["title"] += data
        if self._in_label and self.plots:
            self.plots[-1]["build_labels"][-1][1] += data


def check_builds(plots, kind, expected):
    """Failures of the build marks of the first plot of class `kind`: boundaries after the
    `expected` numbers of data positions, and labels "build 1", ... right of each build's start."""
    plot = next((p for p in plots if kind in p["classes"]), None)
    if plot is None:
        return [f"no {kind} plot to check build marks in"]
    lines = sorted(plot["build_lines"])
    xs = sorted(plot["circles"])
    found = [sum(1 for x in xs if x < line) for line in lines]
    failures = []
    if found != expected:
        failures.append(f"{kind}: build boundaries after {found} data positions, "
                        f"expected after {expected}")
    labels = sorted((x, text.strip()) for x, text in plot["build_labels"])
    names = [text for _, text in labels]
    wanted = [f"build {i + 1}" for i in range(len(expected) + 1)]
    if names != wanted:
        failures.append(f"{kind}: build labels {names}, expected {wanted}")
    # Label i sits just right of boundary i - 1 (the first at the plot's left edge).
    for (x, text), line in zip(labels[1:], lines):
        if not 0 <= x - line <= LABEL_GAP:
            failures.append(f"{kind}: label {text!r} at x={x}, boundary at x={line}")
    return failures


def check(dom, hostile, expect_plots, expect_kinds=(), expect_builds=()):
    """Returns the list of failed checks (empty when all pass) and the survey."""
    survey = DomSurvey()
    survey.feed(dom)
    survey.close()
    failures = []
    for kind, expected in expect_builds:
        failures.extend(check_builds(survey.plots, kind, expected))
    if expect_plots is not None and len(survey.plots) != expect_plots:
        failures.append(f"expected {expect_plots} plots, the DOM has {len(survey.plots)}")
    if not survey.plots:
        failures.append("no <svg class=\"plot\"> element in the DOM")
    for kind in expect_kinds:
        if not any(kind in plot["classes"] for plot in survey.plots):
            failures.append(f"no plot of class {kind!r} in the DOM")
    for plot in survey.plots:
        if plot["shapes"] < MIN_SHAPES:
            failures.append(f"plot {plot['id']} is empty ({plot['shapes']} shapes)")
        if not plot["title"].strip():
            failures.append(f"plot {plot['id']} has no <title>")
    if survey.scripts:
        failures.append(f"{survey.scripts} <script> element(s) in the DOM")
    escaped = html.escape(hostile, quote=False)
    if hostile and escaped not in dom:
        failures.append(f"escaped name {escaped!r} not found in the DOM")
    if hostile and hostile not in "".join(survey.text):
        failures.append(f"name {hostile!r} does not appear as text")
    if survey.external:
        failures.append("external references: " + ", ".join(survey.external[:5]))
    return failures, survey


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="the HTML file to check")
    parser.add_argument("--expect-plots", type=int, help="exact number of plot <svg> elements")
    parser.add_argument("--expect-kind", action="append", default=[],
                        help="a plot class that must be drawn (repeatable)")
    parser.add_argument("--expect-builds", action="append", default=[], metavar="CLASS=N,N",
                        help="build boundaries of a run-order plot after N data positions "
                             "(repeatable)")
    parser.add_argument("--hostile", default=DEFAULT_HOSTILE,
                        help="user text that must appear escaped (default: %(default)s)")
    parser.add_argument("--screenshot", help="also save a PNG screenshot here")
    parser.add_argument("--window-size", default="1200,3000", help="screenshot size W,H")
    args = parser.parse_args()
    if not os.path.isfile(args.report):
        parser.error(f"no such file: {args.report}")

    chromium = find_chromium()
    if chromium is None:
        return unavailable_status()
    url = "file://" + os.path.abspath(args.report)
    try:
        dom = run_chromium(chromium, ["--dump-dom"], url)
        if args.screenshot:
            shot = os.path.abspath(args.screenshot)
            run_chromium(chromium, [f"--screenshot={shot}", f"--window-size={args.window_size}",
                                    "--hide-scrollbars"], url)
            if not os.path.isfile(shot):
                print(f"FAIL: chromium wrote no screenshot to {shot}")
                return 1
            print(f"screenshot: {shot}")
    except (OSError, RuntimeError) as err:
        print(f"FAIL: could not run chromium: {err}")
        return 1

    try:
        builds = [(k, [int(n) for n in v.split(",") if n])
                  for k, v in (b.split("=", 1) for b in args.expect_builds)]
    except ValueError:
        parser.error(f"--expect-builds wants CLASS=N,N,...: {args.expect_builds}")
    failures, survey = check(dom, args.hostile, args.expect_plots, args.expect_kind, builds)
    kinds = {}
    for plot in survey.plots:
        kind = " ".join(c for c in plot["classes"] if c != "plot")
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"plots in the DOM: {len(survey.plots)} "
          + ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())))
    for failure in failures:
        print(f"FAIL: {failure}")
    if failures:
        return 1
    if builds:
        print("build marks: " + "; ".join(f"{k} after {v}" for k, v in builds))
    print("OK: plots drawn, user text escaped, no scripts, no external references")
    return 0


if __name__ == "__main__":
    sys.exit(main())
