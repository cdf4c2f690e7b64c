#!/usr/bin/env python3
"""Checks perfcard's ranked suggestions against the expert verdicts of tests/expectations/findings.tsv
(issue #32, "How to know it is right"). For every row: summarize the input once (a folder is a job:
`perfcard report --format json`), then
  - verdict: #1 rule equal (or one of `a|b`), its at_stake_ns within the tolerance, the top-3 rule
    sets equal (order-insensitive; `a|b` entries match either);
  - shares: the rows' at_stake_pct sum to <= 100% unless a row declares `overlaps`;
  - steps: no step rule (step_variance, iteration_interval) fires on a trace without steps.
perfcard's #1 and top 3 count only rows holding >= 1% of the step; rows with no estimate (null
stake) count only when no row holds 1% (run_2's pipeline bottleneck, without steps).
A row flagged (`;`-separated) `xfail:<why>` (verdict), `xfail-shares:<why>` or `xfail-steps:<why>` reports XFAIL
while perfcard disagrees and XPASS (loudly, to promote it) once it agrees; anything else that
disagrees is a FAIL. Prints PASS/FAIL/XFAIL/XPASS/SKIP lines; exit 1 on a FAIL.
Usage: check_findings.py PERFCARD [DATA_DIR [TSV]]  (DATA_DIR default ../shared/data)
tests/expectations/findings_gpu_bound.tsv (#44, #45) and findings_heldout.tsv (read before perfcard ran on them) name their inputs by the project's own
tests/data/real/ or a fetched mirror's git object (resolve()); its rows run whatever DATA_DIR is."""
import json, os, subprocess, sys, tempfile

STEP_RULES = {'step_variance', 'iteration_interval'}

def parse(path):
    rows = []
    for line in open(path, encoding='utf-8'):
        if not line.strip() or line.startswith('#'): continue
        f = line.rstrip('\n').split('\t')
        if len(f) != 7: sys.exit('check_findings: %s: bad row (want 7 tab-separated fields): %r' % (path, line[:80]))
        inp, first, stake, tol, top3, flags, note = f
        rows.append(dict(input=inp, first=first.split('|'),
                         stake=None if stake == '-' else [int(x) for x in stake.split('|')],
                         tol=None if tol == '-' else int(tol),
                         top3=[] if top3 == '-' else [set(x.split('|')) for x in top3.split(',')],
                         flags={k: v for k, _, v in (x.partition(':') for x in flags.split(';')) if k != '-'},
                         note=note))
    return rows

def summarize(pc, path, tmp):
    if os.path.isdir(path):
        out = os.path.join(tmp, 'job')
        cmd = [pc, 'report', path, '--format', 'json', '-o', out, '-q', '-j', '1']
        res = os.path.join(out, 'summary.json')
    else:
        res = os.path.join(tmp, 'summary.json')
        cmd = [pc, 'summarize', path, '-o', res, '-q', '-j', '1']
    p = subprocess.run(cmd, capture_output=True, text=True)
    if not os.path.exists(res):
        return None, 'exit %d: %s' % (p.returncode, p.stderr.strip()[:300])
    return json.load(open(res, encoding='utf-8')), None

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))

def resolve(inp, data, tmp):
    """A row's input as a path: `tests/data/...` relative to the project root (findings_gpu_bound.tsv),
    `MIRROR:COMMIT:PATH` a git object of a fetched bare mirror (written into tmp; None when the
    mirror is absent), else relative to DATA_DIR (../shared/data)."""
    if inp.startswith('tests/'):
        return os.path.join(ROOT, inp)
    if inp.startswith('/') and inp.count(':') == 2:
        mirror, commit, path = inp.split(':')
        if not os.path.isdir(mirror): return None
        out = os.path.join(tmp, os.path.basename(path))
        with open(out, 'wb') as f:
            if subprocess.run(['git', '--git-dir=' + mirror, 'show', '%s:%s' % (commit, path)], stdout=f).returncode: return None
        return out
    return os.path.join(data, inp)

