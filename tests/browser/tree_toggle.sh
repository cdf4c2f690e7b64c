#!/bin/sh
# Clicks the call-stack tree's buttons in Debian's Chromium (headless, no
# playwright: the page's own script does the clicks, --dump-dom reads the
# result back from the title) on the report of tests/hostile/deep_call_stack.json.
# Prints the visible rows and indentations after each step, one line:
#   TREE <rows shown at first> <--d of g30> <after opening Outer_0's chain> <--d of g30>
#        <after opening g30's chain> <after closing Outer_0> <its aria-expanded> <after reopening>
# Usage: tree_toggle.sh REPORT.html SCRATCH_DIR
html=$1 dir=$2
sed 's#</body>#<script>(function () {\
  var t = document.querySelector("table.tree"), rows = t.tBodies[0].rows, out = [];\
  function shown() { return Array.prototype.filter.call(rows, function (r) { return r.style.display !== "none"; }).length; }\
  var g = Array.prototype.filter.call(rows, function (r) { return r.getAttribute("data-d") === "30"; })[0];\
  function d() { return g.cells[0].style.getPropertyValue("--d"); }\
  out.push(shown(), d());\
  rows[0].querySelector("button.chain").click(); out.push(shown(), d());\
  g.querySelector("button.chain").click(); out.push(shown());\
  rows[0].querySelector("button.tog").click(); out.push(shown(), rows[0].querySelector("button.tog").getAttribute("aria-expanded"));\
  rows[0].querySelector("button.tog").click(); out.push(shown());\
  document.title = "TREE " + out.join(" ");\
})();</script></body>#' "$html" > "$dir/tree_toggle.html"
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --dump-dom "file://$(readlink -f "$dir/tree_toggle.html")" 2> /dev/null | sed -n 's#.*<title>\(TREE [^<]*\)</title>.*#\1#p'
