// A distributed job's report.html (#34): at 1440x900 the first screen shows
// the job's headline (not rank 0's: it names the job's ranks) and the per-rank
// chart wholly inside the viewport; the per-rank table highlights the slowest
// and the straggler rows (EXPECT_SLOWEST, EXPECT_STRAGGLER: ranks); choosing a
// rank in the selector shows that rank's tables and hides the others, and the
// kernels table's first row differs between the first rank and rank PICK; it
// draws rank PICK's timeline in the Timeline section (#34 item 3): the section
// names rank PICK, the canvas's lanes, span or summed event time change, and with EXPECT_LANE (a
// lane only rank PICK's trace has, read from its trace) that lane is drawn and
// was not before, and the typical step drawn above it (the first rank's) hidden, said so; picking the first rank again draws the page's own; no
// sideways scroll at 390 px, the timeline switched; the Ranks table's six figures wholly visible at
// 1440 px, the other columns behind a <details> (#47 item 1). Prints PASS/FAIL lines.
// Usage: node check_job.js REPORT.html TAG NRANKS PICK EXPECT_SLOWEST EXPECT_STRAGGLER [EXPECT_LANE]
const path = require("path");
const { launch, checker } = require("./launch");

const [file, tag, nranks, pick, slowest, straggler, lane] = process.argv.slice(2);
const { result, failed } = checker(`${tag}job_`);

