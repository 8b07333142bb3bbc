# shellcheck shell=bash
# The host's half of tests/vm/guest-agent.sh, sourced by run.sh: one
# boot (KT_VM_AGENT_SERIES, default 6.12) gets a virtio-net card on
# qemu's user network with two forwarded ports, to the guest's `ktrace
# agent` and to its mark server (tests/vm/marksrv.c).  While the guest
# runs, `ktrace record --local --remote` records this machine and the
# guest in one run; its command writes, 40 times, a mark Lk here, has
# the guest write Rk (one round trip through the forwarded port), and
# writes Mk here.  After the boot, report -i merges the two files: each
# Rk must lie within [Lk, Mk] widened by the error bound the file stores
# for its clock offsets (stat -i shows it).  The host's recording takes
# the tracefs lock named by KT_VM_TRACEFS_LOCK when set (not in make
# check, whose caller holds the locks).  Uses result(), diag(), top.

# agent_port: a TCP port nothing on this host listens on.
agent_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		(: <>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || break
	done
	echo "$p"
}

# agent_setup DIR: ports, token, the host's command; sets agent_args
# (qemu options) and agent_append (the kernel parameter).
agent_setup() {
	local x=$1/agent
	rm -rf "$x"
	mkdir -p "$x"
	agent_ap=$(agent_port)
	agent_mp=$(agent_port)
	[ "$agent_mp" != "$agent_ap" ] || agent_mp=$(agent_port)
	od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$x/token"
	chmod 600 "$x/token"
	agent_args="-netdev user,id=n0,hostfwd=tcp:127.0.0.1:$agent_ap-:6517,hostfwd=tcp:127.0.0.1:$agent_mp-:6518 -device virtio-net-pci,netdev=n0"
	agent_append="kt_agent=6517,6518,$(cat "$x/token")"
	# The host's command, run by record (its instance: ktrace-PPID).
	cat >"$x/sync" <<-'EOS'
	#!/bin/bash
	# sync PORT N: N times Lk here, Rk in the guest, Mk here.
	here=/sys/kernel/tracing/instances/ktrace-$PPID/trace_marker
	exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
	read -r -t 150 ready <&3 && [ "$ready" = ready ] || { echo "sync: the guest is not ready: '$ready'" >&2; exit 1; }
	for ((k = 1; k <= $2; k++)); do
		echo "L$k" >"$here"
		echo "$k" >&3
		read -r -t 60 ack <&3 && [ "$ack" = "$k" ] || { echo "sync: no answer $k: '$ack'" >&2; exit 1; }
		echo "M$k" >"$here"
	done
	exec 3>&-
	EOS
	chmod +x "$x/sync"
}

