#!/bin/sh
# Installs the Debian packages perfcard needs, when missing.
#   setup.sh build   what `make` needs
#   setup.sh test    what `make test` adds (sanitizer runtime, Markdown checker, browser driver)
# As root it runs apt-get; otherwise it prints the exact command and fails.
# Contract: exit 0 when everything it was asked for is present afterwards, 1 otherwise, 2 on usage.
# Tested by tests/setup/test_setup.sh with fake dpkg-query/apt-get/id/npm on PATH.
set -eu
mode=${1:-}
here=$(cd "$(dirname "$0")" && pwd)
logdir=${TMPDIR:-/tmp}

# the browser test's driver (playwright-core, no browser download: it uses Debian's Chromium)
browser_deps() {
    dir=$here/../tests/browser
    if [ -d "$dir/node_modules/playwright-core" ] && [ -d "$dir/node_modules/axe-core" ]; then
        return 0
    fi
    log=$(mktemp "$logdir/perfcard-npm.XXXXXX")
    if (cd "$dir" && npm ci --no-audit --no-fund) > "$log" 2>&1; then
        rm -f "$log"
        return 0
    fi
    cat "$log" >&2
    rm -f "$log"
    return 1
}

case "$mode" in
  build) pkgs="gcc make pkg-config libcjson-dev libcairo2-dev zlib1g-dev libsqlite3-dev libisal-dev fonts-dejavu-core" ;;
  test)  pkgs="python3 clang libclang-rt-14-dev chromium cmark-gfm sqlite3 man-db groff-base time bc"
         command -v node > /dev/null 2>&1 || pkgs="$pkgs nodejs"
         command -v npm > /dev/null 2>&1 || pkgs="$pkgs npm" ;;
  *) echo "usage: setup.sh build|test" >&2; exit 2 ;;
esac

if ! command -v dpkg-query > /dev/null 2>&1; then
    echo "perfcard: not a Debian system; install the equivalents of: $pkgs" >&2
    exit 1
fi
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
    if [ "$(id -u)" != 0 ]; then
        echo "perfcard: missing Debian packages:$missing" >&2
        echo "perfcard: run as root:  $cmd" >&2
        exit 1
    fi
    echo "perfcard: installing:$missing" >&2
    log=$(mktemp "$logdir/perfcard-apt.XXXXXX")
    if ! sh -c "$cmd" > "$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
fi

if [ "$mode" = test ]; then
    browser_deps
fi
exit 0
