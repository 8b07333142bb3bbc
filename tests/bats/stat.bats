#!/usr/bin/env bats
# ktrace stat: the live state, checked against the tracefs files it
# reads.  Each test sets up its own instance; tracing is switched off in
# it before stat runs so the numbers hold still while both are read.

load helpers

setup() {
	INST=$(kt_test_instance)
	D=$TRACEFS/instances/$INST
	OURS=$TRACEFS/instances/ktrace-99999$$
}

teardown() {
	[ -n "${HOLDER:-}" ] && kill "$HOLDER" 2>/dev/null && wait "$HOLDER" 2>/dev/null
	rm -rf "${HOLD_DIR:-/nonexistent}"
	[ -d "${FAKE:-/nonexistent}" ] && rmdir "$FAKE"
	[ -d "$OURS" ] && rmdir "$OURS"
	kt_cleanup_instances
}

# overrun DIR: a 4 KB buffer flooded with markers, then tracing off.
overrun() {
	echo 4 > "$1/buffer_size_kb"
	echo 1 > "$1/events/sched/sched_switch/enable"
	local i
	for i in $(seq 3000); do
		echo "stat test marker $i, long enough to fill a page quickly"
	done > "$1/trace_marker"
	echo 0 > "$1/tracing_on"
}

# stat_field DIR CPU FIELD: a number from per_cpu/cpuN/stats.
stat_field() {
	sed -n "s/^$3: *//p" "$1/per_cpu/cpu$2/stats"
}

ncpus() {
	ls -d "$TRACEFS"/per_cpu/cpu* | wc -l
}

@test "stat -B shows tracing, tracer, clock, events with filters and buffer size" {
	mkdir "$D"
	echo 64 > "$D/buffer_size_kb"
	echo global > "$D/trace_clock"
	echo 1 > "$D/events/sched/sched_switch/enable"
	echo 'prev_pid != 0' > "$D/events/sched/sched_switch/filter"
	echo 1 > "$D/events/sched/sched_wakeup/enable"
	echo 0 > "$D/tracing_on"
	run ktrace stat -B "$INST"
	assert_success
	assert_line "instance $INST"
	assert_line --regexp '^  tracing +off$'
	assert_line --regexp '^  tracer +nop$'
	assert_line --regexp '^  clock +global$'
	assert_line --regexp "^  buffer +$(cat "$D/buffer_size_kb") KB per CPU, $(ncpus) CPUs$"
	assert_line --regexp '^  events +2 enabled$'
	assert_line '    sched:sched_switch  if prev_pid != 0'
	assert_line '    sched:sched_wakeup'
	refute_output --partial LOST
}

@test "stat shows each CPU's entries and reads as per_cpu stats has them" {
	mkdir "$D"
	echo 'one marker' > "$D/trace_marker"
	echo 'two markers' > "$D/trace_marker"
	echo 0 > "$D/tracing_on"
	run ktrace stat -B "$INST"
	assert_success
	for cpu in $(seq 0 $(($(ncpus) - 1))); do
		e=$(stat_field "$D" "$cpu" entries)
		r=$(stat_field "$D" "$cpu" 'read events')
		assert_line --regexp "^  $cpu +$e +0 +0 +0 +$r +[0-9]+$"
	done
	total=$(cat "$D"/per_cpu/cpu*/stats | awk '/^entries:/ { s += $2 } END { print s }')
	[ "$total" -ge 2 ]
	assert_line --regexp "^  all +$total "
}

@test "stat flags an overrun as LOST with the kernel's count" {
	mkdir "$D"
	overrun "$D"
	run ktrace stat -B "$INST"
	assert_success
	lost=0
	for cpu in $(seq 0 $(($(ncpus) - 1))); do
		o=$(stat_field "$D" "$cpu" overrun)
		lost=$((lost + o))
		if [ "$o" -gt 0 ]; then
			assert_line --regexp "^  $cpu +[0-9]+ +$o +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+  LOST$"
		fi
	done
	[ "$lost" -gt 0 ] || fail "the 4 KB buffer did not overrun"
	assert_line --regexp "^  LOST  $lost events lost on cpu [0-9, ]+: $lost overwritten"
}

