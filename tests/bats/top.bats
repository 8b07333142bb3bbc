#!/usr/bin/env bats
# ktrace top: the full-screen view driven in a tmux 80x24 terminal, and the
# text (batch) mode, counting events a workload provably generated.

load helpers

setup() {
	SOCK="kt-top-$$-$BATS_TEST_NUMBER"
	WORK=$(mktemp -d)
	TOP_PID=
}

teardown() {
	if [ -n "$TOP_PID" ] && kill -0 "$TOP_PID" 2>/dev/null; then
		kill -TERM "$TOP_PID" 2>/dev/null || true
		wait_for_gone "$TOP_PID" || kill -KILL "$TOP_PID" 2>/dev/null || true
	fi
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	if [ -n "$TOP_PID" ] && [ -d "$TRACEFS/instances/ktrace-$TOP_PID" ]; then
		rmdir "$TRACEFS/instances/ktrace-$TOP_PID" 2>/dev/null || true
	fi
	kt_cleanup_instances
	rm -rf "$WORK"
}

# poll CMD...: retry CMD every 50 ms for up to 15 s.
poll() {
	local i
	for i in $(seq 300); do
		"$@" && return 0
		sleep 0.05
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

wait_for_gone() { poll sh -c "! kill -0 $1 2>/dev/null"; }

screen() { tmux -L "$SOCK" capture-pane -p; }
screen_has() { screen | grep -qF -- "$1"; }
screen_lacks() { ! screen | grep -qF -- "$1"; }
keys() { tmux -L "$SOCK" send-keys "$@"; }

# The TOTAL of an event's row, on the screen or in a text table.
total_of() { # EVENT [FILE]
	local src
	if [ -n "${2:-}" ]; then src=$(cat "$2"); else src=$(screen); fi
	awk -v ev="$1" '{ for (i = 1; i <= NF; i++) if ($i == ev) t = $(i + 2) } END { print t + 0 }' <<<"$src"
}
total_is() { [ "$(total_of "$@")" -eq "$TOTAL" ]; }

inst_dir() { echo "$TRACEFS/instances/ktrace-$TOP_PID"; }
tracing_on() { [ "$(cat "$(inst_dir)/tracing_on" 2>/dev/null)" = 1 ]; }

# start_tui ARGS...: a shell in an 80x24 tmux, running ktrace top ARGS.
start_tui() {
	tmux -L "$SOCK" new-session -d -x 80 -y 24 \
		"env PS1='kt-prompt\$ ' bash --norc --noprofile"
	poll screen_has 'kt-prompt$'
	keys "sh -c 'echo \$\$ > $WORK/pid; exec $KTRACE top $*'; echo top-exit=\$?" Enter
	poll test -s "$WORK/pid"
	TOP_PID=$(cat "$WORK/pid")
	poll screen_has "RATE/s"
	poll tracing_on
}

# start_batch ARGS...: ktrace top ARGS in the background, text to $WORK/out;
# returns once it counts.
start_batch() {
	# The shell truncates out only when the child runs: a poll must not
	# see an earlier run's output.
	rm -f "$WORK/out"
	"$KTRACE" top "$@" >"$WORK/out" 2>"$WORK/err" &
	TOP_PID=$!
	# A new instance starts with tracing on, before ktrace top has set
	# it up; the first table is printed once it has.
	poll test -s "$WORK/out"
	tracing_on
}

@test "the table appears in 80x24 and counts N trace_marker writes exactly" {
	start_tui -e ftrace:print -d 0.2 -b 2048
	# -b sized the private instance's buffers (the kernel rounds up to
	# whole sub-buffers: 2048 reads back as 2051).
	kb=$(cat "$(inst_dir)/per_cpu/cpu0/buffer_size_kb")
	[ "$kb" -ge 2048 ] && [ "$kb" -lt 2100 ]
	screen_has "ktrace top  ktrace-$TOP_PID"
	screen_has "EVENT"
	screen_has "ftrace:print"
	markers 50 "$(inst_dir)" kt-top-
	TOTAL=50
	poll total_is ftrace:print
	# It counts at nice -20, as record's recorders, not to fall behind.
	[ "$(ps -o ni= -p "$TOP_PID" | tr -d ' ')" = -20 ] ||
		fail "top runs at nice $(ps -o ni= -p "$TOP_PID")"
	# Laid out for 80x24, nothing cut or wrapped: the title ends with its
	# help hint, the header with the last CPU's column, and the key line
	# is the 24th.
	screen | sed -n 1p | grep -qE '\? help$' || fail "title: $(screen | sed -n 1p)"
	last=$(($(nproc --all) - 1))
	screen | grep -E '^EVENT ' | grep -qE "cpu$last/s\$" || fail "header: $(screen | grep '^EVENT')"
	[ "$(screen | sed -n 24p)" = "q quit  s sort  space on/off  j/k move  ? help" ] ||
		fail "line 24: $(screen | sed -n 24p)"
	keys q
	poll screen_has "top-exit=0"
}

@test "the total of raw_syscalls:sys_enter rises by at least the syscalls made" {
	start_tui -e raw_syscalls:sys_enter -d 0.2
	poll screen_has "raw_syscalls:sys_enter"
	before=$(total_of raw_syscalls:sys_enter)
	# 2000 writes of one byte each are 2000 syscalls at least.
	dd if=/dev/zero of=/dev/null bs=1 count=2000 status=none
	TOTAL=$((before + 2000))
	rises() { [ "$(total_of raw_syscalls:sys_enter)" -ge "$TOTAL" ]; }
	poll rises
	keys q
	poll screen_has "top-exit=0"
}

@test "s cycles the sort through rate, name and total" {
	start_tui -e raw_syscalls:sys_enter -e ftrace:print -d 0.2
	# Sorted by rate, the busy syscall row comes before the idle marker.
	busy_first() {
		screen | grep -E 'ftrace:print|raw_syscalls:sys_enter' | head -n1 | grep -q raw_syscalls
	}
	poll busy_first
	screen_has "sort: rate"
	keys s
	poll screen_has "sort: name"
	first=$(screen | grep -E 'ftrace:print|raw_syscalls:sys_enter' | head -n1)
	[[ $first == *ftrace:print* ]]
	keys s
	poll screen_has "sort: total"
	poll busy_first
	keys s
	poll screen_has "sort: rate"
	keys q
	poll screen_has "top-exit=0"
}

@test "space switches the selected event off and on in tracefs; j/k move" {
	start_tui -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -d 0.2
	enter="$(inst_dir)/events/raw_syscalls/sys_enter/enable"
	exit_="$(inst_dir)/events/raw_syscalls/sys_exit/enable"
	[ "$(cat "$enter")" = 1 ]
	[ "$(cat "$exit_")" = 1 ]
	keys s
	poll screen_has "sort: name"
	# The selection starts on the first row: sys_enter; j moves down.
	keys j Space
	poll screen_has "[ ] raw_syscalls:sys_exit"
	[ "$(cat "$exit_")" = 0 ]
	[ "$(cat "$enter")" = 1 ]
	screen_has "[x] raw_syscalls:sys_enter"
	# Off means off: its rate falls to zero while sys_enter keeps counting.
	zero_rate() { screen | grep -q 'raw_syscalls:sys_exit  *0\.0 '; }
	poll zero_rate
	keys k Space
	poll screen_has "[ ] raw_syscalls:sys_enter"
	[ "$(cat "$enter")" = 0 ]
	keys Space Down Space
	poll screen_has "[x] raw_syscalls:sys_exit"
	[ "$(cat "$enter")" = 1 ]
	[ "$(cat "$exit_")" = 1 ]
	keys q
	poll screen_has "top-exit=0"
}

@test "an event without an enable file says so instead of switching" {
	start_tui -e ftrace:print -d 0.2
	keys Space
	poll screen_has "'ftrace:print' has no switch"
	screen_has "[x] ftrace:print"
	keys q
	poll screen_has "top-exit=0"
}

# stop_cleanly HOW...: stop ktrace top with HOW; it exits 0, the shell
# is back and works, its instance is gone.
stop_cleanly() {
	local dir
	start_tui -e ftrace:print -d 0.2
	dir=$(inst_dir)
	[ -d "$dir" ]
	"$@"
	poll screen_has "top-exit=0"
	screen_lacks "RATE/s"
	[ ! -d "$dir" ]
	keys "echo after-$BATS_TEST_NUMBER" Enter
	poll screen_has "after-$BATS_TEST_NUMBER"
}

@test "q restores the terminal and removes the instance" {
	stop_cleanly keys q
}

@test "SIGTERM restores the terminal and removes the instance" {
	term_top() { kill -TERM "$TOP_PID"; }
	stop_cleanly term_top
}

@test "Ctrl-C restores the terminal and removes the instance" {
	stop_cleanly keys C-c
}

@test "a terminal resize redraws to the new size" {
	start_tui -e ftrace:print -d 0.2
	# The key line is the last of the screen, whatever its height.
	footer_on() { [ "$(screen | wc -l)" -eq "$1" ] && screen | sed -n "$1p" | grep -q "q quit"; }
	poll footer_on 24
	tmux -L "$SOCK" resize-window -x 100 -y 30
	poll footer_on 30
	tmux -L "$SOCK" resize-window -x 60 -y 16
	poll footer_on 16
	[ "$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m }')" -le 60 ]
	# Far too small for the table, with the help open: clipped, alive.
	tmux -L "$SOCK" resize-window -x 12 -y 3
	keys '?'
	tmux -L "$SOCK" resize-window -x 80 -y 24
	poll footer_on 24
	keys q
	poll screen_has "top-exit=0"
}

@test "a terminal that cannot address its cursor gets text" {
	tmux -L "$SOCK" new-session -d -x 80 -y 24 \
		"env PS1='kt-prompt\$ ' bash --norc --noprofile"
	poll screen_has 'kt-prompt$'
	keys "TERM=dumb $KTRACE top -e ftrace:print -d 0.1 -n 1; echo top-exit=\$?" Enter
	poll screen_has "top-exit=0"
	screen_has "cannot use the terminal (TERM=dumb); printing text"
	screen_has "EVENT "
}

@test "a terminal without libncursesw gets text and one line naming its package" {
	# ncurses is loaded when the screen is drawn (lib/base/cursesfns.h),
	# not linked: here its file reads as /dev/null, in a mount namespace
	# of the command's own.
	local nc
	nc=$(ldconfig -p | awk '$1 == "libncursesw.so.6" && /x86-64/ { print $NF; exit }')
	[ -n "$nc" ] || fail "no libncursesw.so.6 in ldconfig -p"
	nc=$(readlink -f "$nc")
	tmux -L "$SOCK" new-session -d -x 250 -y 24 \
		"env PS1='kt-prompt\$ ' bash --norc --noprofile"
	poll screen_has 'kt-prompt$'
	keys "unshare -m sh -c 'mount --bind /dev/null $nc && exec $KTRACE top -e ftrace:print -d 0.1 -n 1'; echo top-exit=\$?" Enter
	poll screen_has "top-exit=0"
	screen_has "cannot load the terminal library: "
	screen_has "install libncursesw6; printing text"
	screen_lacks "cannot use the terminal"
	screen_has "EVENT "
}

@test "? shows the keys and any key closes the help" {
	start_tui -e ftrace:print -d 0.2
	keys '?'
	poll screen_has "ktrace top keys"
	keys x
	poll screen_lacks "ktrace top keys"
	keys q
	poll screen_has "top-exit=0"
}

@test "batch: mmap and read() paths, both walkers, count the same N events" {
	for mode in mmap read mmap-kbuffer read-kbuffer; do
		case $mode in
		read*) export KTRACE_NO_MMAP=1 ;;
		*) unset KTRACE_NO_MMAP ;;
		esac
		case $mode in
		*kbuffer) export KTRACE_TOP_KBUFFER=1 ;;
		*) unset KTRACE_TOP_KBUFFER ;;
		esac
		start_batch --batch -e ftrace:print -d 0.1
		dir=$(inst_dir)
		markers 300 "$(inst_dir)" kt-top-
		TOTAL=300
		poll total_is ftrace:print "$WORK/out"
		grep -q "instance ktrace-$TOP_PID (${mode%-kbuffer})" "$WORK/out"
		kill -TERM "$TOP_PID"
		wait "$TOP_PID"
		[ ! -d "$dir" ]
	done
	unset KTRACE_NO_MMAP KTRACE_TOP_KBUFFER
}

