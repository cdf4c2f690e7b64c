#!/bin/sh
# CLI case: an Nsight Systems report container is not read; an input error names its byte once.
# Alone: sh tests/cli/nsys_rep.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# an Nsight Systems report (.nsys-rep, .qdrep: a binary container) is not read: stderr says how to export it
for ext in nsys-rep qdrep NSYS-REP; do
    printf '\001\002binary\000container' > "$T/prof.$ext"
    "$PC" report "$T/prof.$ext" -o "$T/fcn" > /dev/null 2> "$T/err"
    rc=$?
    check "nsys_rep_${ext}_exit_2" [ $rc -eq 2 ]
    check "nsys_rep_${ext}_says_export" grep -qF "nsys export --type sqlite -o $T/prof.sqlite $T/prof.$ext" "$T/err"
    check "nsys_rep_${ext}_not_json_wording" sh -c "! grep -q 'JSON' '$T/err'"
done
# an input error names its byte once: "at byte N", never also "(byte offset N)"
printf 'hello' > "$T/hello.json"
"$PC" report "$T/hello.json" -o "$T/fcn" > /dev/null 2> "$T/err"
check error_offset_said_once grep -qx "perfcard: $T/hello.json: not a JSON trace (expected '{' or '\[') at byte 0" "$T/err"
