// The browser checks' shared preamble (check_report.js, check_job.js): Debian's
// Chromium (or $CHROMIUM) launched headless through playwright-core with no
// network-facing background services, and the PASS/FAIL line printer with its
// failure count. launch() returns the browser; checker(prefix) returns
// { result(name, ok, why), failed() }, printing "PASS <prefix><name>" or
// "FAIL <prefix><name>: <why>".
const { chromium } = require("playwright-core");

const launch = () => chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});

const checker = (prefix) => {
  let failed = 0;
  return {
    result: (name, ok, why) => {
      console.log(`${ok ? "PASS" : "FAIL"} ${prefix}${name}${ok ? "" : ": " + why}`);
      if (!ok) failed++;
    },
    failed: () => failed,
  };
};

module.exports = { launch, checker };
