#!/bin/sh
# Builds a Debian package of perfcard from a finished build (make deb runs it):
#   tools/deb.sh BUILD_DIR VERSION
# Installs into a staging root with `make install DESTDIR=... PREFIX=/usr` (exactly the files of
# make install), writes DEBIAN/control with the runtime packages the binary links (found with
# ldd and dpkg -S, so the package names are the machine's own: libcjson1, libcairo2, ...), and
# packs BUILD_DIR/perfcard_VERSION_ARCH.deb with dpkg-deb. Install it with
# `apt install ./BUILD_DIR/perfcard_*.deb`, which fetches those packages.
# Contract: prints the .deb's path and exits 0, or says what failed and exits 1.
set -eu
build=${1:?usage: deb.sh BUILD_DIR VERSION}
version=${2:?usage: deb.sh BUILD_DIR VERSION}
for c in dpkg-deb dpkg ldd objdump; do
    command -v "$c" > /dev/null 2>&1 || { echo "deb.sh: $c is missing (a Debian system is needed)" >&2; exit 1; }
done
arch=$(dpkg --print-architecture)
stage="$build/deb/perfcard_${version}_$arch"
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
make --no-print-directory BUILD="$build" DESTDIR="$(cd "$stage" && pwd)" PREFIX=/usr install > /dev/null

# the runtime packages: the shared libraries the binary names (ELF NEEDED), by the package that
# owns each (their own dependencies come with them)
deps=""
needed=$(objdump -p "$build/perfcard" | awk '/NEEDED/ { print $2 }')
for lib in $(ldd "$build/perfcard" | awk -v n=" $(echo $needed) " 'index(n, " " $1 " ") && /=> \// { print $3 }'); do
    real=$(readlink -f "$lib")
    pkg=$(dpkg -S "$lib" 2> /dev/null | head -1 | cut -d: -f1) || true
    [ -n "$pkg" ] || pkg=$(dpkg -S "$real" 2> /dev/null | head -1 | cut -d: -f1) || true
    [ -n "$pkg" ] || { echo "deb.sh: no package owns $lib" >&2; exit 1; }
    case " $deps " in *" $pkg "*) ;; *) deps="$deps $pkg" ;; esac
done
# the charts' text needs a font (Cairo finds DejaVu through fontconfig)
deps="$deps fonts-dejavu-core"
depends=$(echo $deps | tr ' ' '\n' | sort -u | paste -sd, - | sed 's/,/, /g')
size=$(du -sk "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" << EOF
Package: perfcard
Version: $version
Architecture: $arch
Maintainer: perfcard developers <perfcard@localhost>
Installed-Size: $size
Depends: $depends
Section: devel
Priority: optional
Description: static performance reports from GPU training and inference profiles
 perfcard reads a PyTorch profiler (Kineto) trace, an Nsight Systems or nvprof
 SQLite export, a rocprofv3 JSON output, MindSpore profiler output or its own
 CUPTI capture and writes report.html, summary.md and summary.json: what limits
 the run, what to try, ranked by the time at stake; it compares runs (diff,
 trend) with a verdict CI can gate on.
EOF
out="$build/perfcard_${version}_$arch.deb"
dpkg-deb --root-owner-group --build "$stage" "$out" > /dev/null
echo "$out"
