#!/bin/sh
# CLI case: a trace's recorded environment (Kineto's metadata.env: access tokens, keys) reaches no
# output. Real HF traces published upstream carry an HF_TOKEN there (tests/data/real/hf-*: redacted
# in the committed copies); here the demo trace gets a fake one, and every output is searched.
# Alone: sh tests/cli/no_secrets.sh ./build/perfcard (tests/cli/run.sh runs them all)
. "$(dirname "$0")/lib.sh"
python3 -c "
import gzip, json
d = json.load(gzip.open('examples/demo.pt.trace.json.gz'))
d['metadata'] = {'env': {'HF_TOKEN': 'hf_FAKEtokenSEKRIT0123456789abcdef', 'AWS_SECRET_ACCESS_KEY': 'awsFAKEsecretSEKRIT'},
                 'hostname': 'host-SEKRIT-name'}
d['traceName'] = '/home/u/SEKRIT/trace.json'
json.dump(d, open('$T/env.json', 'w'))"
"$PC" report "$T/env.json" -o "$T/out" --format html,md,json --csv --email --email-to a@example.com -q
check report_written [ -s "$T/out/report.html" ]
python3 -c "
import email, sys
from email import policy
m = email.message_from_bytes(open(sys.argv[1], 'rb').read(), policy=policy.default)
open(sys.argv[1] + '.decoded', 'w').write('\n'.join(p.get_content() for p in m.walk() if p.get_content_maintype() == 'text'))
" "$T/out/summary.eml"
check no_output_holds_the_environment sh -c "! grep -rl 'SEKRIT' '$T/out'"
