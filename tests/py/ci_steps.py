#!/usr/bin/env python3
"""Writes the shell steps of a CI recipe in examples/ci as files step-1.sh, step-2.sh, ... in
OUTDIR, in order, so that tests/ci_recipes.sh runs exactly what the recipe says.

  github: the `run:` of every step whose name starts with "perfcard:" (one file per step:
          GitHub runs each step in its own `bash -e` shell);
  gitlab: the `script:` items of the job `perf`, all in one file (GitLab runs them in one shell).

The recipes are plain YAML written for this reader: block scalars (`|`) and one-line values,
two-space indentation. No YAML library is needed (none is on a fresh machine).

usage: ci_steps.py github|gitlab FILE OUTDIR"""
import os
import sys

kind, path, outdir = sys.argv[1:4]
lines = open(path).read().split("\n")


def indent(s):
    return len(s) - len(s.lstrip(" "))


def block(i, base):
    """the lines of a block scalar starting after line i, more indented than base"""
    out = []
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or indent(lines[j]) > base):
        out.append(lines[j])
        j += 1
    cut = min((indent(x) for x in out if x.strip()), default=0)
    return [x[cut:] for x in out], j


steps = []
if kind == "github":
    name = None
    for i, ln in enumerate(lines):
        st = ln.strip()
        if st.startswith("- name:") or st.startswith("name:") and name is not None:
            name = st.split(":", 1)[1].strip().strip('"')
        elif st.startswith("- "):
            name = None
        if st.startswith("run:") and name and name.startswith("perfcard:"):
            val = st[4:].strip()
            steps.append("\n".join(block(i, indent(ln))[0]) if val == "|" else val)
else:
    in_job = False
    for i, ln in enumerate(lines):
        if indent(ln) == 0 and ln.strip():
            in_job = ln.startswith("perf:")
        if in_job and ln.strip() == "script:":
            base = indent(ln)
            j = i + 1
            items = []
            while j < len(lines) and (not lines[j].strip() or indent(lines[j]) > base):
                st = lines[j].strip()
                if st.startswith("- |"):
                    body, j = block(j, indent(lines[j]))
                    items.append("\n".join(body))
                    continue
                if st.startswith("- "):
                    items.append(st[2:])
                j += 1
            steps.append("\n".join(items))
if not steps:
    sys.exit("ci_steps.py: no steps found in %s" % path)
for k, s in enumerate(steps, 1):
    with open(os.path.join(outdir, "step-%d.sh" % k), "w") as f:
        f.write(s + "\n")
print(len(steps))
