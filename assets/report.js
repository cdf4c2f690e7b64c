/* perfcard report: sortable tables, collapsible trees, fuzzy filters and paging. No network, no
 * libraries. Every row of every table is in the page; a table of more than
 * PAGE rows shows them PAGE at a time (in its current order, among the rows
 * its filter keeps), with buttons for the next page and for all of them. */
(function () {
  "use strict";
  var PAGE = 100;
  function refresh(t) {
    var rows = t.tBodies[0].rows, shown = 0, kept = 0, limit = t._limit || Infinity;
    for (var i = 0; i < rows.length; i++) {
      var out = rows[i]._out || (rows[i]._hid && !t._q); /* a filter shows its matches, folded or not */
      var on = !out && kept < limit;
      if (!out) kept++;
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
  /* a tree (table.tree: call stacks, modules), rows depth-first with data-d (the depth) and
   * data-fold (its parent's only child, with the same time): a row's toggle (button.tog) hides or
   * shows the rows under it; a chain of folded rows shows as its first row until that row's
   * button.chain opens it; the indentation (--d) counts the rows shown above, not the depth */
  function tree(t) {
    var rows = t.tBodies[0].rows, n = rows.length, par = [], head = [], st = [];
    for (var i = 0; i < n; i++) {
      var r = rows[i], d = +r.getAttribute("data-d") || 0;
      while (st.length && st[st.length - 1].d >= d) st.pop();
      par[i] = st.length ? st[st.length - 1].i : -1;
      st.push({ i: i, d: d });
      r._fold = r.hasAttribute("data-fold") && par[i] >= 0;
      head[i] = r._fold ? head[par[i]] : i;
      r._open = true;
      r._chain = false;
      var name = r.querySelector(".name");
      if (name) { /* the filter reads the frame, not the buttons */
        var c = name.cloneNode(true);
        Array.prototype.forEach.call(c.querySelectorAll("button"), function (b) { b.remove(); });
        name._text = c.textContent;
      }
    }
    function layout() {
      var vd = [], shut = [];
      for (var i = 0; i < n; i++) {
        var p = par[i], folded = rows[i]._fold && !rows[head[i]]._chain;
        shut[i] = p >= 0 && (shut[p] || !rows[p]._open); /* under a closed row */
        vd[i] = p < 0 ? 0 : vd[p] + (folded ? 0 : 1);
        rows[i]._hid = shut[i] || folded;
        if (rows[i].cells[0]) rows[i].cells[0].style.setProperty("--d", vd[i]);
      }
      refresh(t);
    }
    Array.prototype.forEach.call(rows, function (r) {
      var tog = r.querySelector("button.tog"), ch = r.querySelector("button.chain");
      if (tog) tog.addEventListener("click", function () {
        r._open = !r._open;
        tog.setAttribute("aria-expanded", r._open ? "true" : "false");
        tog.setAttribute("aria-label", r._open ? "Hide what it calls" : "Show what it calls");
        tog.textContent = r._open ? "\u25BE" : "\u25B8";
        layout();
      });
      if (ch) ch.addEventListener("click", function () {
        r._chain = !r._chain;
        ch.setAttribute("aria-expanded", r._chain ? "true" : "false");
        ch.textContent = (r._chain ? "\u2212" : "+") + ch.textContent.replace(/^[+\u2212]/, "");
        layout();
      });
    });
    layout();
  }
  document.querySelectorAll("table.tree").forEach(tree);
  document.querySelectorAll("input.filter").forEach(function (inp) {
    var t = inp.nextElementSibling;
    while (t && t.tagName !== "TABLE" && !(t.classList && t.classList.contains("tablewrap"))) t = t.nextElementSibling;
    if (t && t.tagName !== "TABLE") t = t.querySelector("table");
    if (!t) return;
    inp.addEventListener("input", function () {
      var q = inp.value.toLowerCase().replace(/\s+/g, "");
      Array.prototype.forEach.call(t.tBodies[0].rows, function (r) {
        var name = r.querySelector(".name");
        var s = (name ? name._text || name.textContent : r.textContent).toLowerCase();
        r._out = !!q && !fuzzy(q, s);
      });
      t._q = !!q;
      if (t._pager) t._limit = PAGE;
      refresh(t);
    });
  });
})();
/* The interactive timeline (#tl): lanes of events from #tl-data, drawn on a
 * canvas; wheel or +/- zoom around the pointer (or the centre), drag pans,
 * a step selector jumps to a step's window, hovering shows the event. A job's
 * rank selector loads another rank's data (window.pcTimeline.load; .initial:
 * the page's own); the canvas's data-lanes, data-span and data-busy (its events' summed
 * durations) say what it draws. */
(function () {
  "use strict";
  var dataEl = document.getElementById("tl-data"), cv = document.getElementById("tl-canvas");
  if (!dataEl || !cv) return;
  var D0;
  try { D0 = JSON.parse(dataEl.textContent); } catch (e) { return; }
  var tip = document.getElementById("tl-tip"), sel = document.getElementById("tl-step"), range = document.getElementById("tl-range");
  /* by category, as the static charts: kernel, communication, memcpy, memset, CPU operator, annotation, runtime, data loading */
  var COL = ["#0072B2", "#CC79A7", "#E69F00", "#F0E442", "#56B4E9", "#999999", "#D55E00", "#009E73"];
  var legend = document.createElement("span");
  range.parentNode.appendChild(legend);
  /* a lane has one row per depth of nesting its events reach (at most 8): callers above callees */
  var LANE = 18, LABEL = 150, MAXD = 7;
  var D, nl, byLane, rows, top, rowsAll, span, v0, v1;
  /* (re)load the data: the page's own, or a rank's from the rank selector (window.pcTimeline.load) */
  function load(d) {
    D = d;
    legend.textContent = "";
    (D.categories || []).forEach(function (c, k) {
      var sw = document.createElement("span");
      sw.className = "tl-key";
      sw.style.background = COL[k % COL.length];
      legend.appendChild(sw);
      legend.appendChild(document.createTextNode(c + " "));
    });
    nl = D.lanes.length; byLane = []; rows = []; top = [];
    for (var i = 0; i < nl; i++) byLane.push([]), rows.push(1);
    D.events.forEach(function (e) {
      if (!byLane[e[0]]) return;
      e[5] = Math.max(0, Math.min(MAXD, Math.floor(+e[5] || 0)));
      byLane[e[0]].push(e);
      rows[e[0]] = Math.max(rows[e[0]], e[5] + 1);
    });
    rowsAll = 0;
    for (i = 0; i < nl; i++) top.push(20 + rowsAll * LANE), rowsAll += rows[i];
    span = Math.max(1, D.span_ns); v0 = 0; v1 = span;
    while (sel.options.length > 1) sel.remove(1);
    sel.value = "";
    (D.steps || []).forEach(function (s, k) {
      var o = document.createElement("option");
      o.value = String(k); o.textContent = s[0];
      sel.appendChild(o);
    });
    cv.setAttribute("data-lanes", D.lanes.join("|"));
    cv.setAttribute("data-span", String(D.span_ns));
    if (window.pcTimeline) window.pcTimeline.current = D;
    cv.setAttribute("data-busy", String(D.events.reduce(function (a, e) { return a + (+e[2] || 0); }, 0)));
    draw();
  }
  function fmt(ns) {
    var a = Math.abs(ns);
    return a >= 1e9 ? (ns / 1e9).toFixed(3) + " s" : a >= 1e6 ? (ns / 1e6).toFixed(2) + " ms" : a >= 1e3 ? (ns / 1e3).toFixed(2) + " \u00b5s" : Math.round(ns) + " ns";
  }
  function css(name, dflt) { var v = getComputedStyle(document.documentElement).getPropertyValue(name).trim(); return v || dflt; }
  function draw() {
    var w = cv.clientWidth || 800, h = rowsAll * LANE + 24, dpr = window.devicePixelRatio || 1;
    cv.style.height = h + "px";
    cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
    var g = cv.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = css("--chart-bg", "#fff"); g.fillRect(0, 0, w, h);
    g.font = "11px system-ui, sans-serif"; g.textBaseline = "middle";
    var pw = w - LABEL, k = pw / (v1 - v0);
    for (var l = 0; l < nl; l++) {
      var y = top[l];
      if (l % 2) { g.fillStyle = css("--chart-band1", "#f7f7f7"); g.fillRect(0, y, w, rows[l] * LANE); }
      g.fillStyle = css("--chart-fg", "#1a1a1a");
      g.fillText(D.lanes[l].slice(0, 24), 4, y + LANE / 2);
      var ev = byLane[l];
      for (var j = 0; j < ev.length; j++) {
        var e = ev[j], s = e[1], d = e[2];
        if (s > v1) break;
        if (s + d < v0) continue;
        var x = LABEL + (s - v0) * k, bw = Math.max(1, d * k);
        if (x < LABEL) { bw -= LABEL - x; x = LABEL; }
        g.fillStyle = COL[e[4] % COL.length];
        g.fillRect(x, y + e[5] * LANE + 2, Math.min(bw, w - x), LANE - 4);
      }
    }
    g.fillStyle = css("--chart-mut", "#4d4d4d");
    g.fillText(fmt(v0), LABEL, 9);
    var end = fmt(v1);
    g.fillText(end, w - g.measureText(end).width - 2, 9);
    range.textContent = "showing " + fmt(v1 - v0) + " of " + fmt(span);
    cv.setAttribute("data-window", v0 + " " + v1);
    cv.setAttribute("data-rows", rows.join(" "));
  }
  function zoom(f, cx) {
    var w = cv.clientWidth - LABEL, at = v0 + (v1 - v0) * Math.min(1, Math.max(0, (cx - LABEL) / w));
    var nw = Math.max(1000, Math.min(span, (v1 - v0) * f));
    v0 = Math.max(0, at - (at - v0) * nw / (v1 - v0)); v1 = Math.min(span, v0 + nw); v0 = Math.max(0, v1 - nw);
    draw();
  }
  function hit(px, py) {
    if (py < 20 || px < LABEL) return null;
    var l = 0;
    while (l + 1 < nl && top[l + 1] <= py) l++;
    var d = Math.floor((py - top[l]) / LANE);
    if (l >= nl || d >= rows[l]) return null;
    var t = v0 + (px - LABEL) * (v1 - v0) / (cv.clientWidth - LABEL), tol = 2 * (v1 - v0) / (cv.clientWidth - LABEL);
    /* the box under the pointer; else one within two pixels of it (a box drawn a pixel wide) */
    var ev = byLane[l], under = null, near = null;
    for (var j = 0; j < ev.length; j++) {
      var e = ev[j];
      if (e[1] > t + tol) break;
      if (e[5] !== d || e[1] + e[2] < t - tol) continue;
      if (e[1] <= t && t <= e[1] + e[2]) under = e;
      else near = e;
    }
    return under || near;
  }
  cv.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = cv.getBoundingClientRect();
    zoom(ev.deltaY < 0 ? 0.8 : 1.25, ev.clientX - r.left);
  }, { passive: false });
  var drag = null;
  cv.addEventListener("mousedown", function (ev) { drag = { x: ev.clientX, v0: v0, v1: v1 }; });
  window.addEventListener("mouseup", function () { drag = null; });
  cv.addEventListener("mousemove", function (ev) {
    var r = cv.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
    if (drag) {
      var dt = (drag.x - ev.clientX) * (drag.v1 - drag.v0) / (cv.clientWidth - LABEL);
      var w = drag.v1 - drag.v0;
      v0 = Math.max(0, Math.min(span - w, drag.v0 + dt)); v1 = v0 + w;
      draw();
      return;
    }
    var e = hit(px, py);
    if (!e) { tip.hidden = true; return; }
    var a = D.args && e[6] >= 0 ? D.args[e[6]] : null;
    tip.textContent = D.names[e[3]] + "\n" + D.categories[e[4]] + " \u00b7 " + D.lanes[e[0]] + "\nstart " + fmt(e[1]) + " \u00b7 duration " + fmt(e[2]) +
      (typeof a === "string" ? "\n" + a : "");
    tip.style.left = Math.min(px + 12, cv.clientWidth - 260) + "px"; tip.style.top = (py + 14) + "px";
    tip.hidden = false;
  });
  cv.addEventListener("mouseleave", function () { tip.hidden = true; });
  cv.addEventListener("keydown", function (ev) {
    if (ev.key === "+" || ev.key === "=") zoom(0.5, LABEL + (cv.clientWidth - LABEL) / 2);
    else if (ev.key === "-") zoom(2, LABEL + (cv.clientWidth - LABEL) / 2);
  });
  document.getElementById("tl-in").addEventListener("click", function () { zoom(0.5, LABEL + (cv.clientWidth - LABEL) / 2); });
  document.getElementById("tl-out").addEventListener("click", function () { zoom(2, LABEL + (cv.clientWidth - LABEL) / 2); });
  document.getElementById("tl-reset").addEventListener("click", function () { v0 = 0; v1 = span; sel.value = ""; draw(); });
  sel.addEventListener("change", function () {
    var s = D.steps[+sel.value];
    if (!s) { v0 = 0; v1 = span; } else { v0 = Math.max(0, s[1]); v1 = Math.min(span, s[1] + Math.max(1000, s[2])); }
    draw();
  });
  window.addEventListener("resize", draw);
  window.pcTimeline = { load: load, initial: D0 };
  load(D0);
})();
/* #47 item 9: a chart's text under 9 CSS pixels once scaled (a phone) is
 * unreadable: such a figure shows its data table instead of the picture; a
 * chart without a table keeps a width at which its text is 9 px, and its
 * figure scrolls sideways. */
