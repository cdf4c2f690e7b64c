#!/bin/sh
# same_outputs.sh [COMMIT] [FILE...]: the previous build's outputs against this build's (build/perfcard,
# made first), byte for byte: tools/prev_build.sh builds COMMIT (default: $BENCH_BASE, else the
# merge-base with main, else HEAD's parent) into build/prev/SHA/, then tools/compare_builds.sh runs
# both on every real trace under ../shared/data, the golden inputs and each FILE (summary.json,
# summary.md, CSVs, exit status and stderr). Exits 1 when an input's outputs differ, 3 when the
# previous build cannot be made. make bench runs the same comparison (BENCH_SAME=0 skips it).
set -eu
cd "$(dirname "$0")/.."
[ -x build/perfcard ] || { echo "same_outputs: build/perfcard is missing: run make first" >&2; exit 2; }
commit=""
case "${1:-}" in ""|*/*|*.json|*.gz|*.sqlite) ;; *) [ -e "$1" ] || { commit=$1; shift; } ;; esac
prev=$(sh tools/prev_build.sh $commit) || exit 3
echo "old: $(git log -1 --format='%h %cs' "$(basename "$prev")"), new: build/perfcard ($(git describe --always --dirty))"
exec sh tools/compare_builds.sh "$prev/perfcard" build/perfcard "$@"
