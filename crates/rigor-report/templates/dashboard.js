"use strict";
// rigor dashboard: filter and sort on the index, hover and toggles on a benchmark page.
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
      $("#shown").textContent = shown + " shown";
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
      svg.addEventListener("click", function (ev) {
        var i = at(ev), a = i >= 0 ? table.querySelector('tr[data-i="' + i + '"] a.commit') : null;
        if (a) location.href = a.href;
      });
    });
  }

  if (document.body.classList.contains("index")) index(); else benchmark();
})();
