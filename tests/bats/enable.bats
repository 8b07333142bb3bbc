#!/usr/bin/env bats
# ktrace enable: effects checked in tracefs, in a private instance; one
# test touches the top-level buffer and puts back what it found.

load helpers

setup() {
	INST=$(kt_test_instance)
	I="$TRACEFS/instances/$INST"
}

teardown() {
	kt_cleanup_instances
	if [ -n "${UPROBES:-}" ]; then
		for p in $UPROBES; do
			echo "-:$p" >>"$TRACEFS/uprobe_events" || true
		done
	fi
}

ev() { # SYSTEM/EVENT FILE: the instance's file for that event
	cat "$I/events/$1/$2"
}

@test "enable turns an event on in a new instance and says so" {
	[ ! -d "$I" ]
	top_before=$(cat "$TRACEFS/events/sched/sched_switch/enable")
	run ktrace enable -B "$INST" sched:sched_switch
	assert_success
	assert_output "enabled sched:sched_switch in new instance '$INST'"
	[ "$(ev sched/sched_switch enable)" = 1 ]
	[ "$(ev sched/sched_wakeup enable)" = 0 ]
	[ "$(ev sched/sched_switch filter)" = none ]
	# The top-level buffer is not touched.
	[ "$(cat "$TRACEFS/events/sched/sched_switch/enable")" = "$top_before" ]
	run ktrace enable -B "$INST" sched_wakeup
	assert_success
	assert_output "enabled sched:sched_wakeup in instance '$INST'"
	[ "$(ev sched/sched_wakeup enable)" = 1 ]
}

@test "enable takes bare names, classic aliases and globs" {
	run ktrace enable -B "$INST" sched_schedule syscall_entry 'sched:sched_wakeup*'
	assert_success
	[ "$(ev sched/sched_switch enable)" = 1 ]
	[ "$(ev raw_syscalls/sys_enter enable)" = 1 ]
	[ "$(ev raw_syscalls/sys_exit enable)" = 0 ]
	for d in "$TRACEFS"/events/sched/sched_wakeup*/; do
		e=$(basename "$d")
		[ "$(ev sched/$e enable)" = 1 ] || fail "sched:$e not enabled"
	done
	[ "$(ev sched/sched_waking enable)" = 0 ]
	[ "$(ev sched/sched_process_exit enable)" = 0 ]
}

@test "an event named several ways is changed once" {
	run ktrace enable -B "$INST" sched_switch sched:sched_switch sched_schedule 'sched:sched_swi*'
	assert_success
	assert_output "enabled sched:sched_switch in new instance '$INST'"
	[ "$(ev sched/sched_switch enable)" = 1 ]
}

@test "enable -f sets the filter on every event before switching it on" {
	run ktrace enable -B "$INST" -f 'common_pid == 1' sched_switch sched_wakeup
	assert_success
	assert_output "enabled sched:sched_switch, sched:sched_wakeup with filter 'common_pid == 1' in new instance '$INST'"
	[ "$(ev sched/sched_switch filter)" = "common_pid == 1" ]
	[ "$(ev sched/sched_wakeup filter)" = "common_pid == 1" ]
	[ "$(ev sched/sched_switch enable)" = 1 ]
	[ "$(ev sched/sched_wakeup enable)" = 1 ]
	# -f '' clears the filter and leaves the event on.
	run ktrace enable -B "$INST" -f '' sched_switch
	assert_success
	[ "$(ev sched/sched_switch filter)" = none ]
	[ "$(ev sched/sched_switch enable)" = 1 ]
}

@test "enable -d turns events off and clears their filters" {
	ktrace enable -B "$INST" -f 'prev_pid == 1' sched_switch
	ktrace enable -B "$INST" sched_wakeup
	run ktrace enable -d -B "$INST" sched_switch
	assert_success
	assert_output "disabled sched:sched_switch in instance '$INST'"
	[ "$(ev sched/sched_switch enable)" = 0 ]
	[ "$(ev sched/sched_switch filter)" = none ]
	[ "$(ev sched/sched_wakeup enable)" = 1 ]
	run ktrace enable -d -B "$INST" 'sched:*'
	assert_success
	assert_output --regexp "^disabled [0-9]+ events in instance '$INST'$"
	[ "$(ev sched/sched_wakeup enable)" = 0 ]
	[ "$(cat "$I/events/sched/enable")" = 0 ]
}

@test "an unknown event fails with a suggestion and changes nothing" {
	run ktrace enable -B "$INST" sched_wakeup sched_swich
	assert_failure 1
	assert_output "ktrace enable: unknown event 'sched_swich'; did you mean 'sched:sched_switch'?"
	[ ! -d "$I" ] || fail "instance $INST was created"
	# With the instance there, the good event before the bad one stays off.
	mkdir "$I"
	run ktrace enable -B "$INST" sched_wakeup sched_swich
	assert_failure 1
	[ "$(ev sched/sched_wakeup enable)" = 0 ]
}

