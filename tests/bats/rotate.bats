#!/usr/bin/env bats
# ktrace record --rotate: a series of complete trace.dat files in a
# directory, counted against a workload that counts itself (marks into
# the instance's trace_marker, one ftrace:print each): across every
# boundary each mark is in exactly one file, every file is read by
# trace-cmd on its own, --keep bounds the directory, a full disk and
# SIGKILL leave valid files, and memory stays flat over 500 rotations.

load helpers

bats_require_minimum_version 1.5.0

setup_file() {
	# marks N FILE [TAG [RATE]]: N numbered writes "TAG i" to FILE.
	export KT_ROT_BIN="$BATS_FILE_TMPDIR/bin"
	kt_tool marks "$KT_ROT_BIN"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	: >"$BATS_TEST_TMPDIR/ktrace.pids"
	top_events_before=$(cat "$TRACEFS/set_event")
}

teardown() {
	cd /
	umount_tmpfs
	assert_no_instances "$BATS_TEST_TMPDIR/ktrace.pids" INT
	[ "$(cat "$TRACEFS/set_event")" = "$top_events_before" ] ||
		fail "top-level set_event changed: $(cat "$TRACEFS/set_event")"
}

# The marks of one file, in the file's order.
marks_of() { # FILE
	trace-cmd report -i "$1" 2>/dev/null | sed -n 's/.*: mark \([0-9]*\)$/\1/p'
}

# ktrace record ARGS... in the background, as a foreground job starts
# (SIGINT not ignored); $pid once its instance records (tracing_on 1:
# ftrace:print is in no set_event, so rec_started's wait does not do).
started() {
	env --default-signal=INT "$KTRACE" record "$@" &
	pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	for _ in $(seq 500); do
		[ "$(cat "$TRACEFS/instances/ktrace-$pid/tracing_on" 2>/dev/null)" = 1 ] && return 0
		sleep 0.01
	done
	fail "ktrace record $* never started"
}

# The files of a series, in name order (time order).
chunks() { # DIR
	find "$1" -maxdepth 1 -name 'ktrace-[0-9][0-9][0-9][0-9][0-9][0-9].dat' | sort
}

# record_marks N RATE DIR [RECORD OPTIONS...]: N marks at RATE a second
# into DIR, record ending when they are written.
record_marks() {
	local n=$1 rate=$2 dir=$3
	shift 3
	rec -q "$@" -o "$dir" -b 1024 -e ftrace:print -- \
		sh -c 'exec "$0" "$1" /sys/kernel/tracing/instances/ktrace-$PPID/trace_marker mark "$2"' \
		"$KT_ROT_BIN/marks" "$n" "$rate"
}

# exact_series DIR N [MIN]: at least MIN files (2), each read by
# trace-cmd on its own; their marks, file after file, are 1..N in order
# with none twice; nothing hidden is left.
exact_series() {
	local dir=$1 n=$2 min=${3:-2} f count=0
	: >all
	for f in $(chunks "$dir"); do
		trace-cmd report -i "$f" >/dev/null 2>err || fail "trace-cmd cannot read $f: $(cat err)"
		marks_of "$f" >>all
		count=$((count + 1))
	done
	echo "# $count files, $(wc -l <all) marks" >&3
	[ "$count" -ge "$min" ] || fail "only $count files"
	[ "$(wc -l <all)" -eq "$n" ] || fail "$(wc -l <all) marks in the files, $n written"
	cmp -s all <(seq "$n") || fail "the marks are not 1..$n in order: $(sort -n all | uniq -d | head -3)"
	run ls -A "$dir"
	refute_output --partial ".part"
	refute_output --partial ".tmp-"
}

