#!/usr/bin/env bats
# ktrace.ko in the command line, on a kernel without the module (this
# host cannot load modules; tests/vm/guest-cli.sh covers it loaded):
# ktrace: events are a clear error, bare classic names are ftrace's,
# --backend module refuses to start, and nothing is left behind.

load helpers

setup() {
	INST=$(kt_test_instance)
	I="$TRACEFS/instances/$INST"
	if [ -e /sys/module/ktrace ]; then
		fail "ktrace.ko is loaded here; these tests are for a kernel without it"
	fi
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	kt_cleanup_instances
}

@test "list: a ktrace: event without the module says it is not loaded and how to load it" {
	run ktrace list 'ktrace:*'
	assert_failure 1
	assert_output --partial "'ktrace:*' is an event of ktrace.ko, which is not loaded"
	assert_output --partial "insmod ktrace.ko"
	run ktrace list ktrace:sched_schedule
	assert_failure 1
	assert_output --partial "not loaded"
}

@test "list: a bare classic name is ftrace's equivalent without the module" {
	run ktrace list sched_schedule
	assert_success
	assert_output "sched:sched_switch"
	run ktrace list syscall_entry
	assert_success
	assert_output "raw_syscalls:sys_enter"
	run ktrace list --backend ftrace sched_schedule
	assert_success
	assert_output "sched:sched_switch"
}

@test "list: no ktrace system without the module" {
	run ktrace list systems
	assert_success
	refute_line ktrace
	run ktrace list
	assert_success
	refute_output --partial "ktrace:"
}

@test "--backend module without the module fails before doing anything" {
	for c in list enable; do
		run ktrace "$c" --backend module sched_schedule
		assert_failure 1
		assert_output --partial "--backend module needs ktrace.ko, which is not loaded"
	done
	run ktrace record --backend module -o m.dat -- true
	assert_failure 1
	assert_output --partial "--backend module needs ktrace.ko"
	[ ! -e m.dat ]
}

@test "--backend takes only ftrace or module" {
	for c in list enable record; do
		run ktrace "$c" --backend lttng sched_schedule
		assert_failure 64
		assert_output --partial "unknown backend 'lttng'; give 'ftrace' or 'module'"
	done
}

@test "--backend ftrace leaves ktrace: events out, and says so" {
	run ktrace list --backend ftrace ktrace:sched_schedule
	assert_failure 1
	assert_output --partial "--backend ftrace leaves it out"
}

@test "enable: a ktrace: event without the module changes nothing" {
	run ktrace enable -B "$INST" sched:sched_wakeup ktrace:syscall_entry
	assert_failure 1
	assert_output --partial "'ktrace:syscall_entry' is an event of ktrace.ko, which is not loaded"
	[ ! -d "$I" ] || [ "$(cat "$I/events/sched/sched_wakeup/enable")" = 0 ]
}

@test "enable: a bare classic name enables ftrace's event without the module" {
	run ktrace enable -B "$INST" sched_schedule
	assert_success
	assert_output "enabled sched:sched_switch in new instance '$INST'"
	[ "$(cat "$I/events/sched/sched_switch/enable")" = 1 ]
}

@test "record: a ktrace: event without the module leaves no file and no instance" {
	run ktrace record -o k.dat -e sched:sched_switch -e ktrace:sched_schedule -- sh -c 'echo $$ >pid'
	assert_failure 1
	assert_output --partial "'ktrace:sched_schedule' is an event of ktrace.ko, which is not loaded"
	[ ! -e k.dat ]
	[ ! -e pid ] || fail "the command ran"
	ls -a | grep -q 'k.dat' && fail "a temporary file was left: $(ls -a)"
	true
}

@test "record: a bare classic name records ftrace's event without the module" {
	run ktrace record -q -o c.dat -e sched_schedule -- sleep 0.01
	assert_success
	run trace-cmd report -i c.dat
	assert_success
	assert_output --partial "sched_switch:"
	refute_output --partial "sched_schedule"
}

@test "stat: no ktrace.ko section without the module" {
	run ktrace stat
	assert_success
	refute_output --partial "ktrace.ko"
	run ktrace stat -j
	assert_success
	refute_output --partial '"module"'
}

@test "record's merge of two CPU streams keeps every record, in time order (pages-merge check)" {
	kt_build_units
	# Two recordings at the same time: overlapping pages of two kinds,
	# in v6 files, whose CPU data lies in them as the unit reads it.
	# A task on each CPU makes system calls and switches all along, so
	# that each CPU has records of both kinds however quiet the machine
	# (ktrace leaves its own threads out).
	busy=()
	for cpu in 0 1; do
		timeout 1.5 taskset -c "$cpu" sh -c 'while :; do dd if=/dev/zero of=/dev/null bs=1 count=2000 2>/dev/null; done' &
		busy+=($!)
	done
	ktrace record -q --file-version 6 -o a.dat -e sched:sched_switch -s 1 &
	ktrace record -q --file-version 6 -o b.dat -e raw_syscalls:sys_enter -s 1
	wait $!
	wait "${busy[@]}" || true	# timeout's 124
	for cpu in 0 1; do
		set -- $(trace-cmd dump -i a.dat --flyrecord 2>/dev/null | awk "/cpu $cpu\]/ {print \$1, \$2}") \
			$(trace-cmd dump -i b.dat --flyrecord 2>/dev/null | awk "/cpu $cpu\]/ {print \$1, \$2}")
		[ $# = 4 ] || fail "no flyrecord of cpu $cpu"
		run "$UNIT/pages-merge" a.dat "$1" "$2" b.dat "$3" "$4"
		echo "$output"
		assert_success
		assert_line ok
		# Both inputs had records: the check compared real streams.
		[[ "$output" =~ ^a\ [1-9][0-9]*\ b\ [1-9][0-9]*\ merged ]] || fail "an empty input: $output"
	done
}

@test "ktrace.ko's ring cursor read()s whole pages where its ioctls answer ENOTTY (modring-fallback check)" {
	kt_build_units
	run "$UNIT/modring-fallback"
	echo "$output"
	assert_success
	assert_output "ok 6 pages"
}
