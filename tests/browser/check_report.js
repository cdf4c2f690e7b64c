// Opens a perfcard report.html in Debian's Chromium (headless, network off)
// and checks: no console errors, no request other than the file itself,
// every chart renders to non-blank pixels, a table sorts when its header is
// clicked, and the filter box hides rows. Prints PASS/FAIL lines.
// Usage: node check_report.js REPORT.html SCREENSHOT.png [TAG]
const { chromium } = require("playwright-core");
const path = require("path");

const [file, shot, tag = ""] = process.argv.slice(2);
let failed = 0;
const result = (name, ok, why) => {
  console.log(`${ok ? "PASS" : "FAIL"} ${tag}browser_${name}${ok ? "" : ": " + why}`);
  if (!ok) failed++;
};

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
  });
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
  result("charts_present", charts.length >= 3, `${charts.length} charts`);
  const blank = charts.filter((c) => !(c.w > 50 && c.h > 50 && c.ink > 0.01));
  result("charts_not_blank", blank.length === 0, JSON.stringify(blank.slice(0, 3)));

  // sorting: the first sortable table with enough rows, a numeric column
  const sorted = await page.evaluate(() => {
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
        return { ok: isDesc && isAsc, col, table: t.closest("section").id };
      }
    }
    return { ok: false, why: "no sortable table with a varying numeric column" };
  });
  result("table_sorts_on_click", sorted.ok, JSON.stringify(sorted));

  // the fuzzy filter hides rows that do not match
  const filtered = await page.evaluate(() => {
    const inp = document.querySelector("input.filter");
    if (!inp) return { ok: false, why: "no filter box" };
    let t = inp.nextElementSibling;
    while (t && t.tagName !== "TABLE") t = t.nextElementSibling;
    inp.value = "zzzzqqqq";
    inp.dispatchEvent(new Event("input"));
    const hidden = Array.from(t.tBodies[0].rows).filter((r) => r.style.display === "none").length;
    inp.value = "";
    inp.dispatchEvent(new Event("input"));
    const shown = Array.from(t.tBodies[0].rows).filter((r) => r.style.display !== "none").length;
    return { ok: hidden === t.tBodies[0].rows.length && shown === t.tBodies[0].rows.length, hidden, shown };
  });
  result("filter_box_filters", filtered.ok, JSON.stringify(filtered));

  await page.screenshot({ path: shot, fullPage: true });
  result("no_console_errors", errors.length === 0, errors.slice(0, 3).join(" | "));
  result("no_network_requests", requests.length === 0, requests.slice(0, 3).join(" "));
  await browser.close();
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.log(`FAIL ${tag}browser_run: ${e}`); process.exit(1); });
