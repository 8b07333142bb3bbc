#!/bin/sh
# Install the Debian packages a ktrace target needs, and only those that
# are missing, so a fresh Debian 12 with only make and git can build and
# test ktrace.  Usage: scripts/deps.sh build|check|bench|fuzz|valgrind
set -eu

# libelf-dev: elfutils' libelf, for uprobes by symbol (lib/decode/elfsym.c).
# libsqlite3-dev, libedit-dev: ktrace sql's SQLite and its prompt's line
# editor (lib/sql/, cmd/sql.c).  libcurl4-openssl-dev: ktrace push's HTTP
# client to ClickHouse (lib/push/); libxxhash-dev: push's trace_id, the
# file's XXH3 (lib/push/traceid.c); protobuf-c-compiler, libprotobuf-c-dev:
# the C of Perfetto's trace messages and their packing (report --format
# perfetto, lib/views/perfetto_trace.proto).  libsodium-dev: the agent's
# token, proved by an HMAC and never sent (lib/net/auth.c).  libdeflate-dev:
# the v7 reader's zlib chunks, about twice zlib's inflate (lib/file/unpack.c).
BUILD_PKGS="gcc libc6-dev make pkg-config libtracefs-dev libtraceevent-dev
	libtraceevent1-plugin libncurses-dev libzstd-dev zlib1g-dev libdeflate-dev libelf-dev
	libsqlite3-dev libedit-dev man-db libcurl4-openssl-dev libxxhash-dev
	protobuf-c-compiler libprotobuf-c-dev libsodium-dev"
# What the tests drive or compare against: trace-cmd is the oracle for
# files and output, dbench the workload, jq checks JSON, util-linux gives
# setpriv, procps gives ps, the VM tests boot Debian kernels in qemu,
# stress-ng loads the machine in the loss tests.
CHECK_PKGS="$BUILD_PKGS bats bats-assert bats-support trace-cmd dbench jq
	util-linux procps psmisc file bash-completion zsh tmux
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd
	libelf-dev bc flex bison dwarves
	stress-ng"
# strace: list.bats proves `ktrace list` opens no format file.
CHECK_PKGS="$CHECK_PKGS strace"
# chromium: report-views.bats renders the --timeline SVG headless;
# libxml2-utils: xmllint checks it is well-formed; python3 parses it.
CHECK_PKGS="$CHECK_PKGS chromium libxml2-utils python3"
# sqlite3: sql.bats opens the database ktrace sql --save writes;
# linux-perf: analyze.bats compares analyze syscalls with perf trace -s.
CHECK_PKGS="$CHECK_PKGS sqlite3 linux-perf"
# protobuf-compiler: report-views.bats decodes report --format perfetto's
# trace with protoc --decode.
CHECK_PKGS="$CHECK_PKGS protobuf-compiler"
# clickhouse-server, clickhouse-client: push.bats starts real servers
# (as nobody, on loopback ports, in a temporary directory) and queries them
# over HTTP with curl (tests/bats/clickhouse.bash); xxhash: its xxhsum is
# the oracle for push's trace_id.
CHECK_PKGS="$CHECK_PKGS clickhouse-server clickhouse-client curl xxhash"
# clang, libclang-rt-14-dev: libFuzzer; make check links the fuzz targets
# with it (scripts/check.sh), make fuzz runs them.
FUZZ_PKGS="clang libclang-rt-14-dev"
CHECK_PKGS="$CHECK_PKGS $FUZZ_PKGS"
BENCH_PKGS="$CHECK_PKGS hyperfine"

case "${1:-build}" in
build) want=$BUILD_PKGS ;;
check) want=$CHECK_PKGS ;;
bench) want=$BENCH_PKGS ;;
fuzz) want="$BUILD_PKGS $FUZZ_PKGS" ;;
valgrind) want="$CHECK_PKGS valgrind" ;;
*) echo "usage: $0 build|check|bench|fuzz|valgrind" >&2; exit 64 ;;
esac

missing=""
for p in $want; do
	# dpkg-query prints "install ok installed" only for a complete install.
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing; run as root or: apt-get install$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Use the package lists as they are; refresh them once if the install
# fails on stale or missing lists (a fresh debootstrap has none).
# shellcheck disable=SC2086
if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
