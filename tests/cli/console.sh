#!/bin/sh
# CLI case: console lines that quote input text have their controls replaced.
# Alone: sh tests/cli/console.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# console lines that quote input text (labels, kernel and key names from a summary.json, file
# names): C0 and C1 controls and DEL replaced, so a name cannot forge a CI log line (GitHub
# Actions' ::error::) nor reach the terminal as an escape sequence
G=$(dirname "$PC")/gentrace
[ -x "$G" ] || G=./build/gentrace
"$G" --steps 12 --noise 1 --seed 1 > "$T/con_a.trace.json"
"$G" --steps 12 --noise 1 --seed 1 --slow "dgrad_engine=1.5" > "$T/con_b.trace.json"
"$PC" summarize "$T/con_a.trace.json" -o "$T/con_a.json" -q
"$PC" summarize "$T/con_b.trace.json" -o "$T/con_b.json" -q
python3 - "$T/con_a.json" "$T/con_b.json" <<'PY'
import json, sys
evil = "\n::error::forged\r\x1b[31mred\x7f\u0085c1\u009b2J"
def walk(v):
    if isinstance(v, dict): return {(evil + k if k == "dgrad" else k): walk(x) for k, x in v.items()}
    if isinstance(v, list): return [walk(x) for x in v]
    if isinstance(v, str) and "dgrad_engine" in v: return v.replace("dgrad_engine", evil + "dgrad_engine")
    return v
for i, p in enumerate(sys.argv[1:]):
    s = walk(json.load(open(p)))
    s["run"]["input"] = "run" + "ab"[i] + evil
    s["run"]["x" + evil] = 1  # an unknown key: named in the warning
    json.dump(s, open(p, "w"))
PY
A=$T/con_a.json B=$T/con_b.json
"$PC" diff "$A" "$B" -o "$T/con_d" > "$T/con_out" 2> "$T/con_err"
"$PC" diff "$A" "$B" --label "NEW=lab
::error::forged" -o "$T/con_d" >> "$T/con_out" 2>> "$T/con_err"
"$PC" trend "$A" "$A" "$A" "$A" "$B" "$B" "$B" "$B" -o "$T/con_t" --no-fail >> "$T/con_out" 2>> "$T/con_err"
"$PC" trend "$A" "$A" "$A" "$A" "$A" "$B" -o "$T/con_t" --no-fail >> "$T/con_out" 2>> "$T/con_err"
"$PC" diff "$A" "$T/no
::error::forged.json" -o "$T/con_x" >> "$T/con_out" 2>> "$T/con_err"
"$PC" report "$T/no
::error::forged.json" -o "$T/con_x" >> "$T/con_out" 2>> "$T/con_err"
cat "$T/con_out" "$T/con_err" > "$T/con_all"
# the names reached the console (as text), each of the five ways
check console_diff_label grep -q "^  runb?::error::forged" "$T/con_all"
check console_diff_label_option grep -q "^  lab?::error::forged" "$T/con_all"
check console_diff_kernel grep -q "kernel void cudnn::detail::?::error::forged" "$T/con_all"
check console_trend_label grep -q "change point at run 5 (runb?::error::forged" "$T/con_all"
check console_file_name grep -q "no?::error::forged.json: cannot open" "$T/con_all"
"$PC" "bogus
::error::forged" > /dev/null 2> "$T/err"
check console_unknown_command grep -qx "perfcard: unknown command 'bogus?::error::forged'" "$T/err"
check console_no_forged_line sh -c "! grep -q '^::error::forged' '$T/con_all'"
check console_no_controls sh -c "! LC_ALL=C grep -q \"\$(printf '\\033')\\|\$(printf '\\302\\205')\\|\$(printf '\\302\\233')\\|\$(printf '\\177')\\|\$(printf '\\r')\" '$T/con_all'"