def eligible(rows):
    rows = sorted(rows, key=lambda r: r.get('rank') or 1 << 30)
    staked = [r for r in rows if r.get('at_stake_ns') is not None and (r.get('at_stake_pct') or 0) >= 1.0]
    # a finding with no estimate (null stake) competes only when no row has a stake of 1% or more
    return staked or [r for r in rows if r.get('at_stake_ns') is None]

def top3_match(expected, got):
    got = list(got)
    if len(expected) != len(got): return False
    for alts in sorted(expected, key=len):
        m = [g for g in got if g in alts]
        if not m: return False
        got.remove(m[0])
    return True

def report(name, ok, flag, detail, counts):
    if flag is not None:
        word = 'XPASS' if ok else 'XFAIL'
        extra = ' (expected to fail: %s) *** now agrees: remove the xfail from findings.tsv ***' % flag if ok else ' (%s)' % flag
    else:
        word = 'PASS' if ok else 'FAIL'
        extra = ''
    counts[word] = counts.get(word, 0) + 1
    print('%s %s%s%s' % (word, name, '' if ok and flag is None else ': ' + detail, extra))

def main():
    pc = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else '../shared/data'
    tsv = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'expectations', 'findings.tsv')
    rows = parse(tsv)
    counts = {}
    for r in rows:
        tag = 'findings ' + r['input']
        with tempfile.TemporaryDirectory() as tmp:
            path = resolve(r['input'], data, tmp)
            if not path or not os.path.exists(path):
                print('SKIP %s: %s is missing' % (tag, path or r['input'].split(':')[0])); continue
            s, err = summarize(pc, path, tmp)
        if s is None:
            report(tag, False, r['flags'].get('xfail'), 'no summary.json (%s)' % err, counts); continue
        sug = (s.get('suggestions') or {}).get('rows') or []
        el = eligible(sug)
        got1 = el[0]['rule'] if el else 'none'
        got_stake = el[0].get('at_stake_ns') if el else None
        got3 = [x['rule'] for x in el[:3]]
        why = []
        if got1 not in r['first']:
            why.append('#1 is %s, expected %s' % (got1, '|'.join(r['first'])))
        elif r['stake'] is not None:
            want = r['stake'][r['first'].index(got1)] if len(r['stake']) > 1 else r['stake'][0]
            if got_stake is None or abs(got_stake - want) > r['tol']:
                why.append('#1 %s at stake %s ns, expected %d +- %d' % (got1, got_stake, want, r['tol']))
        if not top3_match(r['top3'], got3):
            why.append('top 3 %s, expected %s' % (','.join(got3) or '-', ','.join('|'.join(sorted(a)) for a in r['top3']) or '-'))
        show = '; '.join(why) + ' [perfcard: %s]' % ', '.join('%s %.1f%%' % (x['rule'], x.get('at_stake_pct') or 0) for x in sug[:5])
        report(tag, not why, r['flags'].get('xfail'), show, counts)
        # shares of the step, all rows together, stay <= 100% unless a row declares its overlap
        total = sum(x.get('at_stake_pct') or 0 for x in sug if not x.get('overlaps'))
        report(tag + ' shares', total <= 100.05, r['flags'].get('xfail-shares'),
               'shares sum to %.1f%% with no row declaring overlaps' % total, counts)
        nsteps = (s.get('steps') or {}).get('count') or 0
        bad = sorted({x['rule'] for x in sug} & STEP_RULES) if nsteps == 0 else []
        report(tag + ' step rules', not bad, r['flags'].get('xfail-steps'),
               'no steps, yet %s fired' % ', '.join(bad), counts)
    print('findings: ' + ', '.join('%d %s' % (v, k) for k, v in sorted(counts.items())))
    return 1 if counts.get('FAIL') else 0

if __name__ == '__main__':
    sys.exit(main())
