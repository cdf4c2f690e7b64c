#!/bin/sh
# CLI case: malformed, empty, missing and random inputs: exit 2, named, nothing written.
# Alone: sh tests/cli/malformed.sh ./build/perfcard (tests/cli/run.sh runs them all)
# tier: smoke
. "$(dirname "$0")/lib.sh"
# malformed: exit 2, file and offset named, nothing written
fx_bad
"$PC" report "$T/bad.json" -o "$T/badout" > /dev/null 2> "$T/err"
rc=$?
check malformed_exit_2 [ $rc -eq 2 ]
check malformed_names_file_and_offset grep -q "bad.json: .*byte 37" "$T/err"
check malformed_writes_nothing [ ! -e "$T/badout" ]
: > "$T/empty.json"
"$PC" report "$T/empty.json" -o "$T/emptyout" > /dev/null 2> "$T/err"
check empty_exit_2 [ $? -eq 2 ]
"$PC" report "$T/nonexistent.json" -o "$T/x" > /dev/null 2> "$T/err"
check missing_exit_2 [ $? -eq 2 ]
check missing_names_file grep -q "nonexistent.json" "$T/err"
head -c 3000 /dev/urandom > "$T/random.bin"
"$PC" report "$T/random.bin" -o "$T/x" > /dev/null 2> "$T/err"
check random_bytes_exit_2 [ $? -eq 2 ]