@test "stat --json reports the same numbers (checked with jq)" {
	mkdir "$D"
	echo 1 > "$D/events/sched/sched_switch/enable"
	echo 'prev_pid != 0' > "$D/events/sched/sched_switch/filter"
	overrun "$D"
	run ktrace stat -B "$INST" --json
	assert_success
	json=$output
	[ "$(jq -r '.instances | length' <<<"$json")" = 1 ]
	[ "$(jq -r '.instances[0].name' <<<"$json")" = "$INST" ]
	[ "$(jq -r '.instances[0].tracing_on' <<<"$json")" = false ]
	[ "$(jq -r '.instances[0].tracer' <<<"$json")" = nop ]
	[ "$(jq -r '.instances[0].buffer_size_kb' <<<"$json")" = "$(cat "$D/buffer_size_kb")" ]
	[ "$(jq -r '.instances[0].events[0] | "\(.system):\(.name) \(.filter)"' <<<"$json")" = \
	  "sched:sched_switch prev_pid != 0" ]
	lost=0
	for cpu in $(seq 0 $(($(ncpus) - 1))); do
		for f in entries overrun; do
			[ "$(jq -r ".instances[0].cpus[$cpu].$f" <<<"$json")" = "$(stat_field "$D" "$cpu" $f)" ] ||
				fail "cpu $cpu $f differs"
		done
		[ "$(jq -r ".instances[0].cpus[$cpu].commit_overrun" <<<"$json")" = "$(stat_field "$D" "$cpu" 'commit overrun')" ]
		[ "$(jq -r ".instances[0].cpus[$cpu].dropped" <<<"$json")" = "$(stat_field "$D" "$cpu" 'dropped events')" ]
		lost=$((lost + $(stat_field "$D" "$cpu" overrun)))
	done
	[ "$lost" -gt 0 ]
	[ "$(jq -r '.instances[0].lost' <<<"$json")" = "$lost" ]
	[ "$(jq -r '.instances[0].total.overrun' <<<"$json")" = "$lost" ]
}

