#!/bin/sh
# long_functions.sh [LIMIT] [DIR...]: the C functions longer than LIMIT lines (default 100; a
# function's lines from its signature to its closing brace, as Universal Ctags finds them) under
# each DIR (default src), longest first, then their count. For #46's "long analyzers become phase
# functions": docs/contributing.md wants short functions with their contract on top. Needs
# Universal Ctags (ctags --version says "Universal Ctags"); exits 2 without it.
set -eu
cd "$(dirname "$0")/.."
limit=100
case "${1:-}" in '' | *[!0-9]*) ;; *) limit=$1; shift ;; esac
[ $# -gt 0 ] || set -- src
ctags --version 2> /dev/null | grep -q "Universal Ctags" || { echo "long_functions: Universal Ctags is not installed" >&2; exit 2; }
ctags -x --kinds-c=f --fields=+ne --_xformat='%N %F %n %{end}' -R "$@" |
    awk -v lim="$limit" '$4 - $3 + 1 > lim { print $4 - $3 + 1, $2 ":" $3, $1 }' | sort -rn |
    awk '{ print } END { print NR " functions over '"$limit"' lines" }'
