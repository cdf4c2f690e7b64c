/* perfcard report: sortable tables and fuzzy filters. No network, no libraries. */
(function () {
  "use strict";
  function cellValue(td, num) {
    var v = td.getAttribute("data-v");
    if (v === null) v = td.textContent;
    if (num) { var x = parseFloat(v); return isNaN(x) ? -Infinity : x; }
    return v.toLowerCase();
  }
  function sortBy(table, col, th) {
    var num = th.getAttribute("data-type") === "num";
    var asc = th.getAttribute("aria-sort") !== "ascending";
    if (num && !th.hasAttribute("aria-sort")) asc = false; /* numbers: largest first */
    var ths = table.tHead.rows[0].cells;
    for (var i = 0; i < ths.length; i++) ths[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a.cells[col], num), y = cellValue(b.cells[col], num);
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  /* fuzzy: every character of the query appears in order in the name */
  function fuzzy(q, s) {
    var j = 0;
    for (var i = 0; i < s.length && j < q.length; i++) if (s[i] === q[j]) j++;
    return j === q.length;
  }
  document.querySelectorAll("table.sortable").forEach(function (t) {
    var ths = t.tHead.rows[0].cells;
    for (var i = 0; i < ths.length; i++) (function (i) {
      ths[i].tabIndex = 0;
      ths[i].addEventListener("click", function () { sortBy(t, i, ths[i]); });
      ths[i].addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(t, i, ths[i]); });
    })(i);
  });
  document.querySelectorAll("input.filter").forEach(function (inp) {
    var t = inp.nextElementSibling;
    while (t && t.tagName !== "TABLE") t = t.nextElementSibling;
    if (!t) return;
    inp.addEventListener("input", function () {
      var q = inp.value.toLowerCase().replace(/\s+/g, "");
      Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
        var name = r.querySelector(".name");
        var s = (name ? name.textContent : r.textContent).toLowerCase();
        r.style.display = !q || fuzzy(q, s) ? "" : "none";
      });
    });
  });
})();
