// Opens a perfcard report.html in Debian's Chromium (headless, network off)
// and checks: no console errors, no request other than the file itself,
// every chart renders to non-blank pixels, a table sorts when its header is
// clicked, the filter box hides rows; the layout (#20): at 1280 px every Name
// column at least 320 px wide, a long table's header row still visible after
// scrolling it, every table reaching its last row (paging), no sideways page
// scroll at 390 px; in dark mode the page and the charts' backgrounds dark;
// and axe-core finds no serious or critical accessibility violation.
// The first screen (#35): at 1440x900, before any scrolling, the headline and a
// chart (an svg or img wholly inside the viewport); every figure (a number with %
// or a unit) in the visible text of the first screen's header and first section
// shown once; no table cell taller
// than 200 px; no two text runs of an SVG chart overlapping (<text> elements and
// Cairo's glyph runs, a <g> of glyph <use>s: their boxes may meet by 1 px); and
// axe-core clean in dark mode too.
// #47: #1's "try" line inside 1440x900 and no n/a card on the first screen; each
// finding links to its evidence's sections; at 390 px no chart text under 9 px
// (such a chart shows its data table) and a verdict of at most 5 lines.
// Screenshots: SCREENSHOT.png (1280 px) and SCREENSHOT-390.png (phone); with
// SHOTS=DIR also DIR/report-light.png and report-dark.png (1440x900, the first
// screen) and report-phone.png (390 px, full page).
// Prints PASS/FAIL lines. Usage: node check_report.js REPORT.html SCREENSHOT.png [TAG]
const path = require("path");
const { launch, checker } = require("./launch");

const [file, shot, tag = ""] = process.argv.slice(2);
const { result, failed } = checker(`${tag}browser_`);

