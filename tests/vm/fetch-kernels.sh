#!/bin/bash
# Download and unpack the Debian kernels the VM tests boot, with the
# headers and kbuild needed to build kernel/ktrace.ko against them.
# Idempotent: an unpacked series is reused (tests/vm/cache/<release>/).
# Of the modules only the network driver is kept (virtio_net, virtio_pci
# where it is a module, and what they need, per modules.dep), uncompressed in <root>/net with their load
# order in <root>/net/order, for the agent test (tests/vm/guest-agent.sh),
# and vsock's loopback (vsock_loopback and what it needs) beside them,
# their order in <root>/net/vsock.order, for its --guest test; a cached
# release without them is fetched again.
# Prints one line per series: "<series> <release> <root> <kbuild dir>".
# Series: 6.1 and 6.12 (Debian's generic amd64 flavour), 6.1-rt and
# 6.12-rt (the PREEMPT_RT flavour; linux-image-rt-amd64 is 6.1-rt in
# bookworm; 6.12-rt comes from the same sources as 6.12).
# Usage: tests/vm/fetch-kernels.sh [6.1] [6.12] [6.1-rt] [6.12-rt]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${KT_VM_CACHE:-$here/cache}
mkdir -p "$cache"

# Options for every apt-get and apt-cache call; private_apt sets them.
apt_opts=()

# newest PATTERN PREFIX: the highest package name apt knows that starts
# with PREFIX and matches the regex PATTERN.
newest() {
	apt-cache "${apt_opts[@]}" pkgnames "$2" 2>/dev/null | grep -E "$1" | sort -V | tail -n1
}

# private_apt: have apt look at bookworm, bookworm-updates and
# bookworm-security through a source list of our own, its lists in the
# cache, leaving the machine's apt alone.  The 6.12 kernels are only in
# bookworm-security, which a bare debootstrap does not list.
private_apt() {
	local d=$cache/apt k=/usr/share/keyrings/debian-archive-keyring.gpg
	[ ${#apt_opts[@]} = 0 ] || return 0
	mkdir -p "$d/parts" "$d/lists/partial" "$d/cache/archives/partial" || return 1
	printf 'deb [signed-by=%s] http://deb.debian.org/%s main\n' \
		"$k" "debian bookworm" "$k" "debian bookworm-updates" \
		"$k" "debian-security bookworm-security" >"$d/sources.list" || return 1
	apt_opts=(-o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=$d/parts"
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
	apt-get "${apt_opts[@]}" -o APT::Sandbox::User=root update -qq >/dev/null 2>&1
}

# keep_net ROOT RELEASE: virtio_net, the PCI transport virtio_pci when
# it is a module (6.1's), and what they depend on (by depmod's
# modules.dep), from the unpacked image, uncompressed into ROOT/net;
# ROOT/net/order lists them in load order (dependencies first).
keep_net() {
	local root=$1 rel=$2 m=$1/fs/lib/modules/$2 deps
	# The package leaves modules.dep to its postinst's depmod.
	depmod -b "$root/fs" "$rel" || return 1
	# A module's line names it, then what it needs, the deepest last.
	deps=$(sed -n 's|^\(kernel/[^:]*/virtio_pci\.ko[^:]*\):|\1|p' "$m/modules.dep" |
		tr ' ' '\n' | tac)
	deps="$deps $(sed -n 's|^\(kernel/[^:]*/virtio_net\.ko[^:]*\):|\1|p' "$m/modules.dep" |
		tr ' ' '\n' | tac)"
	case $deps in
	*/virtio_net.ko*) ;;
	*) echo "fetch-kernels: no virtio_net in $m/modules.dep" >&2; return 1 ;;
	esac
	mkdir -p "$root/net"
	keep_modules "$m" "$root/net" order "$deps" || return 1
	keep_modules "$m" "$root/net" vsock.order \
		"$(sed -n 's|^\(kernel/[^:]*/vsock_loopback\.ko[^:]*\):|\1|p' "$m/modules.dep" |
			tr ' ' '\n' | tac)" || return 1
	grep -qx vsock_loopback.ko "$root/net/vsock.order" || {
		echo "fetch-kernels: no vsock_loopback in $m/modules.dep" >&2
		return 1
	}
}

# keep_modules MODDIR DIR ORDER "PATHS": the modules PATHS (relative to
# MODDIR, in load order) uncompressed into DIR, their names in DIR/ORDER.
keep_modules() {
	local m=$1 dir=$2 order=$3 f b
	: >"$dir/$order.tmp"
	for f in $4; do
		b=$(basename "${f%.ko*}").ko
		grep -qx "$b" "$dir/$order.tmp" && continue
		case $f in
		*.xz) xz -dc "$m/$f" ;;
		*.zst) zstd -dc "$m/$f" ;;
		*.gz) gzip -dc "$m/$f" ;;
		*) cat "$m/$f" ;;
		esac >"$dir/$b" || return 1
		echo "$b" >>"$dir/$order.tmp"
	done
	mv "$dir/$order.tmp" "$dir/$order"
}

