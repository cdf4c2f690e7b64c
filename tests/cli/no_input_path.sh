#!/bin/sh
# CLI case: no output holds the input's absolute path.
# Alone: sh tests/cli/no_input_path.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
# no output holds the input's absolute path (report.html's header, the e-mail's title, summary.json
# printed it whole): a trace in a folder of a telling name, every output, and one job of two ranks
mkdir -p "$T/secret-dir-XYZ/job"
cp examples/demo.pt.trace.json.gz "$T/secret-dir-XYZ/run.json.gz"
cp examples/demo.pt.trace.json.gz "$T/secret-dir-XYZ/job/rank0.json.gz"
cp examples/demo.pt.trace.json.gz "$T/secret-dir-XYZ/job/rank1.json.gz"
"$PC" report "$T/secret-dir-XYZ/run.json.gz" -o "$T/abs1" --format html,md,json --csv --email --email-to a@example.com -q
"$PC" report "$T/secret-dir-XYZ/job/" -o "$T/abs2" --format html,md,json --csv --email --email-to a@example.com -q
"$PC" summarize "$T/secret-dir-XYZ/run.json.gz" -o "$T/abs3.json" -q
# a summary.json written elsewhere that holds an absolute path: shown by its file name
python3 -c "
import json; s = json.load(open('$T/abs3.json')); s['run']['input'] = '/home/someone/secret-dir-XYZ/old.json'
json.dump(s, open('$T/abs4.json', 'w'))"
"$PC" report "$T/abs4.json" -o "$T/abs4" --format html,md,json --email --email-to a@example.com -q
# summary.eml's parts are base64: decoded beside it, so that the search below reads them
python3 -c "
import email, sys
from email import policy
for f in sys.argv[1:]:
    m = email.message_from_bytes(open(f, 'rb').read(), policy=policy.default)
    head = ''.join('%s: %s\n' % kv for kv in m.items())
    parts = [p.get_content() for p in m.walk() if p.get_content_maintype() == 'text']
    open(f + '.decoded', 'w').write(head + '\n'.join(parts))
" "$T/abs1/summary.eml" "$T/abs2/summary.eml" "$T/abs4/summary.eml"
check no_output_holds_input_path sh -c "ls '$T/abs1/charts/'*.png '$T/abs2/report.html' '$T/abs4/summary.eml.decoded' > /dev/null && ! grep -rl 'secret-dir-XYZ' '$T/abs1' '$T/abs2' '$T/abs3.json' '$T/abs4'"
check input_shown_by_file_name sh -c "grep -q 'run.json.gz' '$T/abs1/report.html' && grep -q '\"input\": \"run.json.gz\"' '$T/abs3.json' && grep -q 'old.json' '$T/abs4/report.html'"
