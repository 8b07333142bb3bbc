#!/usr/bin/env bats
# record's actions on each snapshot (issue 28): --on-trigger CMD, run
# without a shell with the snapshot in its environment, and --push URL,
# each snapshot into a real ClickHouse server (clickhouse.bash: as
# nobody, on loopback ports, in a temporary directory removed on every
# path) with a row of its own in `snapshots`.  The snapshots here are
# `ktrace snapshot`'s (the external condition, "snapshot"), which go to
# the actions as a --trigger's do; the recording holds marks
# (ftrace:print) written into its instance, so that each snapshot is a
# different file.  The registry is the test's own ($KTRACE_RUN_DIR).

load helpers
load clickhouse

bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	export KTRACE_RUN_DIR="$BATS_TEST_TMPDIR/run"
	pid=
}

teardown() {
	cd /
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids" INT
	ch_stop "${CH:-}"
}

# started ARGS...: ktrace record -q -e ftrace:print ARGS... in the
# background (KTRACE_EVENT and KTRACE_SUPPRESSED set, for the hooks to
# see replaced), until SIGINT; $pid once it is in the registry.
started() {
	env --default-signal=INT KTRACE_EVENT=inherited KTRACE_SUPPRESSED=99 \
		"$KTRACE" record -q -e ftrace:print "$@" 2>"$BATS_TEST_TMPDIR/rec.err" &
	pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	for _ in $(seq 1000); do
		[ -e "$KTRACE_RUN_DIR/$pid" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	fail "ktrace record $* never started: $(cat "$BATS_TEST_TMPDIR/rec.err")"
}

# stop: SIGINT to the recording, its status 0 (it waits for its hooks
# and its pushes, bounded).
stop() {
	kill -INT "$pid"
	wait "$pid" || fail "ktrace record exited $?: $(cat "$BATS_TEST_TMPDIR/rec.err")"
}

# mark TAG N: N marks "TAG 1".."TAG N" into the recording's instance.
mark() {
	local i
	for ((i = 1; i <= $2; i++)); do
		echo "$1 $i" >"$TRACEFS/instances/ktrace-$pid/trace_marker"
	done
}

# snap FILE: a snapshot into FILE, its one line printed.
snap() {
	run -0 "$KTRACE" snapshot "$pid" -o "$1"
	[[ $output == "snapshot '$PWD/$1': "* ]] || fail "snapshot $1: $output"
}

# appears FILE [TENTHS]: FILE exists within TENTHS tenths of a second (300).
appears() {
	for _ in $(seq "${2:-300}"); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	fail "no $1 after $((${2:-300} / 10)) s: $(cat "$BATS_TEST_TMPDIR/rec.err")"
}

# The six variables a hook gets, sorted, from `env`.
VARS='^KTRACE_(SNAPSHOT|CONDITION|TIME|FIRE_TS|EVENT|SUPPRESSED)='

@test "--on-trigger: CMD's words as written, the snapshot's path, condition, time and trace time in its environment" {
	cat >hook <<-'EOF'
	#!/bin/sh
	{ echo "argc=$#"; for a in "$@"; do echo "arg=$a"; done; env | grep -E '^KTRACE_(SNAPSHOT|CONDITION|TIME|FIRE_TS|EVENT|SUPPRESSED)=' | sort; } >"$KTRACE_SNAPSHOT.env.tmp"
	mv "$KTRACE_SNAPSHOT.env.tmp" "$KTRACE_SNAPSHOT.env"
	EOF
	chmod +x hook
	# Quotes group, nothing expands: $HOME and * are characters.
	local cmd t0 t1 k ts last fire prev=0
	cmd=$(cat <<-'EOF'
	./hook 'a b' "c \"d\"" $HOME * back\ slash
	EOF
	)
	t0=$(date +%s)
	started -o rec.dat --on-trigger "$cmd"
	for k in 1 2; do
		mark "m$k" 20
		snap "s$k.dat"
		appears "s$k.dat.env"
	done
	stop
	t1=$(date +%s)
	for k in 1 2; do
		run cat "s$k.dat.env"
		assert_line -n 0 "argc=5"
		assert_line -n 1 "arg=a b"
		assert_line -n 2 'arg=c "d"'
		assert_line -n 3 'arg=$HOME'
		assert_line -n 4 'arg=*'
		assert_line -n 5 'arg=back slash'
		assert_line -n 6 "KTRACE_CONDITION=snapshot"
		assert_line -n 7 "KTRACE_EVENT="
		assert_line -n 8 --regexp '^KTRACE_FIRE_TS=[1-9][0-9]*$'
		assert_line -n 9 "KTRACE_SNAPSHOT=$PWD/s$k.dat"
		assert_line -n 10 "KTRACE_SUPPRESSED=0"
		assert_line -n 11 --regexp '^KTRACE_TIME=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z$'
		[ "${#lines[@]}" -eq 12 ] || fail "more in the environment: $output"
		# The time: UTC, within the run.
		ts=$(date -u -d "$(sed -n 's/^KTRACE_TIME=\(.*\)\.[0-9]*Z$/\1/p' "s$k.dat.env") UTC" +%s)
		[ "$ts" -ge "$t0" ] && [ "$ts" -le "$t1" ] || fail "KTRACE_TIME $ts not in [$t0, $t1]"
		# The trace time: at or after the snapshot's last event, after the one before.
		fire=$(sed -n 's/^KTRACE_FIRE_TS=//p' "s$k.dat.env")
		last=$("$KTRACE" report -i "s$k.dat" --format json | jq -r 'select(.ts != null) | .ts' | sort -n | tail -n 1)
		[ -n "$last" ] && [ "$fire" -ge "$last" ] || fail "KTRACE_FIRE_TS $fire before the last event $last of s$k.dat"
		[ "$fire" -gt "$prev" ] || fail "KTRACE_FIRE_TS $fire not after $prev"
		prev=$fire
	done
	# Nothing on stderr: the hooks succeeded.
	[ ! -s rec.err ] || fail "stderr: $(cat rec.err)"
}

@test "--on-trigger: data that looks like shell code is never run (a path, CMD's words, an event's task)" {
	mkdir -p bin
	printf '#!/bin/sh\necho "$@" >>"%s/words"\n' "$PWD" >bin/words
	chmod +x bin/words
	# A careless hook: its data unquoted, in sh -c.
	started -e sched:sched_switch -o rec.dat --on-trigger "sh -c 'echo \$KTRACE_SNAPSHOT \"\$KTRACE_EVENT\" >>seen; $PWD/bin/words \"\$@\"' hook \$(touch pwned-word) \`touch pwned-tick\`"
	# A task named like a command substitution writes a mark.
	python3 -c 'import sys
open("/proc/self/comm", "w").write("$(touch pwned)")
open(sys.argv[1], "w").write("$(touch pwned-mark)\n")' "$TRACEFS/instances/ktrace-$pid/trace_marker"
	run -0 "$KTRACE" snapshot "$pid" -o '$(touch pwned-path).dat'
	appears seen
	appears words
	stop
	run "$KTRACE" report -i rec.dat
	assert_output --partial ' $(touch pwned)-'
	assert_output --partial 'tracing_mark_write: $(touch pwned-mark)'

	run cat seen
	assert_output "$PWD/\$(touch pwned-path).dat "
	run cat words
	assert_output '$(touch pwned-word) `touch pwned-tick`'
	for f in pwned pwned-mark pwned-path pwned-word pwned-tick; do
		[ ! -e "$f" ] || fail "'$f' was made: data ran"
	done
}

@test "--on-trigger with a --trigger: the firing event, a task named \$(touch pwned), reaches the hook as text only" {
	"$KTRACE" record --help | grep -q -- '--trigger' || skip "record has no --trigger yet"
	mkdir d
	env --default-signal=INT "$KTRACE" record -q -e ftrace:print -o d \
		--trigger 'event ftrace:print' --before 1s --after 100ms \
		--on-trigger "sh -c 'echo \"\$KTRACE_CONDITION|\$KTRACE_EVENT\" >>$PWD/events; echo \$KTRACE_EVENT >>$PWD/events'" \
		2>rec.err &
	pid=$!
	echo "$pid" >>ktrace.pids
	for _ in $(seq 1000); do
		[ "$(cat "$TRACEFS/instances/ktrace-$pid/tracing_on" 2>/dev/null)" = 1 ] && break
		sleep 0.01
	done
	python3 -c 'import sys
open("/proc/self/comm", "w").write("$(touch pwned)")
open(sys.argv[1], "w").write("$(touch pwned-mark)\n")' "$TRACEFS/instances/ktrace-$pid/trace_marker"
	appears events 600
	stop
	grep -qF 'event ftrace:print|' events || fail "no condition: $(cat events)"
	grep -qF '$(touch pwned' events || fail "no firing event: $(cat events)"
	[ ! -e pwned ] && [ ! -e pwned-mark ] || fail "the event's data ran"
}

@test "--on-trigger: a hook that fails, or is not found: one line each, the recording goes on and ends well" {
	started -o rec.dat --on-trigger false
	mark a 10
	snap s1.dat
	mark b 10
	snap s2.dat
	stop
	run grep -c "^ktrace record: warning: --on-trigger 'false' for '$PWD/s[12].dat' exited with status 1; the recording goes on$" rec.err
	assert_output 2
	[ "$(grep -c . rec.err)" -eq 2 ] || fail "more on stderr: $(cat rec.err)"

	started -o rec2.dat --on-trigger "$PWD/no-such-hook arg"
	mark c 10
	snap s3.dat
	stop
	run cat rec.err
	assert_output "ktrace record: warning: cannot run --on-trigger '$PWD/no-such-hook' for '$PWD/s3.dat': command not found; the recording goes on"
	[ -s rec2.dat ] && [ -s s3.dat ]
}

@test "--on-trigger: at most 4 at once, the others skipped and said; the end stops those still running after 10 s" {
	started -e sched:sched_switch -o rec.dat --on-trigger "sh -c 'echo \$\$ >>$PWD/pids; exec sleep 3141'"
	local k
	for k in 1 2 3 4 5; do
		mark "m$k" 5
		snap "s$k.dat"
	done
	stop
	run cat rec.err
	assert_line -n 0 "ktrace record: warning: --on-trigger: 4 hooks still running; not run for '$PWD/s5.dat' (1 skipped so far)"
	assert_line -n 1 "ktrace record: warning: --on-trigger: 4 hook(s) still running after 10 s; stopping them"
	assert_line -n 2 "ktrace record: warning: --on-trigger: 1 snapshot(s) got no hook: 4 were running already"
	[ "${#lines[@]}" -eq 3 ] || fail "more on stderr: $output"
	# The four were started and are gone.
	[ "$(wc -l <pids)" -eq 4 ] || fail "hooks started: $(cat pids)"
	while read -r p; do
		! kill -0 "$p" 2>/dev/null || fail "hook $p still runs"
	done <pids
}

@test "--on-trigger, --push: bad values are usage errors, and neither goes with --remote or an agent" {
	run -64 "$KTRACE" record --on-trigger "sh -c 'x" -o x.dat
	assert_output --partial "bad --on-trigger 'sh -c 'x': a ' is not closed; quote a word with '...' or \"...\""
	run -64 "$KTRACE" record --on-trigger "  " -o x.dat
	assert_output --partial "bad --on-trigger '  ': it names no command"
	run -64 "$KTRACE" record --push localhost:8123 -o x.dat
	assert_output --partial "bad --push 'localhost:8123'; give http://HOST:PORT[/DATABASE]"
	run -64 "$KTRACE" record --push http://127.0.0.1:1 --remote 127.0.0.1:1 -o x.dat
	assert_output --partial "--remote and --push conflict"
	run -64 "$KTRACE" record --on-trigger true --recover x.dat
	assert_output --partial "--recover takes only FILE"
	[ ! -e x.dat ]
}

# ch_halt DIR: stop its server, its data kept.  ch_resume DIR: start it again.
ch_halt() {
	local p i
	p=$(cat "$1/pid")
	kill -TERM "$p"
	for i in $(seq 300); do
		kill -0 "$p" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$p"
}

ch_resume() {
	local i
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		clickhouse-server --config-file="$1/config.xml" >>"$1/log/out" 2>&1 &
	echo $! >"$1/pid"
	for i in $(seq 600); do
		[ "$(curl -s "http://127.0.0.1:$(cat "$1/http_port")/ping")" = "Ok." ] && return 0
		sleep 0.1
	done
	fail "clickhouse-server in $1 did not start again: $(cat "$1/log/err.log")"
}

# pushed N: the server holds N snapshots rows, within 60 s.
pushed() {
	local n
	for _ in $(seq 600); do
		n=$(chq "$CH" "SELECT count() FROM $DB.snapshots" 2>/dev/null) || n=
		[ "$n" = "$1" ] && return 0
		sleep 0.1
	done
	fail "snapshots: '$n' rows, not $1: $(cat "$BATS_TEST_TMPDIR/rec.err")"
}

# each_once FILE...: each file's trace and snapshots row is there once,
# with as many events as the file holds, as ktrace sql counts them.
each_once() {
	local f id n c
	for f in "$@"; do
		run chq "$CH" "SELECT trace_id FROM $DB.snapshots WHERE path = '$PWD/$f'"
		[ "${#lines[@]}" -eq 1 ] || fail "$f: ${#lines[@]} snapshots rows: $output"
		id=$output
		run chq "$CH" "SELECT count() FROM $DB.traces WHERE trace_id = $id"
		assert_output 1
		n=$("$KTRACE" sql -i "$f" --format csv "select count(*) from events" | tail -n 1)
		c=$(chq "$CH" "SELECT count() FROM $DB.events WHERE trace_id = $id")
		[ "$n" -gt 0 ] && [ "$n" = "$c" ] || fail "$f: sql $n events, clickhouse $c"
	done
}

@test "--push: each snapshot once, with its snapshots row, across a server stopped and started again mid-run" {
	ch_start CH "$(ch_port)" "$(ch_port)"
	DB=snaps
	local url=http://127.0.0.1:$(cat "$CH/http_port")/$DB k
	started -o rec.dat --push "$url"
	for k in 1 2 3; do
		mark "m$k" 30
		snap "s$k.dat"
	done
	pushed 3
	# Down: the snapshots wait on disk, the recording goes on.
	ch_halt "$CH"
	for k in 4 5; do
		mark "m$k" 30
		snap "s$k.dat"
	done
	ch_resume "$CH"
	mark m6 30
	snap s6.dat
	pushed 6
	stop
	each_once s1.dat s2.dat s3.dat s4.dat s5.dat s6.dat
	run chq "$CH" "SELECT count(), uniqExact(trace_id), uniqExact(path) FROM $DB.snapshots"
	assert_output "6	6	6"
	run chq "$CH" "SELECT count() FROM $DB.traces"
	assert_output 6
	# The row: host, condition, an empty firing event, the time in the run.
	run chq "$CH" "SELECT DISTINCT host, condition, fire_event, suppressed FROM $DB.snapshots"
	assert_output "$(uname -n)	snapshot		0"
	run chq "$CH" "SELECT count() FROM $DB.snapshots WHERE abs(toInt64(toUnixTimestamp(time)) - intDiv(wall_ts, 1000000000)) > 0 OR time < now() - 600"
	assert_output 0
	# Down said once, back said once; nothing left.
	run grep -c "cannot push snapshot '.*' to 127.0.0.1:.*; trying again in the background, the snapshots kept on disk" rec.err
	[ "$output" -ge 1 ] || fail "no line for the server down: $(cat rec.err)"
	grep -q "the server answers again" rec.err || fail "no line for the server back: $(cat rec.err)"
	! grep -q "not pushed" rec.err || fail "$(cat rec.err)"
}

@test "--push: a server down to the end: the snapshots not pushed named in one line with the command that pushes them" {
	local port url k
	port=$(ch_port)
	url=http://127.0.0.1:$port/late
	started -o rec.dat --push "$url"
	for k in 1 2; do
		mark "m$k" 20
		snap "s$k.dat"
	done
	stop
	run grep "not pushed" rec.err
	assert_output "ktrace record: warning: --push: 2 snapshot(s) not pushed to '$url' within 10 s; push them later with: ktrace push -i '$PWD/s1.dat' -i '$PWD/s2.dat' --to $url"
	# That command, once a server is there: each trace once.
	ch_start CH "$port" "$(ch_port)"
	DB=late
	run -0 "$KTRACE" push -q -i "$PWD/s1.dat" -i "$PWD/s2.dat" --to "$url"
	run chq "$CH" "SELECT count(), uniqExact(trace_id) FROM $DB.traces"
	assert_output "2	2"
}
