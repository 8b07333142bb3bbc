#!/bin/bash
# Download and unpack the Debian kernels the VM tests boot, with the
# headers and kbuild needed to build kernel/ktrace.ko against them.
# Idempotent: an unpacked series is reused (tests/vm/cache/<series>/).
# Prints one line per series: "<series> <release> <root> <kbuild dir>".
# Usage: tests/vm/fetch-kernels.sh [6.1] [6.12]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${KT_VM_CACHE:-$here/cache}
mkdir -p "$cache"

# newest PATTERN: the highest package name apt knows matching the regex.
newest() {
	apt-cache pkgnames "$2" 2>/dev/null | grep -E "$1" | sort -V | tail -n1
}

# fetch SERIES: resolve the newest release of SERIES, download, unpack.
fetch() {
	local series=$1 img rel root pkgs p common kbuild
	case $series in
	6.1) img=$(newest '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' linux-image-6.1.0-) ;;
	6.12) img=$(newest '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' linux-image-6.12.) ;;
	*) echo "fetch-kernels: unknown series '$series'; use 6.1 or 6.12" >&2; return 1 ;;
	esac
	if [ -z "$img" ]; then
		echo "fetch-kernels: no linux-image package for $series; run apt-get update" >&2
		return 1
	fi
	rel=${img#linux-image-}
	rel=${rel%-unsigned}
	root=$cache/$rel
	if [ ! -e "$root/.done" ]; then
		common=linux-headers-${rel%-amd64}-common
		case $series in
		6.1) kbuild=linux-kbuild-6.1 ;;
		*) kbuild=linux-kbuild-${rel%-amd64} ;;
		esac
		pkgs="$img linux-headers-$rel $common $kbuild"
		mkdir -p "$root/deb"
		for p in $pkgs; do
			ls "$root/deb/${p}_"*.deb >/dev/null 2>&1 && continue
			(cd "$root/deb" && apt-get download -qq -o APT::Sandbox::User=root "$p" >/dev/null) || {
				apt-get update -qq
				(cd "$root/deb" && apt-get download -qq -o APT::Sandbox::User=root "$p" >/dev/null)
			}
		done
		for p in "$root"/deb/*.deb; do
			dpkg-deb -x "$p" "$root/fs"
		done
		# Keep only what the tests use: the image, config, headers, kbuild.
		rm -rf "$root/fs/lib/modules/$rel/kernel" "$root/deb"
		# The headers' Makefile includes the common part by absolute
		# path; point it into the cache.
		sed -i "s|^include /usr/src/|include $root/fs/usr/src/|" \
			"$root/fs/usr/src/linux-headers-$rel/Makefile"
		touch "$root/.done"
	fi
	echo "$series $rel $root $root/fs/usr/src/linux-headers-$rel"
}

[ $# -gt 0 ] || set -- 6.1 6.12
for s in "$@"; do
	fetch "$s"
done