@test "not on a terminal: text tables, -n N stops after N intervals" {
	run "$KTRACE" top -e ftrace:print -d 0.1 -n 3
	assert_success
	[ "$(grep -c '^ktrace top: instance ktrace-' <<<"$output")" -eq 3 ]
	[ "$(grep -c '^EVENT ' <<<"$output")" -eq 3 ]
	assert_output --partial "lost: overrun 0  dropped 0  missed 0"
	assert_output --partial "cpu0 fill"
	# No terminal escapes in text mode.
	! grep -q $'\e' <<<"$output"
}

@test "a reader that goes away (| head) ends it quietly with status 0" {
	# Without noticing, it would run on forever: timeout says 124.
	run timeout 20 bash -c "'$KTRACE' top -e ftrace:print -d 0.05 2>'$WORK/err' | head -n 3 >/dev/null; exit \${PIPESTATUS[0]}"
	assert_success
	[ ! -s "$WORK/err" ]
	! pgrep -f "$KTRACE top -e ftrace:print -d 0.05"
}

@test "--batch prints text even on a terminal" {
	tmux -L "$SOCK" new-session -d -x 80 -y 24 \
		"env PS1='kt-prompt\$ ' bash --norc --noprofile"
	poll screen_has 'kt-prompt$'
	keys "$KTRACE top --batch -e ftrace:print -d 0.1 -n 2; echo top-exit=\$?" Enter
	poll screen_has "top-exit=0"
	# -J joins lines the terminal wrapped.
	[ "$(tmux -L "$SOCK" capture-pane -p -J | grep -c 'sample [12], sort rate')" -eq 2 ]
}