# agent_host DIR: waits for the guest's "KTAGENT: ready" (until the boot
# ends, DIR/booted), then records; record's status in DIR/agent/rc.
agent_host() {
	local w=$1 x=$1/agent rc lock=()
	until grep -q '^KTAGENT: ready' "$w/console.log" 2>/dev/null; do
		[ -e "$w/booted" ] && return 0
		sleep 0.2
	done
	date +%s.%N >"$x/ready.time"
	[ -n "${KT_VM_TRACEFS_LOCK:-}" ] && lock=(flock "$KT_VM_TRACEFS_LOCK")
	# The recording's own time (record.time: start and end) leaves out
	# the wait for the lock.
	(cd "$x" && "${lock[@]}" bash -c 'date +%s.%N >record.time
		timeout -k 10 600 "$0" record --local --remote "127.0.0.1:$1" \
			--token-file token -q -o two.dat -e ftrace:print -- ./sync "$2" 40 \
			>record.out 2>record.err
		rc=$?
		date +%s.%N >>record.time
		exit $rc' "$top/ktrace" "$agent_ap" "$agent_mp")
	rc=$?
	# A failed recording: the guest's mark server, told by a connection
	# that closes at once, gives up now rather than at its timeout.
	[ "$rc" = 0 ] || (: <>"/dev/tcp/127.0.0.1/$agent_mp") 2>/dev/null
	echo "$rc" >"$x/rc"
}

# agent_mark_ts FILE NAME: the ns time of mark NAME in report -t's lines.
agent_mark_ts() {
	awk -v m="$2" '$NF == m { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); split($i, a, "."); printf "%d%09d\n", a[1], a[2]; exit } }' "$1"
}

# agent_check DIR HOSTFILE GUESTFILE: 0 when each side holds its marks
# and, merged, every Rk lies within [Lk - bound, Mk + bound]; the
# reasons on stdout as TAP comments.
agent_check() {
	local x=$1 h=$2 g=$3 nh ng bound k l r m bad=0 worst=0 d t
	nh=$("$top/ktrace" report -i "$x/$h" | grep -cE ': [LM][0-9]+$')
	ng=$("$top/ktrace" report -i "$x/$g" | grep -cE ': R[0-9]+$')
	if [ "$nh" != 80 ] || [ "$ng" != 40 ]; then
		echo "# the host's file holds $nh of 80 marks, the guest's $ng of 40"
		return 1
	fi
	t=$x/${g%.dat}.merged
	(cd "$x" && "$top/ktrace" report -t -i "$h" -i "$g") >"$t" 2>"$t.err" || {
		diag "$t.err"
		return 1
	}
	sed -n 2p "$t" | sed 's/^/# /'
	bound=$(sed -n '2s/.*error bound \([0-9]*\)\.\([0-9]*\) s$/\1\2/p' "$t")
	if [ -z "$bound" ]; then
		echo "# no error bound in report's header for $g"
		return 1
	fi
	# Each side reads its clock within a microsecond of the mark.
	bound=$((10#$bound + 2000))
	for ((k = 1; k <= 40; k++)); do
		l=$(agent_mark_ts "$t" "L$k")
		r=$(agent_mark_ts "$t" "R$k")
		m=$(agent_mark_ts "$t" "M$k")
		if [ -z "$l" ] || [ -z "$r" ] || [ -z "$m" ]; then
			echo "# mark $k missing in the merged report"
			return 1
		fi
		# How far Rk falls outside [Lk, Mk] (0 inside).
		d=0
		[ "$r" -ge "$l" ] || d=$((l - r))
		[ "$r" -le "$m" ] || d=$((r - m))
		[ "$d" -le "$worst" ] || worst=$d
		if [ "$d" -gt "$bound" ]; then
			[ "$bad" = 1 ] || echo "# R$k at $r ns is $d ns outside [L$k, M$k] = [$l, $m], more than the bound $bound ns"
			bad=1
		fi
	done
	echo "# 40 marks: the widest gap L-M $(awk '$NF ~ /^[LM][0-9]+$/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break }; if ($NF ~ /^L/) l = t; else if (t - l > w) w = t - l } END { printf "%.6f", w }' "$t") s, R outside it by at most $worst ns, bound $bound ns"
	return "$bad"
}

# agent_report SERIES DIR
agent_report() {
	local s=$1 w=$2 x=$2/agent
	if [ "$(cat "$x/rc" 2>/dev/null)" != 0 ]; then
		result "not ok" "$s: agent: record --local --remote of this host and the guest's agent (status $(cat "$x/rc" 2>/dev/null || echo none: the guest never said ready))"
		[ -s "$x/record.err" ] && diag "$x/record.err"
		return
	fi
	result ok "$s: agent: record --local --remote records this host and the guest's agent through qemu's forwarded port in one run"
	echo "# agent: the host's record --local --remote took $(awk 'NR == 1 { s = $1 } NR == 2 { printf "%.1f", $1 - s }' "$x/record.time") s, after $(cat "$x/ready.time" "$x/record.time" | awk 'NR == 1 { s = $1 } NR == 2 { printf "%.1f", $1 - s }') s for the tracefs lock"
	"$top/ktrace" stat -i "$x/two-127.0.0.1.dat" 2>&1 | grep -E 'recorded by|clock offsets|widest' | sed 's/^/# /'
	if agent_check "$x" two.dat two-127.0.0.1.dat; then
		result ok "$s: agent: report -i host -i guest: marks written at one moment on each side line up within the stored error bound"
	else
		result "not ok" "$s: agent: report -i host -i guest: marks written at one moment on each side line up within the stored error bound"
	fi
	# The check can fail: the same guest file with its stored offsets
	# moved by 1 s (the option's text edited in place, same length).
	perl -0777 -pe 's{(agent [^\n]*\ncontroller [^\n]*\n)((?:\w+ \d+ -?\d+ \d+\n)+)}{
		my ($h, $m) = ($1, $2);
		$m =~ s/^(\w+ \d+ )(-?\d+)/my $o = $2 + 1000000000;
			$o = $2 - 1000000000 if length($o) != length($2); $1 . $o/gme;
		$h . $m}e' "$x/two-127.0.0.1.dat" >"$x/shifted.dat"
	if ! cmp -s "$x/two-127.0.0.1.dat" "$x/shifted.dat" &&
		! agent_check "$x" two.dat shifted.dat >"$x/shifted.out"; then
		result ok "$s: agent: the same check fails on the guest's file with its stored offsets moved by 1 s"
	else
		cat "$x/shifted.out"
		result "not ok" "$s: agent: the same check fails on the guest's file with its stored offsets moved by 1 s"
	fi
}
