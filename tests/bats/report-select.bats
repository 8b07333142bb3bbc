#!/usr/bin/env bats
# ktrace report's selection language (lib/decode/select.c) beyond the
# text: --stat of a selection, counted by hand from the lines trace-cmd
# and report print; and -o OUT.dat, the selected events as a trace.dat v6
# that trace-cmd reads back line for line.  On the stored corpus
# (tests/data), so nothing is recorded here.

load helpers

# libtraceevent leaks inside tep_parse_event() on formats it half parses.
export LSAN_OPTIONS=suppressions=$TOP/tests/lsan-libtraceevent.supp

DATA=$TOP/tests/data
LOST=$DATA/tc-v7-lost.dat

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Sum of the counted "[N EVENTS DROPPED]" marks in report text on stdin,
# "+" after it when some mark has no count.
drops() {
	awk '/EVENTS DROPPED\]/ { if (match($0, /\[[0-9]+ /)) n += substr($0, RSTART + 1, RLENGTH - 2); else u = 1 }
	     END { printf "%d%s\n", n, u ? "+" : "" }'
}

@test "--stat without a selection prints no selection lines" {
	run "$KTRACE" report -i "$LOST" --stat
	assert_success
	refute_line --partial "selection:"
	refute_line --partial "losses:"
	assert_line --partial "16480+ events lost on 2 CPUs"
}

@test "--stat -e --cpu: the counts of the selected events, the losses of the selected CPU" {
	local n lost
	# By hand, from trace-cmd: CPU 1's sched_switch lines and its marks.
	trace-cmd report -i "$LOST" 2>/dev/null >tc.txt
	n=$(grep -c '\[001\] .* sched_switch:' tc.txt)
	lost=$(grep 'CPU:1 ' tc.txt | drops)
	[ "$n" -gt 10 ] && [ "$lost" = 4753+ ]
	run "$KTRACE" report -i "$LOST" --stat -e sched_switch --cpu 1
	assert_success
	assert_line "selection: -e sched_switch --cpu 1"
	assert_line "losses: those of the CPUs shown, over the whole recording"
	assert_line --partial "a lost event has no name"
	# One CPU row: events, and the marks' loss beside the record-time stats.
	assert_line --regexp "^kt-corpus-[0-9-]+ +1 +$n +[0-9]+ +${lost%+}\\+ +7507 +0 +0\$"
	refute_line --regexp "^kt-corpus-[0-9-]+ +0 "
	assert_line --regexp "^sched:sched_switch +$n +$n "
	refute_line --regexp "^kmem:"
	# Overrun 7507 is more than the marks count: the verdict takes it.
	assert_line --partial "7507+ events lost on CPU 1"
}

@test "--stat --from --to: the marks inside the window count, and it says so" {
	local n lost sel=(--from 0.05 --to 0.075)
	"$KTRACE" report -i "$LOST" "${sel[@]}" >all.txt
	n=$(grep -c ' sched_switch:' all.txt)
	lost=$(drops <all.txt)
	[ "$n" -gt 10 ] && [ "$lost" = 1495+ ]
	run "$KTRACE" report -i "$LOST" --stat "${sel[@]}"
	assert_success
	assert_line "selection: --from 0.05 --to 0.075"
	assert_line --regexp "^window: 3137\.709706 to 3137\.734706\$"
	assert_line --partial "losses: the lost-event marks inside the window"
	assert_line "lost-event marks in the window:"
	assert_line --regexp "^sched:sched_switch +$n "
	assert_line --partial "$lost events lost in the window on 2 CPUs"
	# The same selection as JSON; every count adds up to the text's lines.
	run "$KTRACE" report -i "$LOST" --stat "${sel[@]}" --format json
	assert_success
	echo "$output" | jq -e --argjson n "$n" --argjson all "$(grep -vc 'EVENTS DROPPED' all.txt)" '
		.selection == "--from 0.05 --to 0.075" and .losses == "window marks" and
		.lost == 1495 and
		([.events[] | select(.event == "sched_switch") | .total] == [$n]) and
		([.events[].total] | add) == $all and ([.cpus[].events] | add) == $all'
}

@test "--stat of a window with no loss in it says no events were lost there" {
	run "$KTRACE" report -i "$LOST" --stat --from 0.075
	assert_success
	"$KTRACE" report -i "$LOST" --from 0.075 | drops | grep -qx 0
	assert_line "no events lost in the window"
}

@test "--stat refuses a bad selection as report does" {
	run "$KTRACE" report -i "$LOST" --stat --from 1x
	[ "$status" = 64 ]
	assert_output --partial "bad --from '1x'"
	run "$KTRACE" report -i "$LOST" --stat -e sched_swich
	assert_failure 1
	assert_output --partial "did you mean 'sched:sched_switch'"
	run "$KTRACE" report -i "$LOST" --stat --head 3
	[ "$status" = 64 ]
}
