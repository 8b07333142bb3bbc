# shellcheck shell=bash
# The host's half of tests/vm/guest-cli.sh, sourced by run.sh: decode the
# recordings the guest sent as "KTCLI: " console lines with trace-cmd
# report (the oracle) and check their records.  Uses result() and the
# console log of one boot.

# cli_count FILE ERE: lines of FILE matching ERE.
cli_count() {
	grep -cE "$2" "$1"
}

# cli_report SERIES DIR
cli_report() {
	local s=$1 w=$2 x=$2/cli pid a b bad back
	rm -rf "$x"
	mkdir -p "$x"
	if ! sed -n 's/^KTCLI: //p' "$w/console.log" | base64 -d -i 2>/dev/null |
		gunzip 2>/dev/null | tar x -C "$x" 2>/dev/null || [ ! -s "$x/both.dat" ]; then
		result "not ok" "$s: cli: trace-cmd report decodes ktrace record's file (no export)"
		return
	fi
	# Module and ftrace records of the workload: one probe each on the
	# same tracepoint, both on before it starts and off after it ends.
	pid=$(cat "$x/both.pid")
	trace-cmd report -i "$x/both.dat" >"$x/both.txt" 2>"$x/both.err"
	# Each backend's records of the workload up to its last sleep (S)
	# switch-out, which is before it exits.  What follows, from its
	# exit to its death, is left out of both counts: record reaps the
	# workload and stops the two backends one after the other, and a
	# task that has exited can still switch (preempted on -rt, or its
	# last switch-out as a zombie) between the two stops.
	a=$(awk -v p="$pid" '$0 ~ " sched_schedule: +prev_pid=" p " |next_pid=" p " prev_state=" {
			n++; if ($0 ~ "prev_pid=" p " .*prev_state=0x1 ") last = n }
		END { print last + 0 }' "$x/both.txt")
	b=$(awk -v p="$pid" '$0 ~ " sched_switch: " && $0 ~ ":" p " \\[[0-9]+\\]( |$)" {
			n++; if ($0 ~ ":" p " \\[[0-9]+\\] S ==> ") last = n }
		END { print last + 0 }' "$x/both.txt")
	bad=0
	echo "# both.dat: pid $pid: ktrace:sched_schedule $a, sched:sched_switch $b"
	# The equality is the test; the floor only proves the workload was
	# recorded.  Not 200 (2 per sleep): a 1 ms sleep whose timer fires
	# before the task reaches schedule() (a vCPU descheduled under TCG on
	# a loaded host) does not switch; a fresh-chroot run saw 199 = 199.
	if [ "$a" != "$b" ] || [ "$a" -lt 100 ]; then
		bad=1
	fi
	# Each CPU's module and ftrace records are merged in time order.
	back=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = $i + 0; if (t < last) n++; last = t; break } }
		END { print n + 0 }' "$x/both.txt")
	if [ "$back" != 0 ]; then
		echo "# both.dat: trace-cmd report goes back in time $back times"
		bad=1
	fi
	if grep -E 'UNKNOWN|[Ff]ailed|[Ee]rror|[Ww]arning' "$x/both.txt" "$x/both.err" |
		head -n 5 | sed 's/^/# /' | grep -q .; then
		grep -E 'UNKNOWN|[Ff]ailed|[Ee]rror|[Ww]arning' "$x/both.txt" "$x/both.err" |
			head -n 5 | sed 's/^/# /'
		bad=1
	fi
	if [ "$bad" = 0 ]; then
		result ok "$s: cli: trace-cmd report: ktrace:sched_schedule count of the workload equals sched:sched_switch's ($a), in time order"
	else
		result "not ok" "$s: cli: trace-cmd report: ktrace:sched_schedule count of the workload equals sched:sched_switch's, in time order"
	fi
	# kprobes: ktrace's text of them in the guest is trace-cmd's here.
	if [ -s "$x/kprobe.dat" ] && [ -s "$x/kprobe.txt" ] &&
		trace-cmd report -i "$x/kprobe.dat" 2>/dev/null | tail -n +2 | cmp -s - "$x/kprobe.txt"; then
		result ok "$s: cli: trace-cmd report of the kprobe recording is ktrace's ($(grep -c ' do_sys_openat2' "$x/kprobe.txt") lines)"
	else
		result "not ok" "$s: cli: trace-cmd report of the kprobe recording is ktrace's"
	fi
	# The function tracers and another module's event (KTRACE_EVENT,
	# across a reload and 100 of them):
	# ktrace's text in the guest is trace-cmd's here.
	# ... and the module read mapped and by read() (record_mmap), and
	# in flight mode with its drop marks (record_flight).
	for a in func funcstack fgraph fgstack modev cycles mmapr readr flight; do
		if [ -s "$x/$a.dat" ] && [ -s "$x/$a.txt" ] &&
			trace-cmd report -i "$x/$a.dat" 2>/dev/null | tail -n +2 >"$x/$a.tc" &&
			cmp -s "$x/$a.tc" "$x/$a.txt"; then
			result ok "$s: cli: trace-cmd report of the $a recording is ktrace's ($(wc -l <"$x/$a.txt") lines)"
		else
			[ -s "$x/$a.tc" ] && diff "$x/$a.tc" "$x/$a.txt" | head -n 10 | sed 's/^/# /'
			result "not ok" "$s: cli: trace-cmd report of the $a recording is ktrace's"
		fi
	done
	# record --rotate with module events: each chunk read by trace-cmd
	# on its own, every getppid in exactly one.
	if [ -s "$x/rot.n" ]; then
		local f e=0 ex=0 nf=0 bad=0
		for f in "$x"/rot/ktrace-*.dat; do
			if ! trace-cmd report -i "$f" >"$x/rot.tc" 2>"$x/rot.err" ||
				grep -qE 'UNKNOWN|[Ff]ailed|[Ee]rror' "$x/rot.tc" "$x/rot.err"; then
				echo "# $f: $(head -n 3 "$x/rot.err")"
				bad=1
			fi
			e=$((e + $(cli_count "$x/rot.tc" " syscall_entry: +nr=110 ")))
			ex=$((ex + $(cli_count "$x/rot.tc" " syscall_exit: +nr=110 ")))
			nf=$((nf + 1))
		done
		echo "# rot: $nf files, $e entries, $ex exits of $(cat "$x/rot.n") getppid calls"
		if [ "$bad" = 0 ] && [ "$e" = "$(cat "$x/rot.n")" ] && [ "$ex" = "$e" ]; then
			result ok "$s: cli: trace-cmd report of each --rotate file: every getppid of the workload in exactly one ($nf files)"
		else
			result "not ok" "$s: cli: trace-cmd report of each --rotate file: every getppid of the workload in exactly one"
		fi
	else
		result "not ok" "$s: cli: trace-cmd report of each --rotate file (none sent)"
	fi
	# Snapshots of a recording with module events, taken in its middle:
	# trace-cmd reads each and counts what the guest counted.
	if [ -s "$x/snap.p1" ] && [ -s "$x/snapf.dat" ]; then
		local f w want got calls pf
		bad=0 calls=""
		for f in snapl snap snapu snapf snaprot; do
			if ! trace-cmd report -i "$x/$f.dat" >"$x/$f.tc" 2>"$x/$f.err" ||
				grep -qE 'UNKNOWN|[Ff]ailed|[Ee]rror' "$x/$f.tc" "$x/$f.err"; then
				echo "# $f.dat: $(head -n 3 "$x/$f.err")"
				bad=1
			fi
			for w in 1 2 3; do
				pf=snap
				if [ $f = snaprot ]; then
					[ $w = 2 ] && continue
					pf=snaprot
				fi
				pid=$(cat "$x/$pf.p$w")
				got=$(grep -E " syscall_entry: +nr=110 " "$x/$f.tc" | cli_count - "[-]$pid +\[")
				case $f$w in
				snapl1) want=$got; [ "$got" -lt 3000 ] || bad=1 ;;
				snapl2|snap2|snapu2|snapf2) want=2000 ;;
				snap1|snapu1|snapf1) want=3000 ;;
				snapf3) want=5000 ;;
				snaprot1) want=6000 ;;
				*) want=0 ;;
				esac
				[ "$got" = "$want" ] || bad=1
				calls="$calls $f:$got"
			done
		done
		echo "# snapshots, getppid entries of the three workloads:$calls"
		if [ "$bad" = 0 ]; then
			result ok "$s: cli: trace-cmd report of the snapshots of a recording with module events: each holds the calls before it, the file at the end every one"
		else
			result "not ok" "$s: cli: trace-cmd report of the snapshots of a recording with module events: each holds the calls before it, the file at the end every one"
		fi
	else
		result "not ok" "$s: cli: trace-cmd report of the snapshots of a recording with module events (none sent)"
	fi
	[ -s "$x/rotm.txt" ] && sed 's/^/# 300 rotations: /' "$x/rotm.txt"
	[ -s "$x/snaploss.txt" ] && sed 's/^/# snapshot with losses: /' "$x/snaploss.txt"
	# -F: only when this ktrace.ko has a pid filter (else the guest
	# checked that record -F refuses to run).
	[ -s "$x/pid.dat" ] || return 0
	pid=$(cat "$x/pid.pid")
	trace-cmd report -i "$x/pid.dat" >"$x/pid.txt" 2>"$x/pid.err"
	a=$(cli_count "$x/pid.txt" " syscall_entry: +nr=110 ")
	b=$(cli_count "$x/pid.txt" " syscall_entry: ")
	bad=$(grep -E ' syscall_entry: ' "$x/pid.txt" | grep -cvE -- "-$pid +\[")
	echo "# pid.dat: pid $pid: $a getppid entries, $b syscall_entry records, $bad of other pids"
	if [ "$a" = 10 ] && [ "$bad" = 0 ]; then
		result ok "$s: cli: record -F: 10 getppid calls give 10 ktrace:syscall_entry records, none of other pids"
	else
		result "not ok" "$s: cli: record -F: 10 getppid calls give 10 ktrace:syscall_entry records, none of other pids"
	fi
}
