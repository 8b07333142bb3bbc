#!/bin/bash
# Prove the README's promise: on a fresh Debian 12 (a minbase bookworm with
# only make and git) `make demo` and `make check` work as root.  Builds a
# throwaway chroot, clones this repository's HEAD into it (committed work
# only: uncommitted changes are not tested), runs `make demo` and then
# `make check` in it as root with a clean environment, prints their last
# lines and exits nonzero if either failed.
#
# Usage: scripts/fresh-debian.sh [--tarball FILE] [--vm-cache DIR]
#                                [--demo-only] [--keep] [--logs DIR]
#   --tarball FILE  unpack the chroot from FILE (a tar of a minbase root,
#                   either at the top or in one directory) instead of
#                   `debootstrap --variant=minbase --include=make,git
#                   bookworm` from $KT_FRESH_MIRROR (deb.debian.org)
#   --vm-cache DIR  a tests/vm kernel cache (tests/vm/fetch-kernels.sh) to
#                   bind read-write into the chroot at the same path, so
#                   `make check` need not download the kernels.  It is
#                   written to: give a copy (cp -a), not a cache in use.
#   --demo-only     run `make demo` only
#   --keep          keep the chroot (its path is printed) instead of
#                   removing it
#   --logs DIR      where demo.log, check.log and the check's TAP files go
#                   (default build/fresh in this work tree)
# Environment: KT_FRESH_TARBALL, KT_FRESH_VM_CACHE, KT_FRESH_MIRROR and
# KT_FRESH_DIR (where the chroot is made; default /var/tmp) set the same.
#
# The chroot sees the host's kernel through /proc, /sys,
# /sys/kernel/tracing, /dev and /dev/pts (tmux in top.bats and script(1)
# need ptys; qemu uses /dev/kvm when it is there, else TCG) and gets a
# /dev/shm of its own (chromium in report-views.bats needs one).  Every
# mount is made in a private mount namespace (unshare) and undone on every
# exit path, so the host is left without them even if this script is
# killed; processes still running in the chroot at the end are killed.
# The tests run in their own tracefs instances; instances that appear
# during the run and are still there at the end are named in a warning
# (other users of this kernel may own them, so they are not removed).
set -u

if [ -z "${KT_FRESH_NS:-}" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "fresh-debian: must run as root (chroot, mount); try: sudo $0 $*" >&2
		exit 1
	fi
	# The mounts below live in a mount namespace of our own: none of
	# them can be left behind on the host.
	exec env KT_FRESH_NS=1 unshare --mount --propagation private -- "$0" "$@"
fi

src=$(cd "$(dirname "$0")/.." && pwd)
tarball=${KT_FRESH_TARBALL:-}
vmcache=${KT_FRESH_VM_CACHE:-}
mirror=${KT_FRESH_MIRROR:-http://deb.debian.org/debian}
demo_only=0 keep=0
logs=$src/build/fresh

# usage STATUS: the header's usage part, to stdout for --help.
usage() {
	sed -n '/^# Usage:/,/^# KT_FRESH_DIR/p' "$0" | sed 's/^# \{0,1\}//' >&"$(($1 ? 2 : 1))"
	exit "$1"
}
while [ $# -gt 0 ]; do
	case $1 in
	--tarball) [ $# -ge 2 ] || usage 64; tarball=$2; shift ;;
	--vm-cache) [ $# -ge 2 ] || usage 64; vmcache=$2; shift ;;
	--logs) [ $# -ge 2 ] || usage 64; logs=$2; shift ;;
	--demo-only) demo_only=1 ;;
	--keep) keep=1 ;;
	-h | --help) usage 0 ;;
	*) echo "fresh-debian: unknown argument '$1'; see --help" >&2; exit 64 ;;
	esac
	shift
done
if [ -n "$tarball" ] && [ ! -r "$tarball" ]; then
	echo "fresh-debian: cannot read tarball '$tarball'; give a tar of a minbase bookworm root" >&2
	exit 1
fi
if [ -n "$vmcache" ]; then
	if [ ! -d "$vmcache" ]; then
		echo "fresh-debian: no VM cache directory '$vmcache'; give a copy of tests/vm/cache" >&2
		exit 1
	fi
	vmcache=$(cd "$vmcache" && pwd)
fi
if ! sha=$(git -C "$src" rev-parse HEAD 2>/dev/null); then
	echo "fresh-debian: '$src' is not a git work tree; run the copy inside a clone" >&2
	exit 1
fi
if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
	echo "fresh-debian: note: uncommitted changes in '$src' are not tested (HEAD $sha is)" >&2
fi
mkdir -p "$logs" || exit 1
logs=$(cd "$logs" && pwd)

work=$(mktemp -d "${KT_FRESH_DIR:-/var/tmp}/ktrace-fresh.XXXXXX") || exit 1
root=$work/root
tracefs=/sys/kernel/tracing
mounts=()
# instances: the names of tracefs's instances, sorted.
instances() {
	find "$tracefs/instances" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort
}
instances_before=$(instances)

say() { echo "fresh-debian: $*"; }

# mnt ARGS... TARGET: mount and remember TARGET for the cleanup.
mnt() {
	mount "$@" || return 1
	mounts+=("${!#}")
}

# in_root: the PIDs of processes whose root directory is the chroot.
in_root() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$root" | "$root"/*) echo "${p#/proc/}" ;; esac
	done
}

