# shellcheck shell=bash
# The host's half of tests/vm/guest-proccli.sh, sourced by run.sh: the
# `ktrace record --process` files the guest sent as "KTPROC: " console
# lines, read with ktrace report (the process view, this tree's ktrace)
# and trace-cmd report (the oracle).  Uses result() and top.

# pc_view FILE.dat: the process view as "PID COMM TEXT" lines in FILE.pv.
pc_view() {
	"$top/ktrace" report -i "$1" >"${1%.dat}.view" 2>"${1%.dat}.view.err" || return 1
	awk '{ n = split($1, a, "-"); pid = a[n]
		comm = substr($1, 1, length($1) - length(pid) - 1)
		t = $0; sub(/^[^]]*\] +[0-9.]+: /, "", t); print pid, comm, t }' \
		"${1%.dat}.view" >"${1%.dat}.pv"
}

# pc_n FILE.pv ERE: lines matching ERE.
pc_n() {
	grep -cE -- "$2" "$1"
}

# pc_is WHAT GOT WANT: compare, say so on a mismatch (sets bad).
pc_is() {
	if [ "$2" != "$3" ]; then
		echo "# $1: got '$2', want '$3'"
		bad=1
	fi
}

# pc_tc FILE.dat: trace-cmd report of FILE into FILE.tc; nothing it
# cannot decode.
pc_tc() {
	trace-cmd report -i "$1" >"${1%.dat}.tc" 2>"${1%.dat}.tc.err"
	if grep -E 'UNKNOWN|[Ff]ailed|[Ee]rror|[Ww]arning' "${1%.dat}.tc" "${1%.dat}.tc.err" |
		head -n 5 | sed 's/^/# /' | grep .; then
		bad=1
	fi
}

# pc_result DESC: ok unless bad.
pc_result() {
	if [ "$bad" = 0 ]; then
		result ok "$pc_s: proccli: $1"
	else
		result "not ok" "$pc_s: proccli: $1"
	fi
}

