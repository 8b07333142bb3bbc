#!/usr/bin/env bats
# The report formatter (lib/decode/fastfmt.c): the info text of every event it
# compiles must be byte for byte what libtraceevent (trace-cmd report's
# formatter) prints, on live events and on synthetic ones, and it must
# not read outside a truncated or corrupted record.  The checker is built
# with ASan+UBSan; leak detection is off because libtraceevent's own
# parser leaks a few bytes.
# check.sh: ASan-built only (the checker is; scripts/check.sh's ASan pass
# leaves this file out).

load helpers

CHECK=$UNIT/fastfmt-check

setup_file() {
	kt_build_units
}

teardown() {
	kt_cleanup_instances
}

check() {
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$CHECK" "$@"
}

# The frequent events a report must format fast.
REQUIRED="sched:sched_switch sched:sched_wakeup sched:sched_waking
	raw_syscalls:sys_enter raw_syscalls:sys_exit
	irq:softirq_entry irq:softirq_exit irq:softirq_raise
	timer:hrtimer_start timer:hrtimer_cancel timer:hrtimer_expire_entry
	kmem:kmalloc kmem:kfree kmem:kmem_cache_alloc kmem:kmem_cache_free
	kmem:mm_page_alloc kmem:mm_page_free
	block:block_rq_issue block:block_rq_complete
	net:net_dev_xmit net:netif_receive_skb
	syscalls:sys_enter_openat syscalls:sys_exit_openat
	syscalls:sys_enter_futex
	workqueue:workqueue_queue_work signal:signal_generate
	writeback:writeback_dirty_inode"

@test "report formatter: identical to libtraceevent on live events of many kinds" {
	local inst req=()
	inst=$(kt_test_instance)
	for e in $REQUIRED; do req+=(-r "$e"); done
	run check -i "$inst" "${req[@]}" -- "$TOP/tests/fastfmt-load.sh" 2
	assert_success
	assert_output --regexp 'total: [0-9]+ records, [0-9]+ event kinds .* 0 mismatches'
	# and the comms the sched plugin registers as it prints are the same
	assert_output --regexp 'comms: [0-9]+ pids .*, 0 differences'
	refute_output --partial MISMATCH
	refute_output --partial REQUIRED
	# no instance left behind, so the events are off again
	[ ! -d "$TRACEFS/instances/$inst" ]
}

@test "report formatter: identical to libtraceevent on kernel stacks (-T), frames named from kallsyms" {
	local inst
	inst=$(kt_test_instance)
	run check -T -i "$inst" -e sched -e raw_syscalls -r ftrace:kernel_stack \
		-- "$TOP/tests/fastfmt-load.sh" 1
	assert_success
	assert_output --regexp 'total: [0-9]+ records, [0-9]+ event kinds .* 0 mismatches'
	refute_output --partial MISMATCH
	refute_output --partial REQUIRED
}

@test "report formatter: most live event kinds are compiled, not left to libtraceevent" {
	local inst kinds compiled
	inst=$(kt_test_instance)
	run check -i "$inst" -e sched -e irq -e timer -e kmem -e raw_syscalls \
		-e block -e net -e workqueue -e signal -e task -- "$TOP/tests/fastfmt-load.sh" 1
	assert_success
	kinds=$(sed -n 's/.* records, \([0-9]*\) event kinds (\([0-9]*\) compiled).*/\1/p' <<<"$output")
	compiled=$(sed -n 's/.* records, \([0-9]*\) event kinds (\([0-9]*\) compiled).*/\2/p' <<<"$output")
	[ -n "$kinds" ] && [ "$kinds" -ge 20 ]
	# every kind of these systems compiles on this kernel
	[ "$compiled" -eq "$kinds" ] || fail "only $compiled of $kinds kinds compiled"
}

@test "report formatter: identical on synthetic and 300 random formats (printf specs, operators, flags, arrays)" {
	run check --synth 500
	assert_success
	assert_output --regexp 'synthetic: [0-9]+ formats, [0-9]+ compiled, 500 records each, 0 mismatches'
	# the formats it leaves to libtraceevent are the ones it must
	local fallbacks
	fallbacks=$(grep -c fallback <<<"$output")
	[ "$fallbacks" -le 3 ] || fail "$fallbacks synthetic formats not compiled"
}

@test "report formatter: the identity check notices a wrong byte" {
	run check --inject --synth 200
	assert_failure 1
	assert_output --partial "MISMATCH synthetic"
	inst=$(kt_test_instance)
	run check --inject -i "$inst" -e sched -e raw_syscalls -- "$TOP/tests/fastfmt-load.sh" 1
	assert_failure 1
	assert_output --partial "MISMATCH live"
}

@test "report formatter: nearly every event format of this kernel compiles" {
	run check --all
	assert_success
	local n ok
	n=$(sed -n 's/^all formats: \([0-9]*\) events, \([0-9]*\) compiled$/\1/p' <<<"$output")
	ok=$(sed -n 's/^all formats: \([0-9]*\) events, \([0-9]*\) compiled$/\2/p' <<<"$output")
	[ -n "$n" ] && [ "$n" -ge 100 ] || fail "no event formats read"
	# what is left: bprint, plugin handlers of rare events, printk pointers
	[ $((ok * 100)) -ge $((n * 95)) ] || fail "only $ok of $n formats compile"
}