@test "--rotate SIZE: many files near SIZE, each read alone, every mark in exactly one" {
	# The fixed part (kallsyms, formats) is about 0.9 MB packed.
	run record_marks 300000 100000 d --rotate 1100K
	assert_success
	exact_series d 300000 4
	# Each but the last near SIZE (the size is looked at every 20 ms).
	for f in $(chunks d | head -n -1); do
		sz=$(stat -c %s "$f")
		[ "$sz" -gt $((1100 * 1024 * 8 / 10)) ] && [ "$sz" -lt $((1100 * 1024 * 13 / 10)) ] ||
			fail "$f is $sz bytes for --rotate 1100K"
	done
	# Each file has its own statistics, counted over its part.
	f=$(chunks d | sed -n 2p)
	run trace-cmd report -i "$f" --stat
	assert_output --partial "read events: "
	n=$(marks_of "$f" | wc -l)
	read_sum=$(trace-cmd report -i "$f" --stat 2>/dev/null | sed -n 's/^read events: //p' | paste -sd+ | bc)
	[ "$read_sum" -eq "$n" ] || fail "$f: read events $read_sum, $n marks in it"
	# What a cut left in the buffer is the next file's: not left, not lost.
	run "$KTRACE" stat -i "$f"
	assert_output --partial "no events lost"
	[ "$(awk '$1 == "top" { s += $NF } END { print s + 0 }' <<<"$output")" = 0 ] ||
		fail "entries left in a file before the last: $output"
}

@test "--rotate DURATION, v7 and v6: files every DURATION, every mark in exactly one" {
	run record_marks 40000 20000 d7 --rotate 200ms
	assert_success
	exact_series d7 40000 5
	run record_marks 40000 20000 d6 --rotate 200ms --file-version 6
	assert_success
	exact_series d6 40000 5
	[ "$(head -c 11 "$(chunks d6 | head -1)" | tail -c 1)" = 6 ] || fail "not a version 6 file"
}

@test "a cut reads each CPU's partly filled page once, though a recording of raw_syscalls feeds its own buffer as it reads" {
	run -0 strace -f -y -qq -e trace=read -e signal=none -o st.txt \
		env ASAN_OPTIONS="$(kt_asan_unleaked)" "$KTRACE" record -q --rotate 200ms -e raw_syscalls -o d -- sleep 2
	n=$(chunks d | wc -l)
	[ "$n" -ge 5 ] || fail "only $n files"
	raw_reads_check st.txt "$n"
	for f in $(chunks d); do
		trace-cmd report -i "$f" >/dev/null 2>err || fail "trace-cmd cannot read $f: $(cat err)"
	done
}

@test "a rotated directory read as one: report, stat, sql and analyze each count every mark once" {
	run record_marks 200000 100000 d --rotate 1100K
	assert_success
	nchunks=$(chunks d | wc -l)
	[ "$nchunks" -ge 3 ] || fail "only $nchunks files"
	# report: the marks 1..N in order, as the files one by one hold them.
	"$KTRACE" report -i d | sed -n 's/.*: mark \([0-9]*\)$/\1/p' >whole
	cmp -s whole <(seq 200000) || fail "report -i d: $(wc -l <whole) marks, not 1..200000 in order"
	# Several -i of the chunks, in any order, are the same series.
	args=()
	for f in $(chunks d | sort -r); do args+=(-i "$f"); done
	"$KTRACE" report "${args[@]}" | cmp - <("$KTRACE" report -i d)
	# stat: a row per chunk; the events of the whole.
	run "$KTRACE" stat -i d
	assert_success
	[ "$(grep -c 'ktrace-[0-9]*\.dat' <<<"$output")" -ge "$nchunks" ] || fail "not every chunk in stat: $output"
	assert_line --regexp '^ftrace:print +200000 '
	# sql and analyze ask the same question of the series.
	run "$KTRACE" sql -i d --format csv "select count(*) from print where buf like 'mark %'"
	assert_success
	assert_line --index 1 200000
}

@test "each chunk maps threads to their process: threads_n's 3 threads, running across chunks, one process in a chunk of the middle" {
	kt_tool threads_n "$KT_ROT_BIN" -lpthread
	# Each thread: 50 getppid, then 50 naps of 20 ms (1 s) across chunks of 200 ms.
	run -0 "$KTRACE" record -q --rotate 200ms -e raw_syscalls -e sched:sched_switch -o d -- \
		"$KT_ROT_BIN/threads_n" 3 50 20000
	nchunks=$(chunks d | wc -l)
	[ "$nchunks" -ge 4 ] || fail "only $nchunks files"
	mid=$(chunks d | sed -n 3p)
	output=$("$KTRACE" analyze sched -i "$mid" --by process --comm threads_n --format json 2>/dev/null) ||
		fail "analyze sched --by process $mid failed"
	jq -e '(.rows | length) == 1 and .rows[0].threads >= 3' <<<"$output" ||
		fail "$mid: not one process of 3 threads or more: $output"
}