# unpack SERIES IMAGE_PKG: download and unpack one release into the
# cache unless it is there; prints the release.
unpack() {
	local series=$1 img=$2 rel root pkgs p kbuild common
	rel=${img#linux-image-}
	rel=${rel%-unsigned}
	# Unpacked beside the cached release (if any), which it replaces only
	# once whole: a failed download leaves the old one for fetch's
	# fallback.
	root=$cache/.$rel.new
	if [ ! -e "$cache/$rel/.done" ] || [ ! -s "$cache/$rel/net/order" ] ||
		[ ! -s "$cache/$rel/net/vsock.order" ]; then
		rm -rf "$root"
		# The rt flavour's headers have a common part of their own.
		case $rel in
		*-rt-amd64) common=linux-headers-${rel%-rt-amd64}-common-rt ;;
		*) common=linux-headers-${rel%-amd64}-common ;;
		esac
		case $series in
		6.1 | 6.1-rt) kbuild=linux-kbuild-6.1 ;;
		*) kbuild=linux-kbuild-${rel%-amd64}; kbuild=${kbuild%-rt} ;;
		esac
		pkgs="$img linux-headers-$rel $common $kbuild"
		mkdir -p "$root/deb"
		for p in $pkgs; do
			ls "$root/deb/${p}_"*.deb >/dev/null 2>&1 && continue
			(cd "$root/deb" && apt-get "${apt_opts[@]}" download -qq \
				-o APT::Sandbox::User=root "$p" >/dev/null) || {
				apt-get "${apt_opts[@]}" update -qq &&
				(cd "$root/deb" && apt-get "${apt_opts[@]}" download -qq \
					-o APT::Sandbox::User=root "$p" >/dev/null)
			} || { rm -rf "$root"; return 1; }
		done
		for p in "$root"/deb/*.deb; do
			dpkg-deb -x "$p" "$root/fs" || { rm -rf "$root"; return 1; }
		done
		keep_net "$root" "$rel" || { rm -rf "$root"; return 1; }
		# Keep only what the tests use: the image, config, headers,
		# kbuild, the network driver.
		rm -rf "$root/fs/lib/modules/$rel/kernel" "$root/deb"
		touch "$root/.done"
		rm -rf "${cache:?}/$rel" && mv "$root" "$cache/$rel" || return 1
	fi
	echo "$rel"
}

# fetch SERIES: the newest release apt offers; when it cannot be had
# (no network, a mirror hiccup), the newest one already in the cache.
fetch() {
	local series=$1 pat prefix img rel d
	case $series in
	6.1) prefix=linux-image-6.1.0- pat='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
	6.12) prefix=linux-image-6.12. pat='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
	6.1-rt) prefix=linux-image-6.1.0- pat='^linux-image-6\.1\.0-[0-9]+-rt-amd64-unsigned$' ;;
	6.12-rt) prefix=linux-image-6.12. pat='^linux-image-6\.12\.[0-9]+\+deb12-rt-amd64-unsigned$' ;;
	*) echo "fetch-kernels: unknown series '$series'; use 6.1, 6.12, 6.1-rt or 6.12-rt" >&2; return 1 ;;
	esac
	img=$(newest "$pat" "$prefix")
	if [ -z "$img" ] && private_apt; then
		img=$(newest "$pat" "$prefix")
	fi
	if [ -z "$img" ] || ! rel=$(unpack "$series" "$img"); then
		rel=$(for d in "$cache"/*/.done; do
			d=${d%/.done}
			d=${d##*/}
			[[ "linux-image-$d-unsigned" =~ $pat ]] && echo "$d"
		done | sort -V | tail -n1)
		if [ -z "$rel" ]; then
			echo "fetch-kernels: cannot download a $series kernel and none is cached; check the network and apt sources" >&2
			return 1
		fi
		echo "fetch-kernels: cannot download ${img:-a $series kernel}; using the cached $rel" >&2
	fi
	# The headers' Makefile includes its common part by absolute path:
	# /usr/src as packaged, or where the cache was unpacked when it has
	# been copied since (cp -a, KT_VM_CACHE).  Point it into the cache.
	d=$cache/$rel/fs/usr/src/linux-headers-$rel/Makefile
	if ! grep -q "^include $cache/$rel/fs/usr/src/" "$d"; then
		sed -i "1s|^include /.*usr/src/|include $cache/$rel/fs/usr/src/|" "$d" || return 1
	fi
	echo "$series $rel $cache/$rel $cache/$rel/fs/usr/src/linux-headers-$rel"
}

# Sourced (by a test of the fallback), define the functions only.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
[ $# -gt 0 ] || set -- 6.1 6.12 6.1-rt
for s in "$@"; do
	fetch "$s"
done