@test "plain stat shows a ktrace-* instance with its overrun" {
	mkdir "$OURS"
	overrun "$OURS"
	o=$(cat "$OURS"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s }')
	[ "$o" -gt 0 ]
	run ktrace stat
	assert_success
	assert_line "top-level buffer"
	assert_line "instance ktrace-99999$$ (left behind; 'ktrace reset -a' removes it)"
	assert_line --regexp "^  LOST  $o events lost"
	run ktrace stat --json
	assert_success
	[ "$(jq -r ".instances[] | select(.name == \"ktrace-99999$$\") | .lost" <<<"$output")" = "$o" ]
	[ "$(jq -r '.instances[0].name' <<<"$output")" = null ]
}

@test "plain stat marks the instance of a running ktrace as such" {
	HOLD_DIR=$(mktemp -d)
	cp /bin/sleep "$HOLD_DIR/ktrace"
	"$HOLD_DIR/ktrace" 1000 &
	HOLDER=$!
	FAKE=$TRACEFS/instances/ktrace-$HOLDER
	mkdir "$FAKE"
	run ktrace stat
	assert_success
	assert_line "instance ktrace-$HOLDER (a running ktrace: $HOLD_DIR/ktrace 1000)"
	run ktrace stat --json
	[ "$(jq -r ".instances[] | select(.name == \"ktrace-$HOLDER\") | .owner_running" <<<"$output")" = true ]
	[ "$(jq -r ".instances[] | select(.name == \"ktrace-$HOLDER\") | .owner_pid" <<<"$output")" = "$HOLDER" ]
	[ "$(jq -r ".instances[] | select(.name == \"ktrace-$HOLDER\") | .owner_cmdline" <<<"$output")" = "$HOLD_DIR/ktrace 1000" ]
}

@test "plain stat names the other instances in one hint line" {
	mkdir "$D"
	run ktrace stat
	assert_success
	assert_line --regexp "^other instances: .*$INST"
	refute_line "instance $INST"
	run ktrace stat --json
	jq -e ".other_instances | index(\"$INST\")" <<<"$output"
}

@test "stat colours LOST only on a terminal" {
	mkdir "$D"
	overrun "$D"
	run ktrace stat -B "$INST"
	assert_output --partial LOST
	refute_output --partial $'\033['
	run script -qec "'$KTRACE' stat -B '$INST'" /dev/null
	assert_output --partial $'\033[1;31mLOST'
	run env NO_COLOR=1 script -qec "'$KTRACE' stat -B '$INST'" /dev/null
	refute_output --partial $'\033['
}

@test "stat -B of a missing instance fails in one line and creates nothing" {
	run ktrace stat -B "$INST"
	assert_failure 1
	assert_output "ktrace stat: no instance '$INST'; see 'ls $TRACEFS/instances'"
	[ ! -d "$D" ]
}

@test "stat -i of a clean recording says no events lost" {
	f=$BATS_TEST_TMPDIR/clean.dat
	"$KTRACE" record -q -o "$f" -e sched:sched_switch -- sleep 0.1
	run ktrace stat -i "$f"
	assert_success
	assert_output --partial "no events lost"
	# The same summary with the file as a plain argument, and as JSON.
	run ktrace stat "$f"
	assert_success
	assert_output --partial "no events lost"
	run bash -c "'$KTRACE' stat -i '$f' --json | jq -e . >/dev/null"
	assert_success
}

@test "stat -i of a lossy recording names the loss that trace-cmd also sees" {
	f=$BATS_TEST_TMPDIR/lossy.dat
	run "$KTRACE" record -q -o "$f" -b 4 -e 'raw_syscalls:*' -e 'sched:*' -- \
		dd if=/dev/zero of=/dev/null bs=1 count=300000
	run ktrace stat -i "$f"
	assert_success
	assert_output --regexp '[1-9][0-9]*\+? events lost on'
	refute_output --partial "no events lost"
	# trace-cmd, the oracle, sees overrun in the stats ktrace stored.
	run trace-cmd report -i "$f" --stat
	assert_output --regexp 'overrun: [1-9]'
}

@test "stat -i of a missing file fails in one line; of a damaged one exits 2" {
	run ktrace stat -i "$BATS_TEST_TMPDIR/none.dat"
	assert_failure 1
	assert_output --partial "none.dat"
	[ "${#lines[@]}" -eq 1 ]
	printf 'not a trace file at all' >"$BATS_TEST_TMPDIR/bad.dat"
	run ktrace stat -i "$BATS_TEST_TMPDIR/bad.dat"
	assert_failure 2
}

@test "stat -i with -B is a usage error; two files are chunks of one recording (series.bats)" {
	run ktrace stat -i a.dat -B x
	assert_failure 64
	run ktrace stat a.dat b.dat
	assert_failure 1
	assert_output --partial "cannot open 'a.dat'"
}

@test "stat as a user without tracefs access fails in one line" {
	run as_nobody "$KTRACE" stat
	assert_failure 1
	assert_output --partial "Permission denied; run as root"
	[ "$(printf '%s\n' "$output" | wc -l)" = 1 ]
}

@test "a recording's CPUSTAT text: the kernel's lines as they are, its counters every source's" {
	kt_build_units
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' 'entries: 3' 'overrun: 1' 'commit overrun: 0' 'bytes: 4096' \
		'oldest event ts:  1234.000001' 'now ts:  1250.500000' 'odd line' \
		'dropped events: 0' >in
	# The last line without its newline.
	printf 'read events: 7' >>in
	# entries overrun commit_overrun bytes dropped read
	"$UNIT/cpustat-merge" 30 10 2 99 5 70 <in >out 2>parse
	run cat parse
	assert_output 'entries=3 overrun=1 commit_overrun=0 bytes=4096 oldest_ts=1234.000001 now_ts=1250.500000 dropped=0 read=7'
	# bytes is the instance's own: the module's records are not in it.
	printf '%s\n' 'entries: 30' 'overrun: 10' 'commit overrun: 2' 'bytes: 4096' \
		'oldest event ts:  1234.000001' 'now ts:  1250.500000' 'odd line' \
		'dropped events: 5' 'read events: 70' >want
	cmp out want
}

@test "a recording's CPUSTAT text with the kernel's own counters is the kernel's text, byte for byte" {
	kt_build_units
	mkdir "$D"
	overrun "$D"
	for cpu in $(seq 0 $(($(ncpus) - 1))); do
		cat "$D/per_cpu/cpu$cpu/stats" >"$BATS_TEST_TMPDIR/cpu$cpu"
		"$UNIT/cpustat-merge" <"$BATS_TEST_TMPDIR/cpu$cpu" >"$BATS_TEST_TMPDIR/out$cpu" 2>/dev/null
		cmp "$BATS_TEST_TMPDIR/cpu$cpu" "$BATS_TEST_TMPDIR/out$cpu"
	done
}