(function () {
  "use strict";
  function fit() {
    document.querySelectorAll("figure").forEach(function (f) {
      var det = f.querySelector("details"), small = false;
      f.classList.remove("narrow");
      f.querySelectorAll("svg[data-font]").forEach(function (svg) {
        if (svg.parentNode.closest && svg.parentNode.closest("svg")) return;
        var vb = svg.viewBox && svg.viewBox.baseVal, w = vb && vb.width ? vb.width : +svg.getAttribute("width");
        var font = +svg.getAttribute("data-font"), shown = svg.getBoundingClientRect().width;
        svg.style.minWidth = "";
        if (!w || !shown || font * shown / w >= 9) return;
        if (det) small = true;
        else { svg.style.minWidth = Math.ceil(w * 9 / font) + "px"; f.style.overflowX = "auto"; }
      });
      if (small) { f.classList.add("narrow"); det.open = true; }
    });
  }
  fit();
  window.addEventListener("resize", fit);
})();
/* #47 item 10: "#timeline-slowest" zooms the timeline to the longest step; "#timeline-step-I"
 * (item 3) to the step of the Steps table's row "step-I", found by its name */
(function () {
  "use strict";
  function go() {
    var h = location.hash, m = /^#timeline-step-(\d+)$/.exec(h);
    if (h !== "#timeline-slowest" && !m) return;
    var sel = document.getElementById("tl-step"), tl = document.getElementById("timeline");
    if (tl) tl.scrollIntoView();
    if (!sel || !window.pcTimeline) return;
    var d = window.pcTimeline.current || window.pcTimeline.initial, best = -1, k = -1;
    var row = m ? document.getElementById("step-" + m[1]) : null, want = row && row.cells.length ? row.cells[0].textContent : null;
    ((d && d.steps) || []).forEach(function (s, i) {
      if (m ? s[0] === want : +s[2] > best) { best = +s[2]; k = i; }
    });
    if (k < 0) return;
    sel.value = String(k);
    sel.dispatchEvent(new Event("change"));
  }
  window.addEventListener("hashchange", go);
  go();
})();
