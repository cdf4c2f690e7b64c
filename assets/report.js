/* perfcard report: sortable tables, fuzzy filters and paging. No network, no
 * libraries. Every row of every table is in the page; a table of more than
 * PAGE rows shows them PAGE at a time (in its current order, among the rows
 * its filter keeps), with buttons for the next page and for all of them. */
(function () {
  "use strict";
  var PAGE = 100;
  function refresh(t) {
    var rows = t.tBodies[0].rows, shown = 0, kept = 0, limit = t._limit || Infinity;
    for (var i = 0; i < rows.length; i++) {
      var on = !rows[i]._out && kept < limit;
      if (!rows[i]._out) kept++;
      rows[i].style.display = on ? "" : "none";
      if (on) shown++;
    }
    if (t._pager) {
      t._pager.hidden = kept <= PAGE && limit >= kept;
      t._count.textContent = "Rows 1\u2013" + shown + " of " + kept + (kept < rows.length ? " (filtered from " + rows.length + ")" : "");
      t._more.disabled = t._all.disabled = shown >= kept;
    }
  }
  function pager(t) {
    if (t.tBodies[0].rows.length <= PAGE) return;
    var p = document.createElement("p"), c = document.createElement("span");
    var more = document.createElement("button"), all = document.createElement("button");
    p.className = "pager";
    more.type = all.type = "button";
    more.textContent = "Show " + PAGE + " more";
    all.textContent = "Show all";
    more.addEventListener("click", function () { t._limit += PAGE; refresh(t); });
    all.addEventListener("click", function () { t._limit = Infinity; refresh(t); });
    p.appendChild(c); p.appendChild(more); p.appendChild(all);
    (t.parentNode.classList.contains("tablewrap") ? t.parentNode : t).insertAdjacentElement("afterend", p);
    t._pager = p; t._count = c; t._more = more; t._all = all; t._limit = PAGE;
    refresh(t);
  }
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
    refresh(table);
  }
  /* fuzzy: every character of the query appears in order in the name */
  function fuzzy(q, s) {
    var j = 0;
    for (var i = 0; i < s.length && j < q.length; i++) if (s[i] === q[j]) j++;
    return j === q.length;
  }
  /* the navigation bar's height (one line or more), for scroll-margin-top */
  var nav = document.querySelector("nav");
  function navh() { if (nav) document.documentElement.style.setProperty("--navh", nav.offsetHeight + "px"); }
  navh();
  window.addEventListener("resize", navh);
  document.querySelectorAll("table.data").forEach(pager);
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
    while (t && t.tagName !== "TABLE" && !(t.classList && t.classList.contains("tablewrap"))) t = t.nextElementSibling;
    if (t && t.tagName !== "TABLE") t = t.querySelector("table");
    if (!t) return;
    inp.addEventListener("input", function () {
      var q = inp.value.toLowerCase().replace(/\s+/g, "");
      Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
        var name = r.querySelector(".name");
        var s = (name ? name.textContent : r.textContent).toLowerCase();
        r._out = !!q && !fuzzy(q, s);
      });
      if (t._pager) t._limit = PAGE;
      refresh(t);
    });
  });
})();