@test "-B watches an existing instance, leaves it and puts its events back" {
	inst=$(kt_test_instance)
	mkdir "$TRACEFS/instances/$inst"
	dir="$TRACEFS/instances/$inst"
	[ "$(cat "$dir/events/raw_syscalls/sys_enter/enable")" = 0 ]
	"$KTRACE" top -B "$inst" -e ftrace:print -e raw_syscalls:sys_enter --batch -d 0.1 \
		>"$WORK/out" 2>"$WORK/err" &
	TOP_PID=$!
	enabled() { [ "$(cat "$dir/events/raw_syscalls/sys_enter/enable")" = 1 ]; }
	poll enabled
	poll test -s "$WORK/out"
	grep -q "instance $inst " "$WORK/out"
	markers 40 "$dir" kt-top-
	TOTAL=40
	poll total_is ftrace:print "$WORK/out"
	kill -TERM "$TOP_PID"
	wait "$TOP_PID"
	[ -d "$dir" ]
	[ ! -d "$TRACEFS/instances/ktrace-$TOP_PID" ]
	[ "$(cat "$dir/events/raw_syscalls/sys_enter/enable")" = 0 ]
}

# small_instance: a -B instance whose buffer holds a few hundred events.
small_instance() {
	inst=$(kt_test_instance)
	dir="$TRACEFS/instances/$inst"
	mkdir "$dir"
	echo 8 >"$dir/buffer_size_kb"
}

