#!/bin/sh
# prev_build.sh [COMMIT]: builds perfcard and gentrace of a previous commit (the "old" build that
# make bench and tools/same_outputs.sh compare this build with) and prints the folder holding them.
# The commit: COMMIT, else $BENCH_BASE, else the merge-base of HEAD with main when HEAD has commits
# of its own, else HEAD's parent (on main: the previous commit). It is checked out in a temporary
# git worktree under build/ (detached, removed after) and built there with nice make -j1; the two
# binaries are kept in build/prev/SHA/ so a second run reuses them. Exits 3, saying why on stderr,
# when there is no git, no such commit or its build fails (callers then measure this build alone).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
command -v git > /dev/null 2>&1 || { echo "prev_build: git is not installed" >&2; exit 3; }
git rev-parse --git-dir > /dev/null 2>&1 || { echo "prev_build: $top is not a git checkout" >&2; exit 3; }
want=${1:-${BENCH_BASE:-}}
if [ -z "$want" ]; then
    head=$(git rev-parse HEAD)
    mb=$(git merge-base HEAD main 2> /dev/null || true)
    if [ -n "$mb" ] && [ "$mb" != "$head" ]; then want=$mb; else want=HEAD^; fi
fi
sha=$(git rev-parse --verify -q "$want^{commit}" || true)
[ -n "$sha" ] || { echo "prev_build: no commit '$want' in this repository" >&2; exit 3; }
out=$top/build/prev/$sha
if [ -x "$out/perfcard" ] && [ -x "$out/gentrace" ]; then echo "$out"; exit 0; fi
wt=$top/build/prev-wt-$$
trap 'git -C "$top" worktree remove --force "$wt" > /dev/null 2>&1 || rm -rf "$wt"; git -C "$top" worktree prune' EXIT
echo "prev_build: building $(git log -1 --format='%h %cs' "$sha") in a temporary worktree (nice make -j1)" >&2
git worktree add --detach -q "$wt" "$sha"
# the old build's own messages go to stderr; only the folder is printed on stdout
if ! (cd "$wt" && nice make -j1 build/perfcard build/gentrace > "$wt/make.log" 2>&1); then
    tail -5 "$wt/make.log" >&2
    echo "prev_build: the build of $sha failed" >&2
    exit 3
fi
mkdir -p "$out"
cp "$wt/build/perfcard" "$wt/build/gentrace" "$out/"
echo "$out"
