#!/usr/bin/env python3
"""docs/contributing.md against the code, so that its examples cannot drift from it.

Reads the document's code (fenced blocks, indented blocks and `code spans`) and checks:
  - arity: every call of a function-like macro that src/ defines (COL, COLG, RECORD, TABLE,
    DIFF, RULE, SECTION, PC_REC_AT, ...) has as many arguments as its #define;
  - ids: the table or record a COL / COLG / DIFF / END line names is declared (TABLE or RECORD
    in src/summary/*.def);
  - names: every identifier in the code that looks like the project's (holds an underscore or
    is all capitals) is a word of src/ or tests/unit/, or one of NEW, the names the document's
    worked examples introduce;
  - paths: every src/, tests/, tools/, templates/ or docs/ path named exists;
  - snippets: "`FILE`, `CODE`" (where a step says where the code goes) - CODE is in FILE;
  - lookups: no sj_get / sj_getnum / sj_getstr (tests/py/check_paths.py rejects them in src/);
  - compiles: each C example of a rule check (a fenced block starting "static void") compiles
    inside src/analyze/rules.c with the project's warnings, and each RULE(...) row of the
    document compiles through rules.c's own RULE macro into a pc_rule.
Prints PASS/FAIL/SKIP lines (contributing_*); exits 1 on a failure.
Usage: check_contributing.py [ROOT] (default: this checkout)"""
import os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..'))
DOC = os.path.join(ROOT, 'docs', 'contributing.md')
# names the worked examples introduce (a new column, field, rule, analyzer), not yet in the code
NEW = {'self_cpu_avg_ns', 'iqr_ns', 'low_occupancy', 'an_NAME', 'NAME'}
# words of the document that are no code names (units, kinds, placeholders)
PROSE = {'FW_ANY', 'FW_PYTORCH', 'A', 'B', 'S', 'I', 'J', 'F', 'V', 'FIRST', 'LAST', 'CUDA', 'HTML',
         'CSV', 'MIME', 'NCCL', 'NAN', 'NULL', 'TAB_ROWS'}

failed = 0


def report(name, problems, skip=None):
    global failed
    if skip:
        print('SKIP contributing_%s: %s' % (name, skip))
    elif problems:
        failed += 1
        print('FAIL contributing_%s: %s' % (name, '; '.join(problems[:8]) + (' (+%d more)' % (len(problems) - 8) if len(problems) > 8 else '')))
    else:
        print('PASS contributing_%s' % name)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def code_of(md):
    """(fenced and indented blocks, inline spans) of a Markdown text."""
    blocks, spans = [], []
    lines = md.split('\n')
    i = 0
    prose = []
    while i < len(lines):
        l = lines[i]
        m = re.match(r'^(\s*)```', l)
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith('```'):
                j += 1
            blocks.append('\n'.join(x[len(m.group(1)):] for x in lines[i + 1:j]))
            i = j + 1
            continue
        # an indented block: 7 or more spaces (under a list item) after a blank line
        if re.match(r'^ {7,}\S', l) and i > 0 and lines[i - 1].strip() == '':
            j = i
            while j < len(lines) and (re.match(r'^ {7,}\S', lines[j]) or (lines[j].strip() == '' and j + 1 < len(lines) and re.match(r'^ {7,}\S', lines[j + 1]))):
                j += 1
            blocks.append('\n'.join(x.strip() for x in lines[i:j]))
            i = j
            continue
        prose.append(l)
        i += 1
    text = '\n'.join(prose)
    spans = re.findall(r'`([^`\n]+)`', re.sub(r'`([^`]*)\n([^`]*)`', r'`\1 \2`', text))
    return blocks, spans, text


def macro_arity(src_texts):
    """name -> set of parameter counts of its #define NAME(...) in src/"""
    ar = {}
    for t in src_texts:
        for m in re.finditer(r'^\s*#\s*define\s+([A-Za-z_]\w*)\(([^)]*)\)', t, re.M):
            params = [p.strip() for p in m.group(2).split(',') if p.strip()]
            ar.setdefault(m.group(1), set()).add(len(params))
    return ar


def calls(code, names):
    """(name, [args]) for each call of a name of names in code, arguments split at top-level commas"""
    out = []
    for m in re.finditer(r'\b([A-Za-z_]\w*)\(', code):
        if m.group(1) not in names:
            continue
        k, depth, args, cur, q = m.end(), 1, [], '', None
        while k < len(code) and depth:
            c = code[k]
            if q:
                cur += c
                if c == '\\' and k + 1 < len(code):
                    cur += code[k + 1]; k += 1
                elif c == q:
                    q = None
            elif c in '"\'':
                q = c; cur += c
            elif c in '([{':
                depth += 1; cur += c
            elif c in ')]}':
                depth -= 1
                if depth:
                    cur += c
            elif c == ',' and depth == 1:
                args.append(cur.strip()); cur = ''
            else:
                cur += c
            k += 1
        if depth:
            continue  # cut off (a span such as `DIFF(...)` is checked where whole)
        if cur.strip() or args:
            args.append(cur.strip())
        if '...' in args:
            continue  # an elided call, "fire(in, r, at_stake_ns, "evidence", ...)"
        out.append((m.group(1), args))
    return out