pc_check_tree() {
	local x=$1 v=$1/tree.pv g2 g3 root p tree busy
	bad=0
	pc_view "$x/tree.dat" || bad=1
	pc_tc "$x/tree.dat"
	g2=$(sed -n 's/^gen2 //p' "$x/tree.err")
	g3=$(sed -n 's/^gen3 //p' "$x/tree.err")
	busy=$(head -n 1 "$x/tree.busy")
	root=$(awk -v c="$(echo "$g2" | head -n 1)" '$3 == "fork" && $4 == c { print $1 }' "$v")
	tree=" $root $(echo $g2 $g3) "
	echo "# tree.dat: root $root, children $(echo $g2), grandchildren $(echo $g3), busy $busy"
	pc_is "pids of the tree" "$(echo $tree | wc -w)" 5
	pc_is "forks" "$(pc_n "$v" '^[0-9]+ [^ ]+ fork ')" 4
	pc_is "forks by the root" "$(pc_n "$v" "^$root [^ ]+ fork ")" 2
	pc_is "execs" "$(pc_n "$v" '^[0-9]+ [^ ]+ exec ')" 3
	pc_is "exec of the root" "$(pc_n "$v" "^$root ktvm exec /ktvm\$")" 1
	pc_is "exits" "$(pc_n "$v" '^[0-9]+ [^ ]+ exit ')" 5
	pc_is "exit 0 of the root" "$(pc_n "$v" "^$root ktvm exit 0\$")" 1
	for p in $g2; do
		pc_is "fork of $p" "$(pc_n "$v" "^$root [^ ]+ fork $p flags 0x[0-9a-f]+\$")" 1
		pc_is "exit 2 of $p" "$(pc_n "$v" "^$p ktvm exit 2\$")" 1
	done
	for p in $g3; do
		pc_is "fork of $p" "$(pc_n "$v" "^[0-9]+ [^ ]+ fork $p flags ")" 1
		pc_is "exec by $p" "$(pc_n "$v" "^$p ktvm exec /ktvm\$")" 1
		pc_is "exit 3 of $p" "$(pc_n "$v" "^$p ktvm exit 3\$")" 1
	done
	pc_is "lines outside the tree" \
		"$(awk -v t="$tree" 'index(t, " " $1 " ") == 0' "$v" | wc -l)" 0
	pc_is "lines of the busy process" "$(pc_n "$v" "^$busy ")" 0
	pc_is "lines not named ktvm (cmdlines from the records)" \
		"$(awk '$2 != "ktvm"' "$v" | wc -l)" 0
	[ "$(pc_n "$v" '^[0-9]+ ktvm syscall wait4\(0x')" -ge 2 ] ||
		{ echo "# no 'syscall wait4(0x...' lines"; bad=1; }
	[ "$(pc_n "$v" '^[0-9]+ ktvm syscall wait4 rc [0-9]+ error 0$')" -ge 2 ] ||
		{ echo "# no 'syscall wait4 rc N error 0' lines"; bad=1; }
	pc_is "trace-cmd: process_fork" "$(pc_n "$x/tree.tc" ' process_fork: ')" 4
	pc_is "trace-cmd: process_exec" "$(pc_n "$x/tree.tc" ' process_exec: ')" 3
	pc_is "trace-cmd: process_exit" "$(pc_n "$x/tree.tc" ' process_exit: ')" 5
	pc_is "trace-cmd: records of the busy process" "$(pc_n "$x/tree.tc" "-$busy +\[")" 0
	"$top/ktrace" report --format trace-cmd -i "$x/tree.dat" >"$x/tree.ktc" 2>&1
	pc_is "report --format trace-cmd: process_exit" "$(pc_n "$x/tree.ktc" ' process_exit: ')" 5
	[ "$bad" = 0 ] || head -n 30 "$x/tree.view" | sed 's/^/# /'
	pc_result "report's process view and trace-cmd: every fork, exec and exit of the tree, nothing else"
}

pc_check_nosys() {
	local x=$1 v=$1/nosys.pv
	bad=0
	pc_view "$x/nosys.dat" || bad=1
	pc_tc "$x/nosys.dat"
	pc_is "syscall lines" "$(pc_n "$v" ' syscall ')" 0
	pc_is "trace-cmd: syscall records" "$(pc_n "$x/nosys.tc" ' process_syscall_')" 0
	pc_is "forks" "$(pc_n "$v" '^[0-9]+ [^ ]+ fork ')" 4
	pc_is "exits" "$(pc_n "$v" '^[0-9]+ [^ ]+ exit ')" 5
	pc_result "--no-syscalls: no syscall records, the lifecycle all there"
}

pc_check_getppid() {
	local x=$1 v=$1/getppid.pv pid
	bad=0
	pid=$(head -n 1 "$x/getppid.out")
	pc_view "$x/getppid.dat" || bad=1
	pc_tc "$x/getppid.dat"
	pc_is "getppid entries" "$(pc_n "$v" "^$pid ktvm syscall getppid\(\)\$")" 1000
	pc_is "getppid exits" "$(pc_n "$v" "^$pid ktvm syscall getppid rc [0-9]+ error 0\$")" 1000
	pc_is "lifecycle lines" "$(pc_n "$v" '^[0-9]+ [^ ]+ (fork|exec|exit) ')" 0
	pc_is "trace-cmd: getppid entries" \
		"$(grep -E " process_syscall_entry: " "$x/getppid.tc" | pc_n - ' nr=110 ')" 1000
	pc_is "analyze syscalls: getppid calls, errors" \
		"$("$top/ktrace" analyze syscalls -i "$x/getppid.dat" --format json |
			jq -r '.rows[] | select(.syscall == "getppid") | "\(.calls) \(.errors)"')" "1000 0"
	pc_result "N getppid calls: exactly N syscall entries and exits, named; analyze syscalls counts N"
	bad=0
	pid=$(head -n 1 "$x/bufsize.out")
	pc_view "$x/bufsize.dat" || bad=1
	pc_is "getppid entries with -b 8192" \
		"$(pc_n "$x/bufsize.pv" "^$pid ktvm syscall getppid\(\)\$")" 20000
	pc_result "-b 8192: 20000 getppid calls, 20000 entries"
}

pc_check_uid() {
	local x=$1 v=$1/uid.pv pid
	bad=0
	pid=$(head -n 1 "$x/uid.out")
	pc_view "$x/uid.dat" || bad=1
	pc_tc "$x/uid.dat"
	echo "# uid.dat: uid 1000 process $pid, $(wc -l <"$v") lines"
	pc_is "lines of other pids" "$(awk -v p="$pid" '$1 != p' "$v" | wc -l)" 0
	pc_is "exec of uid 1000's process" "$(pc_n "$v" "^$pid ktvm exec /ktvm\$")" 1
	pc_is "exit of uid 1000's process" "$(pc_n "$v" "^$pid ktvm exit 0\$")" 1
	pc_result "--uid 1000: only the uid 1000 process"
}