@test "every unknown event is reported, each on its own line" {
	run ktrace enable -B "$INST" sched_swich no_such_event_kt_xyzzy '*no_such_kt*'
	assert_failure 1
	assert_line --index 0 "ktrace enable: unknown event 'sched_swich'; did you mean 'sched:sched_switch'?"
	assert_line --index 1 "ktrace enable: unknown event 'no_such_event_kt_xyzzy'; see 'ktrace list'"
	assert_line --index 2 "ktrace enable: no event matches '*no_such_kt*'; see 'ktrace list events'"
	assert_equal "${#lines[@]}" 3
	[ ! -d "$I" ]
}

@test "a misspelt alias is suggested too" {
	run ktrace enable -B "$INST" sched_shcedule
	assert_failure 1
	assert_output "ktrace enable: unknown event 'sched_shcedule'; did you mean 'sched_schedule'?"
}

@test "a bad filter prints the kernel's reason in one line and removes the new instance" {
	run ktrace enable -B "$INST" -f 'prev_pidd == 1' sched_switch
	assert_failure 1
	assert_equal "${#lines[@]}" 1
	assert_output --regexp "^ktrace enable: the kernel rejects filter 'prev_pidd == 1' for 'sched:sched_switch': Field not found \(column [0-9]+\); nothing was changed; see 'ktrace list --fields sched:sched_switch'$"
	[ ! -d "$I" ] || fail "instance $INST left behind"
}

@test "the kernel's error_log is read in one place: its reason, column and word (errlog-parse check)" {
	kt_build_units
	run "$UNIT/errlog-parse"
	echo "$output"
	assert_success
	assert_output "ok"
}

@test "a bad filter on the second event rolls back the first, as it was" {
	mkdir "$I"
	echo 'next_pid == 7' >"$I/events/sched/sched_switch/filter"
	echo 1 >"$I/events/sched/sched_switch/enable"
	# prev_pid fits sched_switch, not sched_wakeup: switch is changed first.
	run ktrace enable -B "$INST" -f 'prev_pid == 1' sched_switch sched_wakeup
	assert_failure 1
	assert_output --partial "the kernel rejects filter 'prev_pid == 1' for 'sched:sched_wakeup': Field not found"
	# The message is the kernel's own, from the instance's error_log.
	kmsg=$(grep -o 'error: [^:]*$' "$I/error_log" | tail -n 1 | sed 's/^error: //')
	[ -n "$kmsg" ]
	assert_output --partial "': $kmsg (column"
	[ "$(ev sched/sched_switch filter)" = "next_pid == 7" ]
	[ "$(ev sched/sched_switch enable)" = 1 ]
	[ "$(ev sched/sched_wakeup filter)" = none ]
	[ "$(ev sched/sched_wakeup enable)" = 0 ]
	[ -d "$I" ] || fail "an instance the command did not create was removed"
}

@test "a filter rejected by one event of a glob leaves every event as it was" {
	mkdir "$I"
	run ktrace enable -B "$INST" -f 'prev_pid == 1' 'sched:*'
	assert_failure 1
	assert_output --partial "the kernel rejects filter 'prev_pid == 1'"
	for f in "$I"/events/sched/*/enable; do
		[ "$(cat "$f")" = 0 ] || fail "$f left on"
	done
	for f in "$I"/events/sched/*/filter; do
		[ "$(cat "$f")" = none ] || fail "$f left as '$(cat "$f")'"
	done
}

@test "an ambiguous bare name fails, naming each candidate" {
	# No event name is in two systems on this kernel: make one with two
	# uprobe groups (nothing is probed until they are enabled).
	local a="kt_amb_$$_a" b="kt_amb_$$_b" name="kt_dup_$$"
	echo "p:$a/$name /bin/true:0x0" >>"$TRACEFS/uprobe_events"
	UPROBES="$a/$name"
	echo "p:$b/$name /bin/true:0x0" >>"$TRACEFS/uprobe_events"
	UPROBES="$UPROBES $b/$name"
	run ktrace enable -B "$INST" "$name"
	assert_failure 1
	assert_output "ktrace enable: ambiguous event '$name'; name one: '$a:$name' or '$b:$name'"
	[ ! -d "$I" ]
	# list shows both instead of failing.
	run ktrace list events "$name"
	assert_success
	assert_output "$a:$name
$b:$name"
}

@test "events the tracers write cannot be switched on" {
	run ktrace enable -B "$INST" ftrace:function
	assert_failure 1
	assert_output "ktrace enable: 'ftrace:function' cannot be switched on: a tracer writes it; see 'ktrace list tracers'"
	run ktrace enable -B "$INST" 'ftrace:*'
	assert_failure 1
	assert_output --partial "'ftrace:*' names no event that can be switched on"
	[ ! -d "$I" ]
}