@test "--keep N: at most N files, the newest; a new recording goes on after the highest number" {
	run record_marks 300000 100000 d --rotate 1100K --keep 2
	assert_success
	[ "$(chunks d | wc -l)" -eq 2 ] || fail "$(chunks d | wc -l) files kept"
	# The newest: their marks run to the last one, in order.
	: >kept
	for f in $(chunks d); do marks_of "$f" >>kept; done
	[ "$(tail -n 1 kept)" = 300000 ] || fail "the last mark is $(tail -n 1 kept)"
	first=$(head -n 1 kept)
	cmp -s kept <(seq "$first" 300000) || fail "the kept marks are not $first..300000"
	high=$(chunks d | tail -n 1 | sed 's/.*ktrace-0*\([0-9]*\)\.dat/\1/')
	[ "$high" -ge 4 ] || fail "only $high files written"
	# Again into d: numbers go on after the highest.
	run record_marks 10 1000 d --rotate 1100K --keep 2
	assert_success
	[ "$(chunks d | tail -n 1)" = "d/ktrace-$(printf %06d $((high + 1))).dat" ] ||
		fail "next file $(chunks d | tail -n 1) after $high"
	[ "$(marks_of "$(chunks d | tail -n 1)" | paste -sd' ')" = "$(seq 10 | paste -sd' ')" ]
}

@test "bad values: one line naming the value and the fix, exit 64, nothing made" {
	touch afile
	check() { # EXPECTED ARGS...
		local want=$1
		shift
		run "$KTRACE" record "$@" -- true
		assert_failure 64
		assert_line --index 0 "ktrace record: $want"
		[ ! -e out ] || fail "out made for $*"
	}
	check "bad --rotate '0': a chunk needs a size or a duration above zero, e.g. --rotate 64M or --rotate 10m" --rotate 0 -o out
	check "bad --rotate '5x'; give a size (64M: K, M or G) or a duration (10m: ms, s, m or h)" --rotate 5x -o out
	check "bad --rotate '64'; give a size (64M: K, M or G) or a duration (10m: ms, s, m or h)" --rotate 64 -o out
	check "--keep 3 goes with --rotate; e.g. --rotate 64M --keep 3" --keep 3 -o out
	check "bad --keep '0'; give how many files to keep, 1 or more, e.g. --keep 10" --rotate 1M --keep 0 -o out
	check "-o 'afile' is a file; --rotate writes its files into a directory: give -o DIR" --rotate 1M -o afile
	check "--rotate needs -o DIR, the directory its files go into (created if missing)" --rotate 1M
	check "--rotate writes files into a directory, not to standard output; give -o DIR" --rotate 1M -o -
	check "--rotate and --flight conflict; record without one of them" --rotate 1M --flight -o out
	check "--rotate and -m conflict; record without one of them" --rotate 1M -m 10 -o out
	[ ! -s afile ] || fail "afile written"
	[ -z "$(ls -d "$TRACEFS"/instances/ktrace-* 2>/dev/null)" ] || true
}

@test "SIGKILL: the finished files stay valid, --recover DIR rebuilds the one in progress" {
	started -q --rotate 1100K -o d -b 1024 -e ftrace:print
	"$KT_ROT_BIN/marks" 200000 "$TRACEFS/instances/ktrace-$pid/trace_marker" mark 100000
	kill -KILL "$pid"
	wait "$pid" || true
	for f in $(chunks d); do
		trace-cmd report -i "$f" >/dev/null 2>&1 || fail "$f not valid after SIGKILL"
	done
	before=$(chunks d | wc -l)
	run ls -A d
	assert_output --partial ".part.tmp-$pid"
	run "$KTRACE" record --recover d
	assert_success
	assert_output --regexp "recovered [0-9]+ file\(s\) in 'd' from pid $pid"
	# Its instance held the last marks: they are in the rebuilt file.
	rmdir "$TRACEFS/instances/ktrace-$pid"
	[ "$(chunks d | wc -l)" -gt "$before" ] || fail "no file rebuilt"
	exact_series d 200000 2
	run "$KTRACE" record --recover d
	assert_failure 1
	assert_output --partial "nothing to recover in 'd'"
}

