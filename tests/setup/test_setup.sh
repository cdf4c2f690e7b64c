#!/bin/sh
# The fresh-machine path: tools/setup.sh run against fake dpkg-query, apt-get,
# id and npm on PATH (nothing real is installed). Each case asserts the exit
# status and the exact apt-get / npm command lines.
# Prints PASS/FAIL lines. Usage: test_setup.sh (from anywhere)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=setup_
. "$root/tests/lib.sh"

BUILD_PKGS="gcc make pkg-config libcjson-dev libcairo2-dev zlib1g-dev libsqlite3-dev libisal-dev fonts-dejavu-core"
TEST_PKGS="python3 clang libclang-rt-14-dev chromium cmark-gfm sqlite3 man-db groff-base time bc"

# fake tools: state lives in $STATE (installed packages, calls made)
FAKE=$T/bin
mkdir -p "$FAKE"
for tool in sh grep cat rm mktemp mkdir dirname basename id; do
    p=$(command -v "$tool")
    ln -s "$p" "$FAKE/$tool"
done
rm "$FAKE/id"
cat > "$FAKE/id" <<'EOF'
#!/bin/sh
[ "$1" = -u ] && echo "${FAKE_UID:-0}"
EOF
cat > "$FAKE/dpkg-query" <<'EOF'
#!/bin/sh
# dpkg-query -W -f='${Status}' PKG
for p; do :; done
if grep -qx "$p" "$STATE/installed" 2> /dev/null; then printf 'install ok installed'; exit 0; fi
echo "dpkg-query: no packages found matching $p" >&2
exit 1
EOF
cat > "$FAKE/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get $*" >> "$STATE/calls"
[ -e "$STATE/apt-fails" ] && { echo "E: Unable to locate package" >&2; exit 100; }
if [ "$1" = install ]; then
    for p; do case "$p" in -*|install) ;; *) echo "$p" >> "$STATE/installed" ;; esac; done
fi
exit 0
EOF
cat > "$FAKE/npm" <<'EOF'
#!/bin/sh
echo "npm $* (in $(basename "$(dirname "$PWD")")/$(basename "$PWD"))" >> "$STATE/calls"
[ -e "$STATE/npm-fails" ] && { echo "npm ERR! network" >&2; exit 1; }
mkdir -p node_modules/playwright-core node_modules/axe-core
EOF
cat > "$FAKE/node" <<'EOF'
#!/bin/sh
exit 0
EOF
chmod +x "$FAKE"/*

# a copy of the tree's set-up part, so that npm's node_modules lands in $T
new_tree() {
    rm -rf "$T/tree" "$T/state"
    mkdir -p "$T/tree/tools" "$T/tree/tests/browser" "$T/state"
    cp "$root/tools/setup.sh" "$T/tree/tools/"
    : > "$T/state/installed"
    : > "$T/state/calls"
}
# run_setup MODE: runs with only the fakes on PATH; sets rc, leaves stderr in $T/err
run_setup() {
    set +e
    env -i PATH="$FAKE" STATE="$T/state" FAKE_UID="${FAKE_UID:-0}" TMPDIR="$T" \
        sh "$T/tree/tools/setup.sh" "$@" > "$T/out" 2> "$T/err"
    rc=$?
    set -e
}
expect() { # NAME WANT_RC WANT_CALLS_FILE
    if [ "$rc" -ne "$2" ]; then bad "$1" "exit $rc, want $2: $(cat "$T/err")"; return; fi
    if ! cmp -s "$3" "$T/state/calls"; then bad "$1" "calls differ: $(cat "$T/state/calls" | tr '\n' ';')"; return; fi
    ok "$1"
}
install_all() { for p; do echo "$p" >> "$T/state/installed"; done; }
leftover_logs() { ls "$T" | grep -c '^perfcard-' || true; }

# 1. a machine missing every package, as root: the first `make demo` path
new_tree
run_setup build
printf 'apt-get update\napt-get install -y --no-install-recommends %s\n' "$BUILD_PKGS" > "$T/want"
expect build_missing_all_installs_and_exits_0 0 "$T/want"
# and the second run finds everything and calls nothing
: > "$T/state/calls"; : > "$T/want"
run_setup build
expect build_second_run_calls_nothing 0 "$T/want"

# 2. a machine missing some packages: only those are installed
new_tree
install_all gcc make pkg-config zlib1g-dev fonts-dejavu-core libsqlite3-dev libisal-dev
run_setup build
printf 'apt-get update\napt-get install -y --no-install-recommends libcjson-dev libcairo2-dev\n' > "$T/want"
expect build_missing_some_installs_those 0 "$T/want"

# 3. a machine with everything: nothing run, exit 0
new_tree
install_all $BUILD_PKGS
: > "$T/want"
run_setup build
expect build_all_present_exit_0 0 "$T/want"

# 4. `test` with everything but the browser driver: npm ci in tests/browser, exit 0
new_tree
install_all $TEST_PKGS
run_setup test
echo "npm ci --no-audit --no-fund (in tests/browser)" > "$T/want"
expect test_all_present_runs_npm_ci 0 "$T/want"
# second run: the driver is there, nothing called
: > "$T/state/calls"; : > "$T/want"
run_setup test
expect test_second_run_calls_nothing 0 "$T/want"

# 5. `test` on a bare machine: apt, then npm; exit 0 (the old script exited 1 here on `build`)
new_tree
run_setup test
printf 'apt-get update\napt-get install -y --no-install-recommends %s\nnpm ci --no-audit --no-fund (in tests/browser)\n' "$TEST_PKGS" > "$T/want"
expect test_missing_all_installs_and_exits_0 0 "$T/want"

# 6. not root: the exact command is printed, nothing run, exit 1
new_tree
FAKE_UID=1000 run_setup build
: > "$T/want"
expect not_root_exit_1_runs_nothing 1 "$T/want"
if grep -q "run as root:  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $BUILD_PKGS" "$T/err"
then ok not_root_prints_exact_command; else bad not_root_prints_exact_command "$(cat "$T/err")"; fi

# 7. apt-get fails: its output is shown, exit 1, no log left behind
new_tree
touch "$T/state/apt-fails"
run_setup build
echo "apt-get update" > "$T/want"
expect apt_failure_exit_1 1 "$T/want"
if grep -q "Unable to locate package" "$T/err" && [ "$(leftover_logs)" = 0 ]; then ok apt_failure_shows_log
else bad apt_failure_shows_log "stderr: $(cat "$T/err")"; fi

# 8. npm fails: exit 1 with npm's message
new_tree
install_all $TEST_PKGS
touch "$T/state/npm-fails"
run_setup test
echo "npm ci --no-audit --no-fund (in tests/browser)" > "$T/want"
expect npm_failure_exit_1 1 "$T/want"

# 9. usage
new_tree
run_setup bogus
: > "$T/want"
expect usage_exit_2 2 "$T/want"
run_setup
expect no_argument_exit_2 2 "$T/want"

# 10. every set-up script runs under set -eu
for s in "$root"/tools/*.sh "$root"/tests/setup/*.sh; do
    n=$(basename "$s" .sh)
    if grep -q '^set -eu' "$s"; then ok "set_eu_$n"; else bad "set_eu_$n" "$s does not start with set -eu"; fi
done