@test "a system name switches on every event of the system" {
	run ktrace enable -B "$INST" timer
	assert_success
	n=$(find "$TRACEFS/events/timer" -mindepth 1 -maxdepth 1 -type d | wc -l)
	assert_output "enabled $n events in new instance '$INST'"
	[ "$(cat "$I/events/timer/enable")" = 1 ]
}

@test "a signal during the change undoes it: nothing changed, no instance" {
	mkdir "$I"
	echo 1 >"$I/events/sched/sched_waking/enable"
	# SIGINT blocked and already pending when ktrace starts (both survive
	# exec): it arrives before the first event is changed, every time.
	run perl -MPOSIX -e 'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGINT)); kill INT => $$; exec @ARGV' \
		"$KTRACE" enable -B "$INST" sched_switch sched_wakeup
	assert_failure 1
	assert_output "ktrace enable: interrupted; nothing was changed"
	[ "$(ev sched/sched_switch enable)" = 0 ]
	[ "$(ev sched/sched_wakeup enable)" = 0 ]
	[ "$(ev sched/sched_waking enable)" = 1 ]
	rmdir "$I"
	run perl -MPOSIX -e 'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGTERM)); kill TERM => $$; exec @ARGV' \
		"$KTRACE" enable -B "$INST" -f 'common_pid == 1' sched_switch
	assert_failure 1
	[ ! -d "$I" ] || fail "the instance this run created was left behind"
}

@test "enable -d of a missing instance fails and creates nothing" {
	run ktrace enable -d -B "$INST" sched_switch
	assert_failure 1
	assert_output "ktrace enable: no instance '$INST'; see 'ls $TRACEFS/instances'"
	[ ! -d "$I" ]
}

@test "an instance name with a slash is refused" {
	run ktrace enable -B "a/$INST" sched_switch
	assert_failure 1
	assert_output "ktrace enable: bad instance name 'a/$INST'; a name is not empty and has no '/'"
}

@test "enable usage errors exit 64" {
	run ktrace enable -B "$INST"
	assert_failure 64
	assert_output --partial "name at least one EVENT"
	run ktrace enable -d -f 'prev_pid == 1' -B "$INST" sched_switch
	assert_failure 64
	assert_output --partial "-d and -f conflict"
	run ktrace enable --frobnicate sched_switch
	assert_failure 64
	[ ! -d "$I" ]
}

@test "enable as a user who cannot write tracefs fails with one line" {
	run as_nobody "$KTRACE" enable -B "$INST" sched_switch
	assert_failure 1
	assert_output "ktrace enable: cannot write tracefs: Permission denied; run as root (or with CAP_SYS_ADMIN and write access to /sys/kernel/tracing)"
	[ ! -d "$I" ]
}

@test "without -B the top-level buffer is changed (state saved and restored)" {
	local e="$TRACEFS/events/vsyscall/emulate_vsyscall"
	local was_on was_filter
	was_on=$(cut -c1 "$e/enable")
	was_filter=$(cat "$e/filter")
	run ktrace enable -f 'common_pid == 1' vsyscall:emulate_vsyscall
	st=$status
	got_on=$(cat "$e/enable")
	got_filter=$(cat "$e/filter")
	# Put back what was there before asserting anything.
	if [ "$was_filter" = none ]; then echo 0 >"$e/filter"; else echo "$was_filter" >"$e/filter"; fi
	echo "$was_on" >"$e/enable"
	[ "$st" -eq 0 ]
	assert_output "enabled vsyscall:emulate_vsyscall with filter 'common_pid == 1' in the top-level buffer"
	[ "$got_on" = 1 ]
	[ "$got_filter" = "common_pid == 1" ]
	[ "$(cut -c1 "$e/enable")" = "$was_on" ]
}

@test "bash completes event names for enable, after the colon too" {
	run complete_words ktrace enable sched : sched_swi
	assert_success
	assert_output "sched_switch"
	run complete_words ktrace enable sched :
	assert_success
	[ "${#lines[@]}" -eq "$(ktrace list events 'sched:*' | wc -l)" ]
	assert_line sched_wakeup
	run complete_words ktrace enable -B "$INST" sched_sch
	assert_success
	assert_output "sched_schedule"
}

@test "bash completes event names after -e" {
	run complete_words ktrace record -e sched : sched_wak
	assert_success
	assert_output "sched_wake_idle_without_ipi
sched_wakeup
sched_wakeup_new
sched_waking"
	run complete_words ktrace record -e syscall_e
	assert_success
	assert_output "syscall_entry
syscall_exit"
	run complete_words ktrace list --fields sched : sched_switc
	assert_success
	assert_output "sched_switch"
}