(async () => {
  const browser = await launch();
  const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [], requests = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  const url = "file://" + path.resolve(file);
  page.on("request", (r) => { if (r.url() !== url && !r.url().startsWith("data:")) requests.push(r.url()); });
  await page.goto(url, { waitUntil: "load" });

  // every chart: rasterize its SVG and count pixels that are not background
  const charts = await page.evaluate(async () => {
    const out = [];
    for (const svg of document.querySelectorAll("figure svg")) {
      const box = svg.getBoundingClientRect();
      const clone = svg.cloneNode(true);
      // a data: URL, which the report's Content-Security-Policy allows for images
      const xml = new XMLSerializer().serializeToString(clone);
      const src = "data:image/svg+xml;base64," + btoa(unescape(encodeURIComponent(xml)));
      const img = new Image();
      await new Promise((ok, bad) => { img.onload = ok; img.onerror = bad; img.src = src; });
      const c = document.createElement("canvas");
      c.width = Math.max(1, Math.round(img.width)); c.height = Math.max(1, Math.round(img.height));
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) ink++;
      out.push({ title: svg.getAttribute("aria-label"), w: box.width, h: box.height, ink: ink / (c.width * c.height) });
    }
    return out;
  });
  /* the demo and ResNet-50 pages draw many; a tiny fixture (nvprof's: the bar and the timeline) fewer */
  result("charts_present", charts.length >= (tag === "cli_" || tag === "cli_resnet50_" ? 3 : 1), `${charts.length} charts`);
  const blank = charts.filter((c) => !(c.w > 50 && c.h > 50 && c.ink > 0.01));
  result("charts_not_blank", blank.length === 0, JSON.stringify(blank.slice(0, 3)));

  // sorting: every sortable table with enough rows, by its first varying numeric column (footer rows,
  // such as the operators' unattributed GPU time, stay out of the sort)
  const sorted = await page.evaluate(() => {
    const out = [];
    for (const t of document.querySelectorAll("table.sortable")) {
      const rows = t.tBodies[0].rows;
      if (rows.length < 3) continue;
      const ths = t.tHead.rows[0].cells;
      for (let col = 0; col < ths.length; col++) {
        if (ths[col].getAttribute("data-type") !== "num") continue;
        const vals = () => Array.from(t.tBodies[0].rows).map((r) => parseFloat(r.cells[col].getAttribute("data-v")));
        const before = vals();
        if (new Set(before).size < 2) continue;
        ths[col].click();
        const desc = vals();
        ths[col].click();
        const asc = vals();
        const isDesc = desc.every((v, i) => i === 0 || desc[i - 1] >= v || isNaN(v));
        const isAsc = asc.every((v, i) => i === 0 || asc[i - 1] <= v || isNaN(asc[i - 1]));
        out.push({ ok: isDesc && isAsc, col, table: t.closest("section").id });
        break;
      }
    }
    if (!out.length) return { ok: false, why: "no sortable table with a varying numeric column" };
    return { ok: out.every((x) => x.ok), tables: out.length, failed: out.filter((x) => !x.ok) };
  });
  /* a tiny trace may have no table of three rows; the demo and ResNet-50 pages must */
  const mustSort = tag === "cli_" || tag === "cli_resnet50_";
  result("table_sorts_on_click", sorted.ok || (!mustSort && !!sorted.why), JSON.stringify(sorted));

  // the fuzzy filter hides rows that do not match
  const filtered = await page.evaluate(() => {
    const inp = document.querySelector("input.filter");
    if (!inp) return { ok: false, why: "no filter box" };
    let t = inp.nextElementSibling;
    while (t && t.tagName !== "TABLE" && !t.classList.contains("tablewrap")) t = t.nextElementSibling;
    if (t && t.tagName !== "TABLE") t = t.querySelector("table");
    inp.value = "zzzzqqqq";
    inp.dispatchEvent(new Event("input"));
    const hidden = Array.from(t.tBodies[0].rows).filter((r) => r.style.display === "none").length;
    inp.value = "";
    inp.dispatchEvent(new Event("input"));
    const shown = Array.from(t.tBodies[0].rows).filter((r) => r.style.display !== "none").length;
    /* a table of more than 100 rows shows its first 100 again (paging), with the pager shown */
    const n = t.tBodies[0].rows.length;
    return { ok: hidden === n && (shown === n || (n > 100 && shown === 100 && t._pager && !t._pager.hidden)), hidden, shown };
  });
  result("filter_box_filters", filtered.ok || (!mustSort && filtered.why === "no filter box"), JSON.stringify(filtered));

  // layout at 1280 px: the one column people read is wide enough
  const names = await page.evaluate(() => {
    const out = [];
    for (const t of document.querySelectorAll("table.data")) {
      if (t.closest("details")) continue;
      const td = t.querySelector("td.name:not(.op)");
      if (td && td.offsetParent) out.push({ section: t.closest("section") ? t.closest("section").id : "", w: Math.round(td.getBoundingClientRect().width) });
    }
    return out;
  });
  const narrow = names.filter((n) => n.w < 320);
  result("name_column_320px", names.length > 0 ? narrow.length === 0 : tag.indexOf("diff") >= 0 || tag.indexOf("hostile") >= 0,
         JSON.stringify(names.length ? narrow.slice(0, 3) : "no Name column"));

  // every table reaches its last row: "Show all" shows every row (none left out of the page)
  const reach = await page.evaluate(() => {
    const bad = [];
    for (const t of document.querySelectorAll("table.data")) {
      const rows = t.tBodies[0] ? t.tBodies[0].rows : [];
      /* a tree table's folded chains open with their buttons: the reader reaches every frame */
      for (const b of t.querySelectorAll('button.chain[aria-expanded="false"]')) b.click();
      if (!t._pager) {
        const hidden = Array.from(rows).filter((r) => r.style.display === "none").length;
        if (hidden) bad.push({ id: t.closest("section") && t.closest("section").id, hidden });
        continue;
      }
      const all = t._pager.querySelectorAll("button")[1];
      all.click();
      const shown = Array.from(rows).filter((r) => r.style.display !== "none").length;
      if (shown !== rows.length) bad.push({ id: t.closest("section") && t.closest("section").id, shown, total: rows.length });
    }
    const notes = Array.from(document.querySelectorAll("p.more")).map((p) => p.textContent).filter((s) => /in summary\.json/.test(s));
    return { ok: bad.length === 0, bad: bad.slice(0, 3), notes: notes.slice(0, 2) };
  });
  result("every_table_reaches_its_last_row", reach.ok && (tag.indexOf("diff") >= 0 || reach.notes.length === 0), JSON.stringify(reach));

  // the longest table scrolled to its end still shows its header row at its top
  const sticky = await page.evaluate(() => {
    let best = null;
    for (const w of document.querySelectorAll(".tablewrap")) {
      if (w.closest("details") || !w.offsetParent) continue;
      if (w.scrollHeight - w.clientHeight > 100 && (!best || w.scrollHeight > best.scrollHeight)) best = w;
    }
    if (!best) return { ok: true, why: "no table long enough to scroll" };
    best.scrollIntoView();
    best.scrollTop = best.scrollHeight;
    const th = best.querySelector("thead th"), wr = best.getBoundingClientRect(), hr = th.getBoundingClientRect();
    const atTop = Math.abs(hr.top - wr.top) <= 2;
    const x = hr.left + 5, y = hr.top + hr.height / 2;
    const hit = document.elementFromPoint(x, y);
    return { ok: atTop && !!hit && th.contains(hit), top: hr.top, wrapTop: wr.top, hit: hit && hit.tagName };
  });
  result("table_header_visible_after_scrolling", sticky.ok, JSON.stringify(sticky));

  // the interactive timeline: zooms, and shows an event when hovered
  if (await page.$("#tl-canvas")) {
    const win = async () => (await page.getAttribute("#tl-canvas", "data-window")).split(" ").map(Number);
    const [a0, a1] = await win();
    await page.click("#tl-in");
    const [b0, b1] = await win();
    /* the view narrows to 1 µs at most (report.js): a shorter trace has nothing to zoom into */
    result("timeline_zooms", a1 - a0 <= 2000 || (b1 - b0 < (a1 - a0) * 0.6 && b1 - b0 > 0), JSON.stringify({ before: a1 - a0, after: b1 - b0 }));
    await page.click("#tl-reset");
    await page.$eval("#tl-canvas", (c) => c.scrollIntoView());
    const box = await (await page.$("#tl-canvas")).boundingBox();
    let shown = "";
    for (let lane = 0; lane < 3 && !shown; lane++)
      for (let x = box.x + 152; x < box.x + box.width - 2 && !shown; x += 3) {
        await page.mouse.move(x, box.y + 20 + lane * 18 + 9);
        shown = await page.$eval("#tl-tip", (t) => (t.hidden ? "" : t.textContent));
      }
    result("timeline_tooltip", /duration/.test(shown), JSON.stringify(shown.slice(0, 80)));
    // point at one event chosen from the page's own data: the widest with arguments (a kernel's grid
    // and block, a copy's bytes, an operator's shapes), and the widest on a nested row; each must
    // answer the pointer with its name (and arguments), with the canvas scrolled clear of the bar
    const D = await page.$eval("#tl-data", (d) => JSON.parse(d.textContent));
    const rows = (await page.getAttribute("#tl-canvas", "data-rows")).split(" ").map(Number);
    const pointAt = async (e) => {
      const laneTop = 20 + rows.slice(0, e[0]).reduce((a, b) => a + b, 0) * 18 + Math.min(7, e[5]) * 18;
      await page.evaluate((y) => window.scrollTo(0, y), await page.$eval("#tl-canvas", (c, t) => c.getBoundingClientRect().top + window.scrollY + t - 300, laneTop));
      const b = await (await page.$("#tl-canvas")).boundingBox(), w = (await page.$eval("#tl-canvas", (c) => c.clientWidth)) - 150;
      const x0 = Math.max(e[1], 0), x1 = Math.min(e[1] + e[2], D.span_ns);
      await page.mouse.move(b.x + 150 + ((x0 + x1) / 2) * w / Math.max(1, D.span_ns), b.y + laneTop + 9);
      return page.$eval("#tl-tip", (t) => (t.hidden ? "" : t.textContent));
    };
    /* only events at least 4 pixels wide in the whole-trace view can be aimed at without zooming */
    const cw = (await page.$eval("#tl-canvas", (c) => c.clientWidth)) - 150;
    const widest = (f) => D.events.filter((e) => f(e) && e[2] * cw / Math.max(1, D.span_ns) >= 4).reduce((a, e) => (!a || e[2] > a[2] ? e : a), null);
    const withArgs = widest((e) => e[6] >= 0);
    if (withArgs) {
      const tip = await pointAt(withArgs);
      result("timeline_tooltip_args", tip.indexOf(D.args[withArgs[6]]) >= 0, JSON.stringify({ want: D.args[withArgs[6]].slice(0, 60), tip: tip.slice(0, 160) }));
    }
    const nested = widest((e) => e[5] >= 1);
    if (nested) {
      const tip = await pointAt(nested);
      result("timeline_nested_rows", tip.indexOf(D.names[nested[3]]) === 0, JSON.stringify({ depth: nested[5], want: D.names[nested[3]].slice(0, 60), tip: tip.slice(0, 120) }));
    } else if (tag === "cli_" || tag === "cli_resnet50_") result("timeline_nested_rows", false, "no nested ranges: " + rows.join(" "));
  } else if (tag === "cli_" || tag === "cli_resnet50_") {
    result("timeline_present", false, "no #tl-canvas in the report");
  }

  // every section says in one line what it shows; the overview's figures carry their definitions
  const leads = await page.evaluate(() => {
    const missing = Array.from(document.querySelectorAll("main > section")).filter((sec) => {
      const h = sec.querySelector("h2");
      const p = h && h.nextElementSibling;
      return !(p && p.classList.contains("lead") && p.textContent.trim().length > 20);
    }).map((sec) => sec.id);
    const untitled = Array.from(document.querySelectorAll(".card")).filter((c) => !(c.title && c.title.length > 20)).length;
    /* and every table's headers, column and row: a definition as a tooltip */
    const bareHeads = Array.from(document.querySelectorAll("main th"))
      .filter((th) => !(th.title && th.title.trim().length >= 5)).map((th) => (th.closest("section") || {}).id + ":" + th.textContent);
    return { missing, untitled, bareHeads };
  });
  result("sections_have_a_lead_and_cards_a_definition", tag.indexOf("diff") >= 0 || (leads.missing.length === 0 && leads.untitled === 0 && leads.bareHeads.length === 0), JSON.stringify(leads));

  // accessibility: axe-core, no serious or critical violation
  const axePath = path.join(__dirname, "node_modules", "axe-core", "axe.min.js");
  let axe = { ok: false, why: "axe-core missing" };
  try {
    await page.addScriptTag({ path: axePath });
    axe = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ["violations"] });
      const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      return { ok: bad.length === 0, bad: bad.map((v) => v.id + " (" + v.nodes.length + "): " + (v.nodes[0] ? v.nodes[0].target.join(" ") : "")).slice(0, 5) };
    });
  } catch (e) { axe = { ok: false, why: String(e) }; }
  result("axe_no_serious_violations", axe.ok, JSON.stringify(axe));

  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot, fullPage: true });
  result("no_console_errors", errors.length === 0, errors.slice(0, 3).join(" | "));
  result("no_network_requests", requests.length === 0, requests.slice(0, 3).join(" "));

  // a phone: nothing scrolls the page sideways
  const phone = await browser.newContext({ offline: true, viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  const pp = await phone.newPage();
  await pp.goto(url, { waitUntil: "load" });
  const side = await pp.evaluate(() => ({ sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth }));
  result("no_sideways_scroll_390px", side.sw <= side.cw + 1, JSON.stringify(side));
  // #47 item 9: every chart still drawn at 390 px has text of at least 9 CSS px (its
  // smallest font, data-font in the chart's units, times the drawn width over the
  // viewBox's); a chart that would be smaller shows its data table instead
  const small = await pp.evaluate(() => {
    const bad = [];
    let drawn = 0, tables = 0;
    for (const svg of document.querySelectorAll("figure svg")) {
      const f = +svg.getAttribute("data-font") || 11, w = svg.getBoundingClientRect().width;
      const vb = svg.viewBox && svg.viewBox.baseVal, vw = vb && vb.width ? vb.width : +svg.getAttribute("width");
      if (w === 0) { /* not drawn: its table must be open in its place */
        const det = svg.closest("figure").querySelector("details");
        if (det && det.open) tables++;
        else if (getComputedStyle(svg).display === "none") bad.push((svg.getAttribute("aria-label") || "svg") + ": hidden, no table");
        continue;
      }
      drawn++;
      const px = f * w / vw;
      if (px < 9) bad.push((svg.getAttribute("aria-label") || "svg") + ": " + px.toFixed(1) + " px");
    }
    return { drawn, tables, bad: bad.slice(0, 5) };
  });
  result("chart_text_at_least_9px_390px", small.bad.length === 0, JSON.stringify(small));
  const verdict = await pp.evaluate(() => {
    const h = document.querySelector(".headline, .verdict");
    return h ? { lines: Math.round(h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight || "20")), chars: h.textContent.trim().length } : null;
  });
  if (verdict && !isNaN(verdict.lines)) result("short_verdict_390px", verdict.lines <= 5, JSON.stringify(verdict));
  await pp.screenshot({ path: shot.replace(/\.png$/, "") + "-390.png", fullPage: true });
  await phone.close();

  // dark mode: the page and every chart's background follow it
  const dark = await browser.newContext({ offline: true, viewport: { width: 1280, height: 900 }, colorScheme: "dark" });
  const dp = await dark.newPage();
  await dp.goto(url, { waitUntil: "load" });
  const dk = await dp.evaluate(() => {
    const lum = (c) => { const m = c.match(/\d+(\.\d+)?/g); if (!m) return 1; const [r, g, b] = m.map(Number); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; };
    const page = lum(getComputedStyle(document.body).backgroundColor);
    const light = [];
    let charts = 0;
    for (const svg of document.querySelectorAll("figure svg")) {
      const bg = svg.querySelector('[style*="--chart-bg"]');
      charts++;
      if (!bg || lum(getComputedStyle(bg).fill) > 0.3) light.push(svg.getAttribute("aria-label"));
    }
    return { ok: page < 0.3 && light.length === 0, page, charts, light: light.slice(0, 3) };
  });
  result("dark_mode_charts_follow", dk.ok, JSON.stringify(dk));
  // axe-core in dark mode: the dark palette keeps contrast too
  let daxe = { ok: false, why: "axe-core missing" };
  try {
    await dp.addScriptTag({ path: axePath });
    daxe = await dp.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ["violations"] });
      const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      return { ok: bad.length === 0, bad: bad.map((v) => v.id + " (" + v.nodes.length + "): " + (v.nodes[0] ? v.nodes[0].target.join(" ") : "")).slice(0, 5) };
    });
  } catch (e) { daxe = { ok: false, why: String(e) }; }
  result("dark_mode_axe_no_serious_violations", daxe.ok, JSON.stringify(daxe));
  await dark.close();

  // the first screen at 1440x900, light and dark
  for (const scheme of ["light", "dark"]) {
    const ctx = await browser.newContext({ offline: true, viewport: { width: 1440, height: 900 }, colorScheme: scheme, deviceScaleFactor: 1 });
    const fp = await ctx.newPage();
    await fp.goto(url, { waitUntil: "load" });
    if (scheme === "light") {
      const first = await fp.evaluate(() => {
        const W = window.innerWidth, H = window.innerHeight;
        const inside = (r) => r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= H && r.right <= W;
        const h = document.querySelector(".headline") || document.querySelector("header .sub");
        const hb = h && h.getBoundingClientRect();
        const charts = Array.from(document.querySelectorAll("main svg, main img")).filter((e) => !e.closest("svg svg") && e.getBoundingClientRect().width > 100);
        const seen = charts.filter((e) => inside(e.getBoundingClientRect())).map((e) => e.getAttribute("aria-label") || e.getAttribute("alt") || e.tagName);
        const firstChart = charts[0] ? Math.round(charts[0].getBoundingClientRect().top) : null;
        return { ok: !!hb && inside(hb) && seen.length > 0, headline: hb ? Math.round(hb.bottom) : null, charts: seen, firstChartTop: firstChart };
      });
      result("first_screen_headline_and_chart", first.ok, JSON.stringify(first));
      // #47 item 4: #1's "try" line wholly inside 1440x900, and no card of the first screen's row reads n/a
      const act = await fp.evaluate(() => {
        const W = window.innerWidth, H = window.innerHeight;
        const inside = (r) => r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= H && r.right <= W;
        const sugg = document.querySelector(".sugg"), t = document.querySelector("p.try");
        const na = Array.from(document.querySelectorAll("main > section:first-of-type .card .v")).filter((v) => v.textContent.trim() === "n/a")
          .map((v) => v.closest(".card").querySelector(".k").textContent);
        /* each card whole: its label inside a card laid out as one (a tag left open breaks the row) */
        const loose = Array.from(document.querySelectorAll("main > section:first-of-type .cards .k"))
          .filter((k) => !k.closest(".card") || getComputedStyle(k.closest(".card")).display !== "flex").map((k) => k.textContent);
        return { suggestions: !!sugg, try: t ? t.textContent.slice(0, 80) : null, tryInside: !!t && inside(t.getBoundingClientRect()), na, loose };
      });
      if (act.suggestions) result("first_screen_try_line", act.tryInside, JSON.stringify(act));
      result("first_screen_no_na_card", act.na.length === 0, JSON.stringify(act.na));
      result("first_screen_cards_whole", act.loose.length === 0, JSON.stringify(act.loose));
      // #47 item 10: each finding links to the sections of its evidence, every link's target on the page
      const links = await fp.evaluate(() => {
        const bad = [];
        let n = 0, rows = 0;
        for (const sg of document.querySelectorAll(".sugg")) {
          n++;
          const as = Array.from(sg.querySelectorAll("p.links a"));
          if (!sg.id || !as.length) bad.push((sg.querySelector("h3") || sg).textContent.slice(0, 40) + ": no links");
          for (const a of as) {
            const id = (a.getAttribute("href") || "").slice(1);
            const st = /^timeline-step-(\d+)$/.exec(id); /* #47 item 3: the timeline at the step of row step-N */
            if (st && !document.getElementById("step-" + st[1])) bad.push("#" + id + ": no row step-" + st[1]);
            if (id !== "timeline-slowest" && !st && !document.getElementById(id)) bad.push("#" + id + " missing");
            if (id === "timeline-slowest" && !document.getElementById("timeline")) bad.push("no timeline");
          }
          /* #47 item 3: its own rows, each link to a table row whose name is the contributor's */
          for (const a of sg.querySelectorAll("a.row-link")) {
            rows++;
            const t = document.getElementById((a.getAttribute("href") || "").slice(1));
            if (!t || t.tagName !== "TR") bad.push(a.getAttribute("href") + " is no table row");
            else if (!Array.from(t.cells).some((c) => c.getAttribute("title") === a.getAttribute("title") || c.textContent === a.getAttribute("title")))
              bad.push(a.getAttribute("href") + " is not the row of " + a.getAttribute("title"));
          }
        }
        return { findings: n, rows, bad: bad.slice(0, 5) };
      });
      result("findings_link_their_evidence", links.bad.length === 0, JSON.stringify(links));
      if (tag === "cli_") result("findings_link_their_rows", links.rows >= 3, JSON.stringify(links)); /* the demo (report_full.sh): #1 names its 3 operators */
      // a finding's step on the timeline: following its link selects that step (by the Steps row's name)
      const stepLink = await fp.evaluate(() => { const a = document.querySelector('.sugg a[href^="#timeline-step-"]');
                                                 return a ? a.getAttribute("href") : null; });
      if (stepLink) {
        await fp.evaluate((h) => { location.hash = h; }, stepLink);
        await fp.waitForTimeout(300);
        const picked = await fp.evaluate((h) => {
          const sel = document.getElementById("tl-step"), row = document.getElementById("step-" + h.split("-").pop());
          return { want: row ? row.cells[0].textContent : null, got: sel && sel.selectedOptions[0] ? sel.selectedOptions[0].textContent : null };
        }, stepLink);
        result("finding_step_on_timeline", !!picked.want && picked.want === picked.got, JSON.stringify(picked));
        await fp.evaluate(() => { history.replaceState(null, "", location.pathname); window.scrollTo(0, 0); });
        await fp.waitForTimeout(100);
      }
      // the figures the first screen shows (visible text within the viewport): each once
      const figs = await fp.evaluate(() => {
        const W = window.innerWidth, H = window.innerHeight, out = [];
        const unit = /(?:^|[^\w.#])([-+]?\d[\d,]*(?:\.\d+)?\s?(?:%|ns|µs|us|ms|s|min|h|B|KiB|MiB|GiB|TiB|kB|MB|GB|TB|GB\/s|TB\/s|TFLOP\/s|GFLOP\/s|FLOP\/B)(?![\w\/])(?! interval))/g; /* "95% interval" names a statistic */
        const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n; (n = walk.nextNode());) {
          const el = n.parentElement;
          if (!el || el.closest("script, style, title, svg, nav, details:not([open]) > :not(summary)")) continue;
          /* the header and the first section (the overview, a diff's or trend's verdict): the list
           * below it details the headline's finding with its evidence */
          if (!el.closest("header") && el.closest("main > section") !== document.querySelector("main > section")) continue;
          const cs = getComputedStyle(el);
          if (cs.visibility === "hidden" || cs.display === "none") continue;
          const r = document.createRange();
          r.selectNodeContents(n);
          const rects = Array.from(r.getClientRects()).filter((b) => b.width > 0 && b.height > 0);
          if (!rects.length || !rects.some((b) => b.top >= 0 && b.bottom <= H && b.left >= 0 && b.right <= W)) continue;
          let m;
          unit.lastIndex = 0;
          while ((m = unit.exec(n.textContent))) out.push(m[1].replace(/\s/g, ""));
        }
        const count = {};
        for (const f of out) count[f] = (count[f] || 0) + 1;
        return { figures: out.length, repeated: Object.keys(count).filter((k) => count[k] > 1).map((k) => k + " x" + count[k]) };
      });
      result("first_screen_each_figure_once", figs.repeated.length === 0, JSON.stringify(figs));
      // no table cell taller than 200 px (tables in a closed details aside: not laid out)
      const tall = await fp.evaluate(() => Array.from(document.querySelectorAll("td, th"))
        .map((c) => ({ c, h: c.getBoundingClientRect().height }))
        .filter((x) => x.h > 200)
        .map((x) => ((x.c.closest("section") || {}).id || "") + ": " + Math.round(x.h) + " px: " + x.c.textContent.slice(0, 60)));
      result("table_cells_at_most_200px", tall.length === 0, JSON.stringify(tall.slice(0, 3)));
      // no two text runs of a chart overlap (each chart's SVG: <text>, or a Cairo glyph run)
      const over = await fp.evaluate(() => {
        const bad = [];
        let runs = 0;
        for (const svg of document.querySelectorAll("svg")) {
          if (svg.closest("svg") !== svg) continue;
          const texts = Array.from(svg.querySelectorAll("text, g")).filter((e) => e.tagName.toLowerCase() === "text" ||
            (e.children.length > 0 && Array.from(e.children).every((k) => k.tagName.toLowerCase() === "use" && /glyph/.test(k.getAttribute("xlink:href") || k.getAttribute("href") || ""))));
          const boxes = texts.map((e) => e.getBoundingClientRect()).filter((b) => b.width > 0 && b.height > 0);
          runs += boxes.length;
          for (let i = 0; i < boxes.length && bad.length < 5; i++)
            for (let j = i + 1; j < boxes.length; j++) {
              const a = boxes[i], b = boxes[j];
              const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left), oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
              if (ox > 1 && oy > 1) { bad.push((svg.getAttribute("aria-label") || "svg") + ": runs " + i + " and " + j + " meet by " + ox.toFixed(1) + " x " + oy.toFixed(1) + " px"); break; }
            }
        }
        return { runs, bad };
      });
      result("chart_texts_do_not_overlap", over.bad.length === 0, JSON.stringify(over));
    }
    if (process.env.SHOTS) await fp.screenshot({ path: path.join(process.env.SHOTS, "report-" + scheme + ".png") });
    await ctx.close();
  }
  if (process.env.SHOTS) {
    const ph = await browser.newContext({ offline: true, viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const pg = await ph.newPage();
    await pg.goto(url, { waitUntil: "load" });
    await pg.screenshot({ path: path.join(process.env.SHOTS, "report-phone.png"), fullPage: true });
    await ph.close();
  }
  await browser.close();
  process.exit(failed() ? 1 : 0);
})().catch((e) => { console.log(`FAIL ${tag}browser_run: ${e}`); process.exit(1); });