# overflow [N [CPU]]: with ktrace top stopped, N (2000) markers from CPU
# (0) overflow the small buffer; it must account for every one of them.
overflow() {
	kill -STOP "$TOP_PID"
	taskset -c "${2:-0}" bash -c "for ((i = 0; i < ${1:-2000}; i++)); do echo kt-loss-\$i > '$dir/trace_marker'; done"
	kill -CONT "$TOP_PID"
}

@test "batch: every event is either counted or shown lost, on both paths" {
	for mode in mmap read; do
		if [ $mode = read ]; then export KTRACE_NO_MMAP=1; else unset KTRACE_NO_MMAP; fi
		small_instance
		# The shell truncates out only when the child runs: without
		# this, the poll below can see the last mode's output.
		rm -f "$WORK/out"
		"$KTRACE" top -B "$inst" -e ftrace:print --batch -d 0.1 >"$WORK/out" 2>"$WORK/err" &
		TOP_PID=$!
		poll test -s "$WORK/out"
		overflow
		n=$(grep -c '^ktrace top:' "$WORK/out")
		more() { [ "$(grep -c '^ktrace top:' "$WORK/out")" -ge $((n + 3)) ]; }
		poll more
		kill -TERM "$TOP_PID"
		wait "$TOP_PID"
		last=$(grep '^rate ' "$WORK/out" | tail -n 1)
		total=$(awk '{ print $4 }' <<<"$last")
		overrun=$(awk '{ print $7 }' <<<"$last")
		missed=$(awk '{ print $11 }' <<<"$last")
		echo "$mode: $last" >&2
		[ "$overrun" -gt 0 ]
		[ $((total + overrun)) -eq 2000 ]
		[ "$missed" -eq "$overrun" ]
		grep -q "events were lost: overrun $overrun" "$WORK/err"
		rmdir "$dir"
	done
	unset KTRACE_NO_MMAP
}

