#!/usr/bin/env bats
# A series: the chunks of one recording read as one trace (-i DIR, or
# several -i).  The chunks are trace-cmd split's (-p N -r: N pages of
# each CPU a chunk, so the chunks overlap in time across CPUs, as
# record --rotate's do); the oracle is the file they were cut from.
# These tests read files only; the recordings of setup_file are made
# under the tracefs lock the suite runs in.

load helpers

WORK='for i in $(seq 300); do cat /etc/passwd >/dev/null; done'

# split_into DIR FILE PAGES NAME: FILE's chunks of PAGES pages per CPU
# in DIR, named NAME.1, NAME.2, ... (NAME may hold a %06u for the number,
# record --rotate's ktrace-%06u.dat).  Fails when trace-cmd's own count
# of the chunks' events is not the file's: trace-cmd 3.1.6 once split a
# v7 file into chunks where a CPU went 4.6 s back (ktrace refused them,
# rightly), and such chunks are no oracle.
split_into() {
	local dir=$1 file=$2 pages=$3 name=$4 f n total=0
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && trace-cmd split -i "$file" -o tcsplit -p "$pages" -r >/dev/null 2>&1)
	for f in "$dir"/tcsplit.*; do
		n=$((10#${f##*.}))
		total=$((total + $(tc_text "$f" | wc -l)))
		if [[ $name == *%* ]]; then
			mv "$f" "$dir/$(printf "$name" "$n")"
		else
			mv "$f" "$dir/$name.$n"
		fi
	done
	[ "$total" -eq "$(tc_text "$file" | wc -l)" ]
}

# record_split FILE DIR PAGES NAME ITERATIONS RECORD-OPTIONS...: record
# the workload into FILE and split it into DIR (split_into); recorded
# again when trace-cmd's split is no oracle.
record_split() {
	local file=$1 dir=$2 pages=$3 name=$4 n=$5 try
	shift 5
	for try in 1 2 3; do
		"$KTRACE" record -q -o "$file" "$@" -e sched -e syscalls:sys_enter_read \
			-e syscalls:sys_exit_read -- sh -c "${WORK/300/$n}"
		split_into "$dir" "$file" "$pages" "$name" && return 0
		echo "# trace-cmd split's chunks of $file hold other events than it (try $try); recording again" >&3
	done
	return 1
}

# trace-cmd's text without the header lines ktrace report leaves out.
tc_text() {
	trace-cmd report -i "$1" 2>/dev/null | grep -v '^cpus=\|^version ='
}

setup_file() {
	export RD=$BATS_FILE_TMPDIR
	record_split "$RD/v7.dat" "$RD/s7" 4 out 300
	record_split "$RD/v6.dat" "$RD/s6" 8 ktrace-%06u.dat 300 --file-version 6
	KTRACE_NO_THREADS=1 "$KTRACE" report -i "$RD/v7.dat" >"$RD/v7.txt"
	KTRACE_NO_THREADS=1 "$KTRACE" report -i "$RD/v6.dat" >"$RD/v6.txt"
}

@test "the chunks are what a rotation writes: complete files, more than 9, overlapping in time across CPUs" {
	local n
	n=$(ls "$RD/s7" | wc -l)
	[ "$n" -ge 10 ] || fail "only $n chunks: the name order is not tried"
	head -c 10 "$RD/s7/out.1" | grep -q tracing
	# out.2 begins (on one CPU) before out.1 ends (on the other).
	run ktrace stat -i "$RD/s7"
	assert_success
	local f1 l1 f2
	l1=$(awk '$1 ~ /\/out\.1$/ { print $5 }' <<<"$output")
	f2=$(awk '$1 ~ /\/out\.2$/ { print $4 }' <<<"$output")
	[ -n "$l1" ] && [ -n "$f2" ]
	awk -v a="$f2" -v b="$l1" 'BEGIN { exit !(a < b) }' ||
		fail "out.2 starts at $f2, after out.1 ends at $l1: no overlap to merge"
}

@test "report -i DIR prints the events of the file the chunks were cut from, v7 and v6, byte for byte" {
	KTRACE_NO_THREADS=1 ktrace report -i "$RD/s7" >"$RD/s7.txt"
	cmp "$RD/v7.txt" "$RD/s7.txt"
	[ "$(wc -l <"$RD/v7.txt")" -gt 1000 ]
	KTRACE_NO_THREADS=1 ktrace report -i "$RD/s6" >"$RD/s6.txt"
	cmp "$RD/v6.txt" "$RD/s6.txt"
	# The threaded decoder reads the series as the serial one does.
	ktrace report -i "$RD/s7" | cmp "$RD/v7.txt" -
	# And trace-cmd reads the original file so.
	tc_text "$RD/v7.dat" | cmp "$RD/v7.txt" -
}

@test "several -i of chunks, in any order, read as the directory does" {
	local files
	files=$(ls "$RD/s7" | shuf | sed "s|^|-i $RD/s7/|")
	# shellcheck disable=SC2086
	KTRACE_NO_THREADS=1 ktrace report $files >"$RD/multi.txt"
	cmp "$RD/v7.txt" "$RD/multi.txt"
	# A chunk named twice is refused, as is the same data under two names.
	run ktrace report -i "$RD/s7" -i "$RD/s7/out.3"
	assert_failure 1
	assert_output "ktrace report: '$RD/s7/out.3' is named twice (a directory's chunks are all of it); give each chunk once"
	ln -sf "$RD/s7/out.3" "$RD/link.dat"
	run ktrace report -i "$RD/s7/out.3" -i "$RD/link.dat"
	assert_failure 1
	assert_output --partial "are the same chunk"
	cp "$RD/s7/out.3" "$RD/copy.dat"
	run ktrace report -i "$RD/s7/out.3" -i "$RD/copy.dat" -i "$RD/s7/out.4"
	assert_failure 1
	assert_output --regexp "is not the next chunk after .*: its CPU [0-9]+ starts at"
}

@test "the answers agree: analyze, sql, report --stat and stat of a series and of its file" {
	local k
	for k in sched syscalls cpu; do
		diff <(ktrace analyze "$k" -i "$RD/v7.dat" 2>&1 | sed "s|$RD/v7.dat|F|g") \
			<(ktrace analyze "$k" -i "$RD/s7" 2>&1 | sed "s|$RD/s7|F|g")
	done
	diff <(ktrace sql -i "$RD/v6.dat" --format csv "select count(*), sum(cpu), min(ts), max(ts) from events") \
		<(ktrace sql -i "$RD/s6" --format csv "select count(*), sum(cpu), min(ts), max(ts) from events")
	diff <(ktrace sql -i "$RD/v7.dat" --format csv "select comm, count(*) from sched_switch group by comm order by comm") \
		<(ktrace sql -i "$RD/s7" --format csv "select comm, count(*) from sched_switch group by comm order by comm")
	# The per-CPU and per-event counts: every line past the header alike,
	# but the record-time stats, which trace-cmd split does not copy.
	diff <(ktrace report --stat -i "$RD/v7.dat" | sed -n '/^event /,/^$/p') \
		<(ktrace report --stat -i "$RD/s7" | sed -n '/^event /,/^$/p')
	diff <(ktrace stat -i "$RD/v7.dat" | awk '/^top/ { print $1, $2, $3, $4, $5 }') \
		<(ktrace stat -i "$RD/s7" | awk '/^top/ { print $1, $2, $3, $4, $5 }')
}

@test "report -i DIR -o x.dat joins the chunks into one trace.dat that trace-cmd reads as the file" {
	ktrace report -i "$RD/s6" -o "$RD/j6.dat"
	tc_text "$RD/j6.dat" | cmp "$RD/v6.txt" -
	ktrace report -i "$RD/s7" -o "$RD/j7.dat"
	tc_text "$RD/j7.dat" | cmp "$RD/v7.txt" -
}

@test "stat -i DIR lists the chunks in name order, their spans, events and losses; the events add up" {
	run ktrace stat -i "$RD/s7"
	assert_success
	assert_line --regexp "^series: $RD/s7 \([0-9]+ chunks; trace.dat v7, compression zstd"
	assert_line --regexp '^span: [0-9]+\.[0-9]{6} to [0-9]+\.[0-9]{6} \('
	# strverscmp order: out.9 before out.10.
	local order
	order=$(awk '$1 ~ /\/out\.[0-9]+$/ { sub(/.*\./, "", $1); print $1 }' <<<"$output" | tr '\n' ' ')
	[ "$order" = "$(seq -s ' ' 1 "$(ls "$RD/s7" | wc -l)") " ] || fail "chunk order: $order"
	local sum total
	sum=$(awk '$1 ~ /\/out\.[0-9]+$/ { s += $(NF - 1) } END { print s }' <<<"$output")
	total=$(awk '/^top/ { s += $3 } END { print s }' <<<"$output")
	[ "$sum" -eq "$total" ] || fail "chunks hold $sum events, the CPUs $total"
	[ "$total" -eq "$(wc -l <"$RD/v7.txt")" ]
	run ktrace stat --json -i "$RD/s6"
	assert_success
	python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["chunks"]; assert len(c) > 1; assert c[0]["path"].endswith("ktrace-000001.dat"); assert sum(x["events"] for x in c) == sum(x["events"] for x in d["cpus"]); assert all(x["first"] <= x["last"] for x in c)' <<<"$output"
}

@test "a directory skips hidden files (chunks in progress) silently and other files with one warning" {
	mkdir -p "$RD/mixed"
	cp "$RD"/s7/* "$RD/mixed/"
	head -c 20000 "$RD/s7/out.2" >"$RD/mixed/.out.99"	# a chunk being written
	echo notes >"$RD/mixed/README"
	mkdir -p "$RD/mixed/sub"
	run quiet_report -i "$RD/mixed"
	assert_success
	[ "${#lines[@]}" -eq 1 ]
	assert_line --partial "'$RD/mixed': skipping 1 file that is no trace.dat chunk ('README')"
	KTRACE_NO_THREADS=1 ktrace report -i "$RD/mixed" 2>/dev/null | cmp "$RD/v7.txt" -
}

@test "chunks that do not belong together: one line naming the chunk and why, exit 1" {
	mkdir -p "$RD/foreign" "$RD/empty"
	cp "$RD/s7/out.1" "$RD/s7/out.2" "$RD/foreign/"
	cp "$TOP/tests/data/tc-v7-zstd.dat" "$RD/foreign/out.3"
	run ktrace report -i "$RD/foreign"
	assert_failure 1
	# (split's chunks keep no trace clock: that is the first difference)
	assert_output "ktrace report: '$RD/foreign/out.3' is not a chunk of the recording of '$RD/foreign/out.1': its trace clock is local, the first chunk's unknown"
	run ktrace report -i "$RD/empty"
	assert_failure 1
	assert_output --partial "no trace.dat chunks in '$RD/empty'"
	# A chunk damaged at its start fails the series as the file would (2).
	mkdir -p "$RD/bad"
	cp "$RD/s7/out.1" "$RD/bad/"
	head -c 100 "$RD/s7/out.2" >"$RD/bad/out.2"
	run ktrace analyze sched -i "$RD/bad"
	assert_failure 2
	assert_output --partial "$RD/bad/out.2"
}

# cpu0_off FILE: where chunk FILE's CPU 0 data starts.
cpu0_off() {
	trace-cmd dump --flyrecord -i "$1" 2>/dev/null |
		awk '/data offset and size/ && $1 == 0 { print $2 }'
}

# quiet_report ARGS...: ktrace report ARGS, its text thrown away.
quiet_report() {
	"$KTRACE" report "$@" >/dev/null
}

# u32 FILE OFFSET: the little-endian 32-bit number there.
u32() {
	od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '
}

@test "report --from/--to on a series does not read the chunks outside the window" {
	# v7 chunks of 30 pages a CPU: three packed pieces of 10 pages each.
	# Opening the series reads each CPU's first and last piece (its span);
	# the middle one of chunk 2's CPU 0 is made to claim an impossible
	# size, which any reading of its pages reports (exit 2), even of pages
	# the window then skips.
	record_split "$RD/big.dat" "$RD/cut" 30 ktrace-%06u.dat 1000
	local c2=$RD/cut/ktrace-000002.dat off n csize last
	off=$(cpu0_off "$c2")
	[ -n "$off" ]
	n=$(u32 "$c2" "$off")
	[ "$n" -ge 3 ] || fail "chunk 2's CPU 0 has $n packed pieces, not 3"
	csize=$(u32 "$c2" $((off + 4)))
	printf '\x01\x00\x00\x00' |
		dd of="$c2" bs=1 seek=$((off + 4 + 8 + csize + 4)) conv=notrunc 2>/dev/null
	# (the reports' text to /dev/null: their messages are what is checked)
	run quiet_report -i "$RD/cut"
	assert_failure 2
	assert_output --partial "damaged trace file '$c2': CPU 0"
	# Past chunk 2's last event (@T takes in all that prints as T: 2 us
	# past the last one printed holds none of it), chunk 2 is not read.
	last=$(ktrace stat -i "$RD/cut" 2>/dev/null | awk -v f="$c2" '$1 == f { print $(NF - 2) }')
	[ -n "$last" ]
	last=$(awk -v t="$last" 'BEGIN { printf "%.6f", t + 0.000002 }')
	run quiet_report -i "$RD/cut" --from "@$last"
	assert_success
	refute_output --partial damaged
	KTRACE_NO_THREADS=1 ktrace report -i "$RD/cut" --from "@$last" |
		cmp - <(KTRACE_NO_THREADS=1 ktrace report -i "$RD/big.dat" --from "@$last")
	[ "$(ktrace report -i "$RD/cut" --from "@$last" | wc -l)" -gt 100 ]
	# report --stat of that window leaves the chunks out of it too.
	run ktrace report --stat -i "$RD/cut" --from "@$last"
	assert_success
	refute_output --partial damaged
	refute_line --regexp '^chunk '
	# A window over chunk 2 reads it, and says so.
	run quiet_report -i "$RD/cut" --to "@$last"
	assert_failure 2
	assert_output --partial "damaged trace file '$c2': CPU 0"
}

@test "losses: the chunks' record-time stats add up as one file's would" {
	mkdir -p "$RD/loss"
	local i
	# Two recordings back to back on a small buffer: each stores its
	# overruns; as a series, their sums.
	for i in 1 2; do
		"$KTRACE" record -q -b 4 -o "$RD/loss/ktrace-00000$i.dat" -e sched \
			-e syscalls -- sh -c "$WORK" 2>/dev/null || true
	done
	local a b s cpu
	for cpu in 0 1; do
		a=$(ktrace stat -i "$RD/loss/ktrace-000001.dat" | awk -v c=$cpu '/^top/ && $2 == c { print $6 }')
		b=$(ktrace stat -i "$RD/loss/ktrace-000002.dat" | awk -v c=$cpu '/^top/ && $2 == c { print $6 }')
		s=$(ktrace stat -i "$RD/loss" | awk -v c=$cpu '/^top/ && $2 == c { print $6 }')
		[ -n "$a" ] && [ -n "$b" ]
		[ "$s" -eq $((a + b)) ] || fail "CPU $cpu: overrun $s, the chunks' $a + $b"
	done
}
