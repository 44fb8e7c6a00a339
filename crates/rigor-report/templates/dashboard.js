"use strict";
// rigor dashboard: filter and sort on the index; hover, toggles and the comparison of two versions
// on a benchmark page.
// Everything works on the server-drawn page; this only adds interaction.
(function () {
  function $(s, r) { return (r || document).querySelector(s); }
  function $$(s, r) { return Array.prototype.slice.call((r || document).querySelectorAll(s)); }
  var params = new URLSearchParams(location.search);

  function index() {
    var box = $("#controls"); if (!box) return;
    box.hidden = false;
    var q = $("#filter"), mach = $("#machine"), br = $("#branch"), sort = $("#sort");
    q.value = params.get("q") || ""; mach.value = params.get("machine") || "";
    br.value = params.get("branch") || ""; sort.value = params.get("sort") || "name";
    function apply() {
      var text = q.value.trim().toLowerCase(), shown = 0;
      $$("tbody.group").forEach(function (tb) {
        var any = false;
        $$("tr.row", tb).forEach(function (tr) {
          var ok = (!text || tr.dataset.name.toLowerCase().indexOf(text) >= 0) &&
            (!mach.value || tr.dataset.machine === mach.value) &&
            (!br.value || tr.dataset.branch === br.value);
          tr.hidden = !ok; if (ok) { any = true; shown++; }
        });
        tb.hidden = !any;
      });
      // The change table: the same filter on its benchmark, machine and branch.
      var changes = $$("tr.crow"), kept = 0;
      changes.forEach(function (tr) {
        var ok = (!text || tr.dataset.name.toLowerCase().indexOf(text) >= 0) &&
          (!mach.value || tr.dataset.machine === mach.value) &&
          (!br.value || tr.dataset.branch === br.value);
        tr.hidden = !ok; if (ok) kept++;
      });
      $("#shown").textContent = shown + " shown" +
        (changes.length ? "; " + kept + " of " + changes.length + " changes" : "");
    }
    function order() {
      var key = sort.value;
      $$("tbody.group").forEach(function (tb) {
        var rows = $$("tr.row", tb);
        rows.sort(function (a, b) {
          if (key === "change") return (+a.dataset.change) - (+b.dataset.change);
          return a.dataset.name < b.dataset.name ? -1 : a.dataset.name > b.dataset.name ? 1 : 0;
        });
        rows.forEach(function (r) { tb.appendChild(r); });
      });
    }
    [q, mach, br].forEach(function (el) { el.addEventListener("input", apply); });
    sort.addEventListener("change", order);
    order(); apply();
  }

  function benchmark() {
    $$(".toggles input").forEach(function (cb) {
      $(".toggles").hidden = false;
      cb.addEventListener("change", function () {
        var s = document.getElementById(cb.value); if (s) s.hidden = !cb.checked;
      });
    });
    $$(".plotbox").forEach(function (box) {
      var svg = $("svg.history", box), table = document.getElementById(box.dataset.table);
      if (!svg || !table) return;
      var x0 = +box.dataset.x0, x1 = +box.dataset.x1, w = +box.dataset.w, n = +box.dataset.n;
      var tip = document.createElement("div"), cur = document.createElement("div");
      tip.className = "tip"; cur.className = "cursor"; tip.hidden = cur.hidden = true;
      box.appendChild(tip); box.appendChild(cur);
      function at(ev) {
        var r = svg.getBoundingClientRect(), px = (ev.clientX - r.left) * w / r.width;
        var i = n > 1 ? Math.round((px - x0) / ((x1 - x0) / (n - 1))) : 0;
        return i >= 0 && i < n ? i : -1;
      }
      svg.addEventListener("mousemove", function (ev) {
        var i = at(ev), row = i >= 0 ? table.querySelector('tr[data-i="' + i + '"]') : null;
        if (!row) { tip.hidden = cur.hidden = true; return; }
        var cells = $$("td", row).map(function (td) { return td.textContent.trim(); });
        var head = $$("th", table.tHead).map(function (th) { return th.textContent; });
        tip.textContent = cells.map(function (c, k) { return head[k] + ": " + c; })
          .filter(function (_, k) { return cells[k]; }).join("\n");
        var r = svg.getBoundingClientRect(), bx = box.getBoundingClientRect();
        var left = r.left - bx.left + (x0 + i * (n > 1 ? (x1 - x0) / (n - 1) : 0)) * r.width / w;
        cur.style.left = left + "px"; cur.style.height = (r.height - 70) + "px";
        tip.style.left = Math.min(left + 12, bx.width - 280) + "px"; tip.style.top = "30px";
        tip.hidden = cur.hidden = false;
        svg.style.cursor = row.querySelector("a.commit") ? "pointer" : "default";
      });
      svg.addEventListener("mouseleave", function () { tip.hidden = cur.hidden = true; });
      // Shift-click: the comparison's baseline; Ctrl- or Cmd-click: its candidate; a plain
      // click opens the version's commit.
      svg.addEventListener("click", function (ev) {
        var i = at(ev), cmp = document.getElementById(box.dataset.table.replace(/-versions$/, "-compare"));
        if (i >= 0 && cmp && cmp.pick && (ev.shiftKey || ev.ctrlKey || ev.metaKey)) {
          ev.preventDefault(); cmp.pick(ev.shiftKey ? "base" : "cand", i); return;
        }
        var a = i >= 0 ? table.querySelector('tr[data-i="' + i + '"] a.commit') : null;
        if (a) location.href = a.href;
      });
    });
  }

  // Fieller's interval for candidate/baseline (Welch–Satterthwaite ν, t interpolated in 1/ν on the
  // page's table), in the words of rigor compare; the page's first comparison was written by rigor
  // with the same formula and words.
  function compare(box) {
    var table = document.getElementById(box.dataset.table);
    var rows = table ? $$("tr[data-units]", table) : [];
    if (rows.length < 2) return;
    var t = JSON.parse(box.dataset.t), step = +box.dataset.step, level = +box.dataset.level;
    var threshold = +box.dataset.threshold, out = $(".cmp-out", box);
    var base = $(".cmp-base", box), cand = $(".cmp-cand", box);
    rows.forEach(function (tr) {
      [base, cand].forEach(function (sel) {
        var o = document.createElement("option");
        o.value = tr.dataset.i; o.textContent = tr.dataset.rev.slice(0, 12); sel.appendChild(o);
      });
    });
    base.value = box.dataset.base; cand.value = box.dataset.cand;
    function est(sel) {
      var tr = table.querySelector('tr[data-i="' + sel.value + '"]');
      return { name: tr.dataset.rev.slice(0, 12), mean: +tr.dataset.mean, v: +tr.dataset.var,
        r: +tr.dataset.units, res: +(tr.dataset.res || 0), comp: tr.dataset.comp,
        su: !!tr.dataset.su };
    }
    function quantile(nu) {
      var u = 1 / nu / step, k = Math.floor(u);
      if (k >= t.length - 1) return t[t.length - 1];
      return t[k] + (t[k + 1] - t[k]) * (u - k);
    }
    function pct(p) { var a = Math.abs(p); return p.toFixed(a >= 10 ? 0 : a >= 1 ? 1 : 2) + "%"; }
    function signed(r) { if (!isFinite(r)) return "n/a"; var p = (r - 1) * 100; if (Math.abs(p) < 0.05) return "0.0%"; return (p < 0 ? "\u2212" + (-p).toFixed(1) : "+" + p.toFixed(1)) + "%"; }
    function update() {
      var a = est(cand), b = est(base), ratio = a.mean / b.mean, bt = ratio * ratio * b.v;
      var den = a.v * a.v / (a.r - 1) + bt * bt / (b.r - 1);
      var nu = den > 0 ? (a.v + bt) * (a.v + bt) / den : Math.min(a.r, b.r) - 1;
      var q = quantile(nu), g = q * q * b.v / (b.mean * b.mean), lv = Math.round(level * 100);
      var change = (ratio - 1) * 100, band = pct(100 * threshold), ci, words, verdict, lo = NaN, hi = NaN;
      if (g < 1) {
        var half = q / Math.abs(b.mean) * Math.sqrt(a.v * (1 - g) + ratio * ratio * b.v);
        lo = (ratio - half) / (1 - g); hi = (ratio + half) / (1 - g);
        // No narrower than the timer's resolution allows, as rigor compare floors it
        // (Resolution::floor_ratio): each mean known to ± half its step, a version that
        // reported no step taking the other's.
        var ha = (a.res || b.res) / 2, hb = (b.res || a.res) / 2;
        if (ha > 0) {
          lo = Math.min(lo, Math.max(0, (a.mean - ha) / (b.mean + hb)));
          hi = Math.max(hi, b.mean - hb > 0 ? (a.mean + ha) / (b.mean - hb) : Infinity);
        }
        ci = lv + "% CI " + signed(lo) + " .. " + signed(hi);
        words = "ratio " + ratio.toFixed(4) + " (" + lo.toFixed(4) + "\u2013" + hi.toFixed(4) + ")";
        verdict = lo > 1 + threshold ? "regression (beyond the \u00b1" + band + " threshold)" :
          hi < 1 - threshold ? "improvement (beyond the \u00b1" + band + " threshold)" :
          lo >= 1 - threshold && hi <= 1 + threshold ? "equivalent (within \u00b1" + band + ")" :
          "inconclusive";
      } else {
        ci = lv + "% CI unbounded"; words = "ratio " + ratio.toFixed(4);
        verdict = "unbounded: the baseline is too noisy (Fieller g = " + g.toFixed(2) +
          " \u2265 1); need more top-level repetitions";
      }
      out.textContent = a.name + " is " + pct(Math.abs(change)) + " " +
        (change >= 0 ? "slower" : "faster") + " than " + b.name + " (" + ci + "); " + words + ": " + verdict +
        // As rigor writes it: levels relative to groups of sessions that no version ties together
        // cannot be compared without the spread between sessions.
        (a.comp !== b.comp && (a.su || b.su) ? ". Confounded: the two were measured in sessions no " +
          "version ties together, so the difference cannot be told from a session shift" :
          a.su || b.su ? ". The spread between sessions is unknown and not in the interval" : "");
      out.dataset.ratio = ratio; out.dataset.lower = lo; out.dataset.upper = hi;
    }
    [base, cand].forEach(function (sel) { sel.addEventListener("change", update); });
    // Picked on the history plot: only versions that can be compared are in the menus.
    box.pick = function (which, i) {
      var sel = which === "base" ? base : cand;
      if (!sel.querySelector('option[value="' + i + '"]')) return;
      sel.value = String(i); update();
    };
    $(".cmp-pick", box).hidden = false;
    update();
  }

  if (document.body.classList.contains("index")) index();
  else { benchmark(); $$(".compare").forEach(compare); }
})();