@test "a full disk without --keep: recording stops, every finished file valid, one line says so with the events" {
	tmpfs_at mnt 6m
	run --separate-stderr record_marks 3000000 200000 mnt/d --rotate 1M
	assert_failure 1
	# One account: the files, the events in them, those not written, the
	# fix; no other line (the hidden file the cut hit is not named).
	grep -v '^marks: ' <<<"$stderr" >err || true
	[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
	grep -qE "^ktrace record: disk full: recording into 'mnt/d' stopped; its [0-9]+ files \([0-9]{6} to [0-9]{6}\) are complete and hold [0-9]+ events, [0-9]+ more were not written( \([0-9]+ of them lost in the kernel buffers\))?; free space, or use --keep N to drop the oldest$" err ||
		fail "not the one line: $(cat err)"
	[ "$(chunks mnt/d | wc -l)" -ge 2 ] || fail "$(chunks mnt/d | wc -l) files"
	held=0
	for f in $(chunks mnt/d); do
		trace-cmd report -i "$f" >/dev/null 2>&1 || fail "$f not valid"
		held=$((held + $(marks_of "$f" | wc -l)))
	done
	grep -q " hold $held events, " err || fail "the files hold $held marks: $(cat err)"
	# Every mark written is in a file or counted: the marks writer
	# stopped at its first refused write.
	written=$(sed -n 's/^marks: write \([0-9]*\) of .*/\1/p' <<<"$stderr")
	notw=$(sed -n 's/.* \([0-9]*\) more were not written.*/\1/p' err)
	[ -z "$written" ] || [ $((held + notw)) -eq $((written - 1)) ] ||
		fail "$held in the files + $notw not written != $((written - 1)) written"
	run ls -A mnt/d
	refute_output --partial ".part"
}

@test "a full disk with --keep: the oldest files go, recording goes on to the last mark" {
	tmpfs_at mnt 6m
	run record_marks 1500000 200000 mnt/d --rotate 1M --keep 100
	assert_success
	refute_output --partial "disk full"
	[ "$(basename "$(chunks mnt/d | head -1)")" != ktrace-000001.dat ] || fail "nothing removed"
	: >kept
	for f in $(chunks mnt/d); do
		trace-cmd report -i "$f" >/dev/null 2>&1 || fail "$f not valid"
		marks_of "$f" >>kept
	done
	first=$(head -n 1 kept)
	cmp -s kept <(seq "$first" 1500000) || fail "the kept marks are not $first..1500000"
}

@test "500 rotations: memory stays flat" {
	# Under ASan, freed memory waits in its quarantine (256 MB): none here.
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
		started -q --rotate 4K --keep 2 -o d -b 64 -e ftrace:print 2>err
	"$KT_ROT_BIN/marks" 100000000 "$TRACEFS/instances/ktrace-$pid/trace_marker" mark 50000 2>/dev/null &
	mpid=$!
	high() { chunks d | tail -n 1 | sed 's/.*ktrace-0*\([0-9]*\)\.dat/\1/'; }
	until [ "$(high)" -ge 50 ] 2>/dev/null; do
		kill -0 "$pid" || fail "ktrace exited: $(cat err)"
		sleep 0.1
	done
	early=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
	until [ "$(high)" -ge 550 ] 2>/dev/null; do
		kill -0 "$pid" || break
		sleep 0.2
	done
	late=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
	kill "$mpid"
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	echo "# VmRSS $early kB at file 50, $late kB at file $(high)" >&3
	[ "$st" -eq 0 ] || fail "status $st: $(cat err)"
	[ "$(high)" -ge 550 ] || fail "only $(high) files"
	# Slack for the allocator's arenas (ASan's size classes take ~3 MB
	# more by file 550); a leak of 10 KB a file would be 5 MB.
	[ "$late" -le $((early + early / 10 + 4096)) ] || fail "VmRSS grew from $early to $late kB"
	[ "$(chunks d | wc -l)" -le 2 ]
}

@test "contrib/ktrace.service: make install puts it with its ktrace's path; its command records in rotated files until SIGTERM, exit 0, every file valid" {
	local root=$BATS_TEST_TMPDIR/root unit line
	make -C "$TOP" -s install PREFIX="$root/usr" >/dev/null
	unit=$root/usr/lib/systemd/system/ktrace.service
	[ -f "$unit" ] || fail "no $unit"
	line=$(sed -n 's/^ExecStart=//p' "$unit")
	[[ $line == "$root/usr/bin/ktrace record "* ]] || fail "ExecStart=$line"
	# systemd reads it without a complaint (it is not PID 1 here).
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze (apt-get install systemd)"
	run systemd-analyze verify --man=no "$unit"
	assert_success
	assert_output ""
	# Its command as systemd runs it: the Environment= defaults, ${X} one
	# word, $X split; the directory and size made small for the test.
	local env kv
	while IFS= read -r env; do
		env=${env#\"}
		env=${env%\"}
		case $env in
		KTRACE_EVENTS=*) KTRACE_EVENTS=${env#KTRACE_EVENTS=} ;;
		*) for kv in $env; do export "${kv?}"; done ;;
		esac
	done < <(sed -n 's/^Environment=//p' "$unit")
	: "${KTRACE_EVENTS:?no KTRACE_EVENTS in the unit}"
	KTRACE_DIR=$BATS_TEST_TMPDIR/var KTRACE_ROTATE=1M
	line=${line//\$\{KTRACE_ROTATE\}/$KTRACE_ROTATE}
	line=${line//\$\{KTRACE_KEEP\}/$KTRACE_KEEP}
	line=${line//\$\{KTRACE_DIR\}/$KTRACE_DIR}
	line=${line//\$KTRACE_EVENTS/$KTRACE_EVENTS}
	# shellcheck disable=SC2086
	env --default-signal=INT $line 2>err &
	pid=$!
	echo "$pid" >>"$BATS_TEST_TMPDIR/ktrace.pids"
	for _ in $(seq 500); do
		[ -d "$TRACEFS/instances/ktrace-$pid" ] && break
		sleep 0.01
	done
	# Switches and wakeups enough for two files: stress-ng's switch
	# stressor makes 10^5 a second where 30 dd's in 3 s made 600, and
	# the two files of 1M took 40 s to fill.
	wait_files=0
	until [ "$(chunks "$KTRACE_DIR" | wc -l)" -ge 2 ] || [ $wait_files -ge 100 ]; do
		stress-ng --switch 1 --switch-ops 20000 -q >/dev/null 2>&1
		sleep 0.1
		wait_files=$((wait_files + 1))
	done
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 0 ] || fail "status $st: $(cat err)"
	[ "$(chunks "$KTRACE_DIR" | wc -l)" -ge 2 ] || fail "$(chunks "$KTRACE_DIR" | wc -l) files: $(cat err)"
	for f in $(chunks "$KTRACE_DIR"); do
		trace-cmd report -i "$f" >/dev/null 2>&1 || fail "$f not valid"
	done
	run ls -A "$KTRACE_DIR"
	refute_output --partial ".part"
	refute_output --partial ".tmp-"
	[ ! -d "$TRACEFS/instances/ktrace-$pid" ] || fail "instance left"
	# The series reads as one, its switches all there.
	n=0
	for f in $(chunks "$KTRACE_DIR"); do
		n=$((n + $("$KTRACE" report -i "$f" -e sched:sched_switch | wc -l)))
	done
	[ "$("$KTRACE" report -i "$KTRACE_DIR" -e sched:sched_switch | wc -l)" -eq "$n" ]
}