def strip_strings(code):
    code = re.sub(r'/\*.*?\*/', ' ', code, flags=re.S)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', code)


def main():
    doc = read(DOC)
    blocks, spans, prose = code_of(doc)
    src_files = []
    for d, _, fs in os.walk(os.path.join(ROOT, 'src')):
        src_files += [os.path.join(d, f) for f in fs if f.endswith(('.c', '.h', '.def'))]
    unit = os.path.join(ROOT, 'tests', 'unit')
    test_files = [os.path.join(unit, f) for f in os.listdir(unit) if f.endswith(('.c', '.h'))]
    src_texts = [read(f) for f in src_files]
    words = set()
    for t in src_texts + [read(f) for f in test_files]:
        words.update(re.findall(r'[A-Za-z_]\w*', t))
    code = '\n'.join(blocks + spans)

    # arity of every macro the code defines
    ar = macro_arity(src_texts)
    problems = []
    for name, args in calls(code, set(ar)):
        if len(ar[name]) == 1 and len(args) not in ar[name]:
            problems.append('%s(...) with %d arguments, src/ defines %d' % (name, len(args), min(ar[name])))
    report('macro_arity', problems)

    # the tables and records named are declared
    defs = '\n'.join(read(f) for f in src_files if f.endswith('.def'))
    ids = set(re.findall(r'^(?:TABLE|RECORD)\((\w+)', defs, re.M))
    problems = []
    for name, args in calls(code, {'COL', 'COLG', 'DIFF', 'END'}):
        if args and args[0] not in ids:
            problems.append('%s(%s, ...): no TABLE or RECORD %s in src/summary/*.def' % (name, args[0], args[0]))
    report('table_ids', problems)

    # the names the code uses exist
    problems = []
    bare = re.sub(r'[\w.-]*/[\w./-]+', ' ', strip_strings(code))  # paths are checked below
    for w in sorted(set(re.findall(r'\b[A-Za-z_]\w*\b', bare))):
        looks = '_' in w.strip('_') or (w.isupper() and len(w) > 1)
        if looks and w not in words and w not in NEW and w not in PROSE:
            problems.append(w)
    report('names_exist', ['no %s in src/ or tests/unit/' % w for w in problems])

    # the paths named exist
    problems = []
    for p in sorted(set(re.findall(r'(?<![\w/.])((?:src|tests|tools|templates|docs)/[\w./-]+)', '\n'.join(spans) + prose))):
        p = p.rstrip('.')
        if not os.path.exists(os.path.join(ROOT, p)):
            problems.append('no ' + p)
    report('paths_exist', problems)

    # "`FILE`, `CODE`": the code is in that file
    problems = []
    flat = re.sub(r'\s+', ' ', prose)
    for f, snip in re.findall(r'`((?:src|tests)/[\w./-]+\.(?:c|h|def))`(?:, the loop that calls|,) `([^`]+)`', flat):
        path = os.path.join(ROOT, f)
        if os.path.exists(path) and snip not in re.sub(r'\s+', ' ', read(path)):
            problems.append('%s holds no "%s"' % (f, snip))
    report('snippets_in_files', problems)

    report('no_path_lookups', ['%s( in an example' % m for m in re.findall(r'\b(sj_get\w*)\s*\(', code)])

    # the rule examples compile in rules.c
    cc = shutil.which(os.environ.get('CC', 'cc')) or shutil.which('cc')
    pkg = shutil.which('pkg-config')
    if not cc or not pkg:
        report('rule_example_compiles', [], skip='no C compiler or pkg-config')
    else:
        rules_c = read(os.path.join(ROOT, 'src', 'analyze', 'rules.c'))
        m = re.search(r'^#define RULE\(.*$', rules_c, re.M)
        fns = [b for b in blocks if b.lstrip().startswith('static void')]
        rows = [b for b in blocks if b.lstrip().startswith('RULE(')]
        if not m or not fns or not rows:
            report('rule_example_compiles', ['no rule check, RULE row or rules.c RULE macro found'])
        else:
            tu = ('#include "%s"\n' % os.path.join(ROOT, 'src', 'analyze', 'rules.c') + '\n'.join(fns) +
                  '\n#undef RULE\n' + m.group(0) + '\nconst pc_rule contributing_rows[] = {\n' + '\n'.join(rows) + '\n};\n')
            flags = subprocess.run([pkg, '--cflags', 'libcjson', 'cairo'], capture_output=True, text=True).stdout.split()
            with tempfile.TemporaryDirectory() as d:
                f = os.path.join(d, 'contributing_rule.c')
                with open(f, 'w') as fh:
                    fh.write(tu)
                r = subprocess.run([cc, '-std=c11', '-D_GNU_SOURCE', '-DPC_HAVE_SQLITE=1', '-DPC_HAVE_ISAL=0',
                                    '-DPC_VERSION="0"', '-I' + os.path.join(ROOT, 'src'), '-Wall', '-Wextra', '-Werror',
                                    '-Wno-unused-parameter', '-Wno-unused-function', '-fsyntax-only', f] + flags,
                                   capture_output=True, text=True)
            errs = [l for l in r.stderr.splitlines() if 'error' in l]
            report('rule_example_compiles', [] if r.returncode == 0 else errs or [r.stderr[:300]])
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
