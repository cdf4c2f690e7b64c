#!/bin/sh
# Installs the Debian packages perfcard needs, when missing.
#   setup.sh build   what `make` needs
#   setup.sh test    what `make test` adds (sanitizer runtime, Markdown checker)
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -e
# the browser test's driver (playwright-core, no browser download: it uses Debian's Chromium)
browser_deps() {
    dir=$(dirname "$0")/../tests/browser
    [ -d "$dir/node_modules/playwright-core" ] && return 0
    (cd "$dir" && npm ci --no-audit --no-fund > /tmp/perfcard-npm.log 2>&1) || { cat /tmp/perfcard-npm.log >&2; exit 1; }
}
case "$1" in
  build) pkgs="gcc make pkg-config libcjson-dev libcairo2-dev zlib1g-dev libsqlite3-dev fonts-dejavu-core" ;;
  test)  pkgs="python3 clang libclang-rt-14-dev chromium cmark-gfm sqlite3"
         command -v node > /dev/null 2>&1 || pkgs="$pkgs nodejs"
         command -v npm > /dev/null 2>&1 || pkgs="$pkgs npm" ;;
  *) echo "usage: setup.sh build|test" >&2; exit 2 ;;
esac
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    [ "$1" = test ] && browser_deps
    exit 0
fi
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "perfcard: not a Debian system; install the equivalents of:$missing" >&2
    exit 1
fi
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
    echo "perfcard: installing:$missing" >&2
    sh -c "$cmd" >/tmp/perfcard-apt.log 2>&1 || { cat /tmp/perfcard-apt.log >&2; exit 1; }
    [ "$1" = test ] && browser_deps
else
    echo "perfcard: missing Debian packages:$missing" >&2
    echo "perfcard: run as root:  $cmd" >&2
    exit 1
fi