@test "lost events turn the header red" {
	small_instance
	# No job-control shell to scribble on the screen while ktrace top is
	# stopped, and ktrace top not the pane's own process, which tmux
	# would continue at once.
	tmux -L "$SOCK" new-session -d -x 80 -y 24 \
		"sh -c 'echo \$\$ > $WORK/pid; exec $KTRACE top -B $inst -e ftrace:print -d 0.1'; :"
	poll test -s "$WORK/pid"
	TOP_PID=$(cat "$WORK/pid")
	poll screen_has "lost: overrun 0"
	! tmux -L "$SOCK" capture-pane -p -e | grep -q $'\e\[31m'
	# On the last CPU, whose cell is the rightmost: over 10000 lost, so
	# its counts are as wide as they get, and still shown whole.
	last=$(($(nproc --all) - 1))
	overflow 12000 "$last"
	poll screen_lacks "lost: overrun 0"
	tmux -L "$SOCK" capture-pane -p -e | grep -q $'\e\[31mlost: overrun'
	poll sh -c "tmux -L $SOCK capture-pane -p | grep -qE 'cpu$last +fill +[0-9]+%  ovr [0-9.]+k drp [0-9.k]+ mis [0-9.]+k'" ||
		fail "cpu$last's cell is cut: $(screen | grep -E '^cpu')"
	keys q
	poll sh -c "! kill -0 $TOP_PID 2>/dev/null"
	[ -d "$dir" ]
}

@test "-B without -e watches the events the instance has on" {
	inst=$(kt_test_instance)
	mkdir "$TRACEFS/instances/$inst"
	dir="$TRACEFS/instances/$inst"
	echo 1 >"$dir/events/sched/sched_switch/enable"
	run "$KTRACE" top -B "$inst" --batch -d 0.1 -n 1
	assert_success
	assert_output --partial "sched:sched_switch"
	refute_output --partial "raw_syscalls"
	[ "$(cat "$dir/events/sched/sched_switch/enable")" = 1 ]
	[ -d "$dir" ]
	refute_output --partial "tracing off"
	# A paused instance says so rather than showing puzzling zeros.
	echo 0 >"$dir/tracing_on"
	run "$KTRACE" top -B "$inst" --batch -d 0.1 -n 1
	assert_success
	assert_output --partial ", tracing off"
	[ "$(cat "$dir/tracing_on")" = 0 ]
}

@test "-B of an instance with nothing enabled and no -e fails cleanly" {
	inst=$(kt_test_instance)
	mkdir "$TRACEFS/instances/$inst"
	run "$KTRACE" top -B "$inst" --batch -n 1
	assert_failure 1
	assert_output --partial "instance '$inst' has no events enabled; name some with -e"
	[ -d "$TRACEFS/instances/$inst" ]
}

@test "-B of a missing instance fails with status 1" {
	run "$KTRACE" top -B "kt-test-$$-no-such" --batch -n 1
	assert_failure 1
	assert_output --partial "no instance 'kt-test-$$-no-such'"
	run "$KTRACE" top -B "a/b" --batch -n 1
	assert_failure 1
	assert_output --partial "bad instance name 'a/b'"
	run "$KTRACE" top -B "" --batch -n 1
	assert_failure 64
}

@test "an unknown event fails with status 1 and leaves no instance" {
	"$KTRACE" top -e sched:no_such_event --batch -n 1 >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 1 ]
	grep -q "unknown event 'sched:no_such_event'" "$WORK/err"
	[ ! -d "$TRACEFS/instances/ktrace-$pid" ]
}

@test "bad -d, -n, -b, -b with -B and stray arguments are usage errors" {
	run "$KTRACE" top -d 0 --batch
	assert_failure 64
	assert_output --partial "bad interval '0'"
	run "$KTRACE" top -d abc --batch
	assert_failure 64
	run "$KTRACE" top -n 0 --batch
	assert_failure 64
	assert_output --partial "bad iteration count '0'"
	run "$KTRACE" top sched
	assert_failure 64
	run "$KTRACE" top -b 4 --batch
	assert_failure 64
	assert_output --partial "bad buffer size '4'"
	run "$KTRACE" top -b -5 --batch
	assert_failure 64
	run "$KTRACE" top -b 1024 -B somewhere --batch
	assert_failure 64
	assert_output --partial "with -B, set the size of 'somewhere' itself"
}

@test "default events are sched, irq and raw_syscalls" {
	run "$KTRACE" top --batch -d 0.1 -n 1
	assert_success
	assert_output --partial "sched:sched_switch"
	assert_output --partial "irq:irq_handler_entry"
	assert_output --partial "raw_syscalls:sys_enter"
}