cleanup() {
	local st=$? i pids left
	trap - EXIT INT TERM HUP
	# Whatever still runs in the chroot (a tmux server, a qemu) holds
	# its mounts busy.
	pids=$(in_root)
	if [ -n "$pids" ]; then
		say "killing processes left in the chroot: $(echo "$pids" | tr "\n" " ")"
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null
		sleep 1
		pids=$(in_root)
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
		sleep 0.2
	fi
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" ||
			say "cannot unmount '${mounts[i]}'"
	done
	left=$(awk -v r="$root" 'index($2, r) == 1 { print $2 }' /proc/self/mounts)
	if [ -n "$left" ]; then
		# Never remove a tree with the host's /dev or a cache under it.
		say "still mounted, keeping '$work': $left"
		st=1
	elif [ "$keep" = 1 ]; then
		say "kept the chroot: $root"
	else
		rm -rf --one-file-system "$work"
	fi
	left=$(comm -13 <(echo "$instances_before") \
		<(instances) | grep -E '^(kt-|ktrace)' || true)
	if [ -n "$left" ]; then
		say "warning: tracefs instances that appeared during the run are still there: $(echo "$left" | tr "\n" " ")"
	fi
	exit "$st"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# The chroot.
if [ -n "$tarball" ]; then
	say "unpacking $tarball"
	mkdir -p "$work/tar"
	tar -xf "$tarball" -C "$work/tar" --numeric-owner || exit 1
	if [ -d "$work/tar/etc" ]; then
		mv "$work/tar" "$root"
	else
		# One top directory (bookworm/) holding the root.
		set -- "$work"/tar/*/
		if [ $# != 1 ] || [ ! -d "$1/etc" ]; then
			say "'$tarball' holds no root file system (no etc/ at the top or one level down)"
			exit 1
		fi
		mv "$1" "$root" || exit 1
	fi
else
	if ! command -v debootstrap >/dev/null; then
		say "debootstrap is missing; apt-get install debootstrap, or give --tarball"
		exit 1
	fi
	say "debootstrap --variant=minbase --include=make,git bookworm from $mirror"
	debootstrap --variant=minbase --include=make,git bookworm "$root" "$mirror" \
		>"$logs/debootstrap.log" 2>&1 || { tail -n 20 "$logs/debootstrap.log"; exit 1; }
fi
for p in make git; do
	chroot "$root" dpkg-query -W "$p" >/dev/null 2>&1 || { say "the chroot has no $p"; exit 1; }
done
if chroot "$root" sh -c 'command -v cc || command -v gcc' >/dev/null 2>&1; then
	say "the chroot already has a C compiler: it is not fresh"
	exit 1
fi
# The network the host has (apt-get needs a resolver); packages'
# maintainer scripts must not start daemons in a chroot.
cp -L /etc/resolv.conf "$root/etc/resolv.conf" || exit 1
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# The root a mount point of its own, as / is on a machine: unshare
# --propagation (faults.bats) fails with EINVAL on a plain directory.
mnt --bind "$root" "$root" || exit 1
mnt -t proc proc "$root/proc" || exit 1
mnt --bind /sys "$root/sys" || exit 1
if ! mountpoint -q "$tracefs"; then
	say "no tracefs at $tracefs; mount -t tracefs nodev $tracefs"
	exit 1
fi
mnt --bind "$tracefs" "$root$tracefs" || exit 1
mnt --bind /dev "$root/dev" || exit 1
mnt --bind /dev/pts "$root/dev/pts" || exit 1
mnt -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm" || exit 1

env_vm=()
if [ -n "$vmcache" ]; then
	mkdir -p "$root$vmcache" || exit 1
	# At the same path: tests/vm/fetch-kernels.sh points a copied
	# cache's headers at where the cache is.
	mnt --bind "$vmcache" "$root$vmcache" || exit 1
	env_vm=("KT_VM_CACHE=$vmcache")
fi

say "cloning $src at $sha"
git clone -q "$src" "$root/root/ktrace" && git -C "$root/root/ktrace" checkout -q --detach "$sha" || exit 1

# run TARGET: `make TARGET` in the chroot as a root login would, its
# output shown and kept in $logs/TARGET.log; prints the wall time.
run() {
	local t0 st
	t0=$(date +%s)
	say "make $1 (log: $logs/$1.log)"
	# In the background, so that a signal to this script runs its
	# trap at once rather than when make is done.
	{
		chroot "$root" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			${TERM:+TERM=$TERM} "${env_vm[@]}" \
			/bin/bash -c "cd /root/ktrace && make $1" </dev/null 2>&1
		echo $? >"$work/status"
	} | tee "$logs/$1.log" &
	wait $!
	st=$(cat "$work/status" 2>/dev/null || echo 1)
	echo "$(( $(date +%s) - t0 ))" >"$logs/$1.seconds"
	return "$st"
}

demo_st=0 check_st=skipped
run demo || demo_st=$?
if [ "$demo_only" = 0 ]; then
	check_st=0
	run check || check_st=$?
	rm -rf "$logs/check"
	cp -a "$root/root/ktrace/build/check" "$logs/check" 2>/dev/null
fi

echo
say "=== summary (HEAD $sha) ==="
say "make demo: exit $demo_st in $(cat "$logs/demo.seconds") s; last lines:"
tail -n 5 "$logs/demo.log" | sed 's/^/  /'
if [ "$check_st" != skipped ]; then
	say "make check: exit $check_st in $(cat "$logs/check.seconds") s; last lines:"
	tail -n 5 "$logs/check.log" | sed 's/^/  /'
fi
[ "$demo_st" = 0 ] && { [ "$check_st" = 0 ] || [ "$check_st" = skipped ]; }