(async () => {
  const browser = await launch();
  const url = "file://" + path.resolve(file);
  const ctx = await browser.newContext({ offline: true, viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: "load" });
  const first = await page.evaluate(() => {
    const W = window.innerWidth, H = window.innerHeight;
    const inside = (r) => r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= H && r.right <= W;
    const h = document.querySelector("#overview .headline");
    const svg = Array.from(document.querySelectorAll("#overview figure svg")).find((e) => /Per rank/.test(e.getAttribute("aria-label") || ""));
    return { title: document.title, headline: h ? h.textContent : null, headlineInside: !!h && inside(h.getBoundingClientRect()),
             chart: svg ? svg.getAttribute("aria-label") : null, chartInside: !!svg && inside(svg.getBoundingClientRect()) };
  });
  result("title_is_the_jobs", new RegExp(`job of ${nranks} ranks`).test(first.title), first.title);
  result("first_screen_job_headline", first.headlineInside && /Rank \d+ holds the job|No straggler among/.test(first.headline || "") &&
         new RegExp(`${nranks} ranks`).test(first.headline), JSON.stringify(first));
  result("first_screen_per_rank_chart", first.chartInside, JSON.stringify(first));
  // (the marks are in the rank's cell: "7 straggler")
  const marks = await page.evaluate(() => Array.from(document.querySelectorAll("#ranks table.ranks-main tbody tr.hl")).map((tr) => tr.cells[0].textContent.replace(/^(\d+)\s*/, "$1:")));
  const want = [`${slowest}:`, `${straggler}:`];
  result("ranks_table_highlights", want.every((w) => marks.some((m) => m.startsWith(w))) &&
         marks.some((m) => m.startsWith(`${slowest}:`) && /slowest/.test(m)) && marks.some((m) => m.startsWith(`${straggler}:`) && /straggler/.test(m)),
         JSON.stringify(marks));
  // the Ranks table (#47 item 1): at 1440 px its six figures and the rank, every column wholly visible
  // without scrolling sideways, each header with its definition on hover; the other columns in a
  // closed <details> under it that opens on a click (no request)
  const rt = await page.evaluate(() => {
    const t = document.querySelector("#ranks table.ranks-main"), wrap = t && t.closest(".tablewrap");
    const w = wrap ? wrap.getBoundingClientRect() : null;
    const ths = t ? Array.from(t.querySelectorAll("thead th")) : [];
    const more = document.querySelector("#ranks details.ranks-more");
    return { cols: ths.map((th) => th.textContent), titled: ths.every((th) => (th.getAttribute("title") || "").length > 20),
             visible: ths.filter((th) => { const r = th.getBoundingClientRect(); return w && r.width > 0 && r.left >= w.left - 1 && r.right <= w.right + 1; }).length,
             scrolls: wrap ? wrap.scrollWidth > wrap.clientWidth + 1 : true, moreClosed: !!more && !more.open,
             moreCols: more ? more.querySelectorAll("thead th").length : 0 };
  });
  result("ranks_table_six_columns_at_1440", rt.cols.length === 7 && rt.visible === 7 && !rt.scrolls && rt.titled, JSON.stringify(rt));
  await page.click("#ranks details.ranks-more > summary");
  const opened = await page.evaluate(() => { const d = document.querySelector("#ranks details.ranks-more"); return !!d && d.open && d.querySelector("table").getBoundingClientRect().height > 0; });
  result("ranks_table_more_on_demand", rt.moreClosed && rt.moreCols >= 8 && opened, JSON.stringify([rt.moreClosed, rt.moreCols, opened]));
  const shown = () => page.evaluate(() => {
    const v = Array.from(document.querySelectorAll(".rankview")).filter((d) => !d.hidden && d.getBoundingClientRect().height > 0);
    const row = v[0] && v[0].querySelector("table.rk-kernels tbody tr");
    const tl = v[0] && v[0].querySelector(".rk-timeline");
    const cv = document.getElementById("tl-canvas"), no = document.getElementById("tl-rank-no");
    return { visible: v.map((d) => d.getAttribute("data-rank")), kernelRow: row ? row.textContent : null, timeline: tl ? tl.textContent : null,
             options: document.querySelectorAll("#rank-pick option").length,
             tlRank: no ? no.textContent : null, lanes: cv ? cv.getAttribute("data-lanes") : null, span: cv ? cv.getAttribute("data-span") : null,
             busy: cv ? cv.getAttribute("data-busy") : null,
             stepFig: (() => { const f = document.getElementById("tl-step-fig"), o = document.getElementById("tl-step-other");
                               const seen = (x) => !!x && x.getBoundingClientRect().height > 0;
                               return (seen(f) ? "fig" : "") + (seen(o) ? "other" : ""); })(),
             first: document.querySelector("#rank-pick option") ? document.querySelector("#rank-pick option").value : null };
  });
  const before = await shown();
  await page.selectOption("#rank-pick", String(pick));
  const after = await shown();
  result("rank_selector_lists_ranks", before.options === Number(nranks), JSON.stringify(before));
  result("rank_selector_shows_one_rank", before.visible.length === 1 && after.visible.length === 1 && after.visible[0] === String(pick), JSON.stringify([before, after]));
  result("rank_selector_changes_kernels", !!before.kernelRow && !!after.kernelRow && before.kernelRow !== after.kernelRow, JSON.stringify([before.kernelRow, after.kernelRow]));
  // the timeline per rank: the first rank's is the page's Timeline section; another rank's is named with
  // the command that draws it (its own input: report.html holds one rank's timeline)
  result("rank_selector_timeline_per_rank", /Timeline section of this page shows this rank/.test(before.timeline || "") &&
         /^Picking this rank draws its timeline in the Timeline section: its [\d,]+ longest events of [\d,]+/.test(after.timeline || "") &&
         /perfcard report \S+/.test(after.timeline || "") && after.timeline !== before.timeline,
         JSON.stringify([before.timeline, after.timeline]));
  // the Timeline section follows the selector: the chosen rank's lanes and span, named
  const lanesOf = (x) => (x.lanes || "").split("|");
  result("rank_selector_switches_timeline", before.tlRank === before.first && after.tlRank === String(pick) && !!after.lanes &&
         (after.lanes !== before.lanes || after.span !== before.span || after.busy !== before.busy) &&
         (!lane || (lanesOf(after).includes(lane) && !lanesOf(before).includes(lane))) &&
         before.stepFig === "fig" && after.stepFig === "other",
         JSON.stringify({ before: [before.tlRank, before.span, before.busy, before.stepFig, before.lanes], after: [after.tlRank, after.span, after.busy, after.stepFig, after.lanes], lane }));
  await page.selectOption("#rank-pick", String(before.first));
  const back = await shown();
  result("rank_selector_timeline_back_to_first", back.tlRank === before.first && back.lanes === before.lanes && back.span === before.span && back.busy === before.busy && back.stepFig === "fig",
         JSON.stringify([back.tlRank, back.span]));
  result("no_page_errors", errors.length === 0, errors.join("; "));
  await ctx.close();
  const phone = await browser.newContext({ offline: true, viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  const pp = await phone.newPage();
  await pp.goto(url, { waitUntil: "load" });
  await pp.selectOption("#rank-pick", String(pick));
  const side = await pp.evaluate(() => ({ sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth,
                                          tl: (document.getElementById("tl-rank-no") || {}).textContent }));
  result("no_sideways_scroll_390px", side.sw <= side.cw + 1 && side.tl === String(pick), JSON.stringify(side));
  await phone.close();
  await browser.close();
  process.exit(failed() ? 1 : 0);
})().catch((e) => { console.log(`FAIL ${tag}job_run: ${e}`); process.exit(1); });