pc_check_comm() {
	local x=$1 v=$1/comm.pv
	bad=0
	pc_view "$x/comm.dat" || bad=1
	pc_tc "$x/comm.dat"
	pc_is "lines of other names" "$(awk '$2 != "xcomm"' "$v" | wc -l)" 0
	pc_is "exec of xcomm" "$(pc_n "$v" '^[0-9]+ xcomm exec /tmp/xcomm$')" 1
	pc_is "exit of xcomm" "$(pc_n "$v" '^[0-9]+ xcomm exit 0$')" 1
	pc_result "--comm xcomm: only the process named xcomm"
	bad=0
	v=$x/system.pv
	pc_view "$x/system.dat" || bad=1
	pc_tc "$x/system.dat"
	pc_is "lines of other names" "$(awk '$2 != "xcomm"' "$v" | wc -l)" 0
	pc_is "exec of xcomm" "$(pc_n "$v" '^[0-9]+ xcomm exec /tmp/xcomm$')" 1
	pc_is "exit of xcomm" "$(pc_n "$v" '^[0-9]+ xcomm exit 0$')" 1
	pc_result "every process, --comm xcomm: only the process named xcomm"
}

pc_check_signals() {
	local x=$1 child pid
	bad=0
	child=$(sed -n 's/^child //p' "$x/signal.err")
	pc_view "$x/signal.dat" || bad=1
	pc_tc "$x/signal.dat"
	pc_is "SIGUSR1 of $child" \
		"$(pc_n "$x/signal.pv" "^$child ktvm signal 10 SIGUSR1 errno 0 code 0x0\$")" 1
	pc_is "SIGUSR1 sent to $child" \
		"$(pc_n "$x/signal.pv" "^[0-9]+ ktvm signal 10 SIGUSR1 sent to process $child errno 0 code 0x0 result delivered\$")" 1
	pid=$(head -n 1 "$x/fatal.out")
	pc_view "$x/fatal.dat" || bad=1
	pc_tc "$x/fatal.dat"
	pc_is "kill -USR1 \$\$: the signal sent" \
		"$(pc_n "$x/fatal.pv" "^$pid [^ ]+ signal 10 SIGUSR1 sent to process $pid errno 0 code 0x0 result delivered\$")" 1
	pc_is "kill -USR1 \$\$: delivered as SIGKILL" \
		"$(pc_n "$x/fatal.pv" "^$pid [^ ]+ signal 9 SIGKILL errno 0 code 0x0 sent as 10 SIGUSR1\$")" 1
	pc_is "kill -USR1 \$\$: its exit" \
		"$(pc_n "$x/fatal.pv" "^$pid [^ ]+ exit \? killed by 10 SIGUSR1\$")" 1
	pc_is "trace-cmd: process_signal_generate of SIGUSR1" \
		"$(pc_n "$x/fatal.tc" " process_signal_generate: +comm=[^ ]+ signo=10 errno=0 code=0 pid=$pid group=1 result=0\$")" 1
	pc_view "$x/status.dat" || bad=1
	pc_is "exit 3" "$(pc_n "$x/status.pv" '^[0-9]+ ktvm exit 3$')" 1
	pid=$(cat "$x/pid.pid")
	pc_view "$x/pid.dat" || bad=1
	pc_tc "$x/pid.dat"
	# A fatal signal from another process is delivered as SIGKILL; the
	# module records it as sent, in the sender, and the exit status
	# keeps the signal sent.
	pc_is "-p: the fatal signal sent to $pid" \
		"$(pc_n "$x/pid.pv" "^[0-9]+ [^ ]+ signal 15 SIGTERM sent to process $pid errno 0 code 0x0 result delivered\$")" 1
	pc_is "-p: the fatal signal to $pid" \
		"$(pc_n "$x/pid.pv" "^$pid ktvm signal 9 SIGKILL errno 0 code 0x0 sent as 15 SIGTERM\$")" 1
	pc_is "-p: its exit" "$(pc_n "$x/pid.pv" "^$pid ktvm exit \? killed by 15 SIGTERM\$")" 1
	pc_is "-p: lines of other pids than the sender's" \
		"$(awk -v p="$pid" '$1 != p && !/ sent to process /' "$x/pid.pv" | wc -l)" 0
	[ "$bad" = 0 ] || sed 's/^/# /' "$x/fatal.pv" "$x/pid.pv" | head -n 30
	pc_result "signals as sent and delivered, killed-by exits, -p PID, an exit code"
}

# proccli_report SERIES DIR
proccli_report() {
	local x=$2/proccli
	pc_s=$1
	rm -rf "$x"
	mkdir -p "$x"
	if ! sed -n 's/^KTPROC: //p' "$2/console.log" | base64 -d -i 2>/dev/null |
		gunzip 2>/dev/null | tar x -C "$x" 2>/dev/null || [ ! -s "$x/tree.dat" ]; then
		result "not ok" "$1: proccli: the guest's recordings (no export)"
		return
	fi
	pc_check_tree "$x"
	pc_check_nosys "$x"
	pc_check_getppid "$x"
	pc_check_uid "$x"
	pc_check_comm "$x"
	pc_check_signals "$x"
}
