#!/usr/bin/env bats
# ktrace report on a stored corpus of trace.dat files (tests/data/*.dat,
# described in tests/data/PROVENANCE.md): for each, `ktrace report -i FILE`
# must exit 0 and print what `trace-cmd report -i FILE` prints, line for
# line.  A corpus kept outside the tree is compared by tests/corpus-dir.sh
# (`make corpus-check KT_CORPUS_DIR=DIR`), not here: make check never skips.
#
# One @test per file, so that a failure names it (bats 1.8 has no tests
# made at run time): a new file in tests/data needs its line below, and
# the first test fails until it has one.

load helpers

# libtraceevent leaks inside tep_parse_event() on formats it half parses.
export LSAN_OPTIONS=suppressions=$TOP/tests/lsan-libtraceevent.supp

# The oracle's text: trace-cmd report without its first line ("cpus=N"
# or "version = N"), which ktrace does not print.  trace-cmd here is
# built without zlib: a *-zlib.dat file reads as its *-zstd.dat twin.
oracle() { # FILE
	local f=$1
	case $f in
	*-zlib.dat) f=${f%-zlib.dat}-zstd.dat ;;
	esac
	trace-cmd report -i "$f" 2>/dev/null | tail -n +2
}

same_as_trace_cmd() { # FILE
	local f=$1 out=$BATS_TEST_TMPDIR
	oracle "$f" >"$out/tc"
	[ -s "$out/tc" ] || { echo "trace-cmd printed nothing for $f" >&2; return 1; }
	"$KTRACE" report -i "$f" >"$out/kt" 2>"$out/err" || {
		echo "ktrace report -i $f: status $?: $(head -c 600 "$out/err")" >&2
		return 1
	}
	cmp -s "$out/tc" "$out/kt" || {
		diff -u "$out/tc" "$out/kt" | head -n 20 >&2
		echo "ktrace report -i $f differs from trace-cmd report" >&2
		return 1
	}
}

@test "every stored file has its test here and its line in PROVENANCE.md" {
	local f n=0
	for f in "$TOP"/tests/data/*.dat; do
		n=$((n + 1))
		f=$(basename "$f")
		grep -q "^@test \"$f\" { same_as_trace_cmd \"\$TOP/tests/data/$f\"; }\$" \
			"$BATS_TEST_FILENAME" || fail "$f has no test in corpus.bats"
		grep -qF "\`$f\`" "$TOP/tests/data/PROVENANCE.md" ||
			fail "$f has no line in tests/data/PROVENANCE.md"
	done
	[ "$n" -ge 10 ] || fail "only $n files in tests/data"
}

@test "kt-kinds.dat" { same_as_trace_cmd "$TOP/tests/data/kt-kinds.dat"; }
@test "kt-sched.dat" { same_as_trace_cmd "$TOP/tests/data/kt-sched.dat"; }
@test "kt-trig-naps.dat" { same_as_trace_cmd "$TOP/tests/data/kt-trig-naps.dat"; }
@test "kt-trig-hop.dat" { same_as_trace_cmd "$TOP/tests/data/kt-trig-hop.dat"; }
@test "mk-binder.dat" { same_as_trace_cmd "$TOP/tests/data/mk-binder.dat"; }
@test "mk-plugfn.dat" { same_as_trace_cmd "$TOP/tests/data/mk-plugfn.dat"; }
@test "mk-strings.dat" { same_as_trace_cmd "$TOP/tests/data/mk-strings.dat"; }
@test "tc-clock-counter.dat" { same_as_trace_cmd "$TOP/tests/data/tc-clock-counter.dat"; }
@test "tc-clock-global.dat" { same_as_trace_cmd "$TOP/tests/data/tc-clock-global.dat"; }
@test "tc-clock-mono.dat" { same_as_trace_cmd "$TOP/tests/data/tc-clock-mono.dat"; }
@test "tc-clock-uptime.dat" { same_as_trace_cmd "$TOP/tests/data/tc-clock-uptime.dat"; }
@test "tc-clock-x86-tsc.dat" { same_as_trace_cmd "$TOP/tests/data/tc-clock-x86-tsc.dat"; }
@test "tc-date.dat" { same_as_trace_cmd "$TOP/tests/data/tc-date.dat"; }
@test "tc-kinds.dat" { same_as_trace_cmd "$TOP/tests/data/tc-kinds.dat"; }
@test "tc-latency.dat" { same_as_trace_cmd "$TOP/tests/data/tc-latency.dat"; }
@test "tc-multi.dat" { same_as_trace_cmd "$TOP/tests/data/tc-multi.dat"; }
@test "tc-print.dat" { same_as_trace_cmd "$TOP/tests/data/tc-print.dat"; }
@test "tc-sched.dat" { same_as_trace_cmd "$TOP/tests/data/tc-sched.dat"; }
@test "tc-stack.dat" { same_as_trace_cmd "$TOP/tests/data/tc-stack.dat"; }
@test "tc-syscalls.dat" { same_as_trace_cmd "$TOP/tests/data/tc-syscalls.dat"; }
@test "tc-ustack.dat" { same_as_trace_cmd "$TOP/tests/data/tc-ustack.dat"; }
@test "tc-v7-lost.dat" { same_as_trace_cmd "$TOP/tests/data/tc-v7-lost.dat"; }
@test "tc-v7-multi.dat" { same_as_trace_cmd "$TOP/tests/data/tc-v7-multi.dat"; }
@test "tc-v7-none.dat" { same_as_trace_cmd "$TOP/tests/data/tc-v7-none.dat"; }
@test "tc-v7-stack.dat" { same_as_trace_cmd "$TOP/tests/data/tc-v7-stack.dat"; }
@test "tc-v7-print.dat" { same_as_trace_cmd "$TOP/tests/data/tc-v7-print.dat"; }
@test "tc-v7-zlib.dat" { same_as_trace_cmd "$TOP/tests/data/tc-v7-zlib.dat"; }
@test "tc-v7-zstd.dat" { same_as_trace_cmd "$TOP/tests/data/tc-v7-zstd.dat"; }
@test "vm-fgraph.dat" { same_as_trace_cmd "$TOP/tests/data/vm-fgraph.dat"; }
@test "vm-fgstack.dat" { same_as_trace_cmd "$TOP/tests/data/vm-fgstack.dat"; }
@test "vm-func.dat" { same_as_trace_cmd "$TOP/tests/data/vm-func.dat"; }

# A clock that counts (trace-cmd record -C counter) is named in v7's
# options as in v6's: its raw count prints there too, and @T is a count.
@test "a counting clock: v7 reads as trace-cmd, and @T selects counts" {
	local out=$BATS_TEST_TMPDIR/counter-v7.dat
	trace-cmd convert --file-version 7 --compression zstd \
		-i "$TOP/tests/data/tc-clock-counter.dat" -o "$out" >/dev/null 2>&1
	same_as_trace_cmd "$out"
	run "$KTRACE" report -i "$TOP/tests/data/tc-clock-counter.dat" --from @2400 --to @2403
	assert_success
	[ "${#lines[@]}" = 4 ]
	[[ ${lines[0]} == *" [001]        2400: sched_switch: "* ]]
	[[ ${lines[3]} == *" [001]        2403: sched_switch: "* ]]
}

# tc-latency.dat carries tc-sched's options, with a trace clock: trace-cmd
# then reads 8 bytes after "latency" as the clock's size (and skips them
# when it does not fit).  trace-cmd record -p wakeup writes no options:
# the text follows the label.
@test "a latency trace with no trace clock option reads as trace-cmd" {
	local f=$TOP/tests/data/tc-latency.dat out=$BATS_TEST_TMPDIR/lat.dat o l
	o=$(grep -obUaP 'options  \x00' "$f" | head -n 1 | cut -d: -f1)
	l=$(grep -obUaP 'latency  \x00' "$f" | head -n 1 | cut -d: -f1)
	{ head -c "$o" "$f"; printf 'options  \0\0\0'; tail -c +$((l + 1)) "$f"; } >"$out"
	same_as_trace_cmd "$out"
	run "$KTRACE" report -i "$out"
	[ "${lines[0]}" = "# tracer: nop" ]
}

@test "a latency trace takes no selection or other format" {
	run "$KTRACE" report -i "$TOP/tests/data/tc-latency.dat" -e sched_switch
	[ "$status" = 1 ]
	[[ $output == *"holds a latency trace (text)"* ]]
	run "$KTRACE" report -i "$TOP/tests/data/tc-latency.dat" --format json
	[ "$status" = 1 ]
}

# A print fmt tepcheck finds unsafe for libtraceevent (here a division by
# a field) costs its event only: it prints raw, as trace-cmd prints an
# event whose print fmt libtraceevent fails; the rest reads as before.
# A format is parsed when its event's records come (lib/file/lazyfmt.c):
# one that does not parse then costs a warning naming it, not the open.
@test "a format that does not parse when its records come: one warning naming the event, a damaged report, no crash" {
	local out=$BATS_TEST_TMPDIR/badfmt.dat
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
i = d.index(b"name: sched_wakeup\nID:")
j = d.index(b"format:", i)
open(sys.argv[2], "wb").write(d[:j] + b"formax:" + d[j + 7:])' "$TOP/tests/data/tc-sched.dat" "$out"
	local status=0 stderr
	"$KTRACE" report -i "$out" >/dev/null 2>"$BATS_TEST_TMPDIR/err" || status=$?
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
	[ "$status" -eq 2 ] || fail "status $status: $stderr"
	[ "$(grep -c 'the format of event sched:sched_wakeup (id [0-9]*) does not parse' <<<"$stderr")" -eq 1 ] ||
		fail "not one warning: $stderr"
	[[ $stderr == *"is damaged: the report above stops short where the warnings say"* ]] ||
		fail "not said damaged: $stderr"
	[[ $stderr != *"AddressSanitizer"* && $stderr != *"runtime error"* ]] || fail "$stderr"
}

@test "an event with an unsafe print fmt prints raw, the file reads" {
	local out=$BATS_TEST_TMPDIR/unsafe.dat
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
a, b = b"REC->reply, REC->flags", b"REC->flags/ REC->reply"
assert d.count(a) == 1
open(sys.argv[2], "wb").write(d.replace(a, b))' "$TOP/tests/data/mk-binder.dat" "$out"
	"$KTRACE" report -i "$out" >"$BATS_TEST_TMPDIR/kt" 2>"$BATS_TEST_TMPDIR/err" ||
		fail "status $?: $(cat "$BATS_TEST_TMPDIR/err")"
	grep -q "print fmt of event binder:binder_transaction is not safe to parse (a division by something other than a nonzero number in its print fmt); its events print raw" \
		"$BATS_TEST_TMPDIR/err" || fail "no warning: $(cat "$BATS_TEST_TMPDIR/err")"
	oracle "$TOP/tests/data/mk-binder.dat" | grep -v binder_transaction >"$BATS_TEST_TMPDIR/tc"
	grep -v binder_transaction "$BATS_TEST_TMPDIR/kt" | cmp - "$BATS_TEST_TMPDIR/tc"
	grep -q 'binder_transaction:   \[FAILED TO PARSE\] debug_id=4711 target_node=12 to_proc=800 to_thread=0 reply=0 code=16 flags=3$' \
		"$BATS_TEST_TMPDIR/kt"
}

# ftrace:bprint prints from the format its fmt field points at, whatever
# its print fmt says; libtraceevent 1.7 reads that format from address 5
# when there is no fmt field (the crash is replayed from
# tests/fuzz/regress/format/bprint-without-fmt-field): such a bprint
# prints raw, the rest of the file as before.
@test "an ftrace:bprint without its fmt field prints raw, the file reads" {
	local out=$BATS_TEST_TMPDIR/nofmt.dat
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
for a, b in ((b"const char * fmt;\toffset:16", b"const char * fmx;\toffset:16"),
             (b"(void *)REC->ip, REC->fmt", b"(void *)REC->ip, REC->fmx")):
    assert d.count(a) == 1
    d = d.replace(a, b)
open(sys.argv[2], "wb").write(d)' "$TOP/tests/data/tc-print.dat" "$out"
	"$KTRACE" report -i "$out" >"$BATS_TEST_TMPDIR/kt" 2>"$BATS_TEST_TMPDIR/err" ||
		fail "status $?: $(cat "$BATS_TEST_TMPDIR/err")"
	# The file has no bprint record: its format is never parsed by the
	# report (lib/file/lazyfmt.c), so nothing to warn of.
	[ ! -s "$BATS_TEST_TMPDIR/err" ] || fail "a warning: $(cat "$BATS_TEST_TMPDIR/err")"
	oracle "$TOP/tests/data/tc-print.dat" | cmp - "$BATS_TEST_TMPDIR/kt"
	# Naming the events by their system parses every format: the warning.
	"$KTRACE" report -i "$out" -e 'ftrace:*' >"$BATS_TEST_TMPDIR/kt" 2>"$BATS_TEST_TMPDIR/err" ||
		fail "status $?: $(cat "$BATS_TEST_TMPDIR/err")"
	grep -qx "ktrace report: warning: '$out': the print fmt of event ftrace:bprint is not safe to parse (ftrace:bprint without its ip, fmt and buf fields); its events print raw" \
		"$BATS_TEST_TMPDIR/err" || fail "no warning: $(cat "$BATS_TEST_TMPDIR/err")"
}

# mk-strings.dat's strings end past their length and past their record:
# none may cost its page, under ASan too (no read past the page).
@test "strings that do not end within their length read whole" {
	run "$KTRACE" report -i "$TOP/tests/data/mk-strings.dat"
	assert_success
	refute_output --partial "warning"
	assert_output --partial "path=/ab(null)xyz) load=5"
}

# libtraceevent's plugins (lib/file/plugins.h): each loaded when a format
# it can change is parsed.  glibc's LD_DEBUG=files names every file
# dlopen()ed.
plugins_loaded() { # FILE [ENV...]: the plugin files report -i FILE opened
	local f=$1
	shift
	env "$@" LD_DEBUG=files "$KTRACE" report -i "$f" 2>&1 >/dev/null |
		sed -n 's/.*file=\([^ ]*plugin_[^ ]*\.so\).*dynamically loaded.*/\1/p' |
		xargs -r -n 1 basename | sort -u
}

@test "plugins: a sched file loads the sched_switch plugin, not the other eleven" {
	run plugins_loaded "$TOP/tests/data/tc-sched.dat"
	assert_success
	assert_line plugin_sched_switch.so
	refute_line plugin_kvm.so
	refute_line plugin_scsi.so
	refute_line plugin_xen.so
	refute_line plugin_kmem.so
	[ "${#lines[@]}" -le 2 ] || fail "more plugins than sched's and ftrace's: ${lines[*]}"
}

@test "plugins: a print fmt naming a plugin's function loads it, whatever its system" {
	run plugins_loaded "$TOP/tests/data/mk-plugfn.dat"
	assert_success
	assert_line plugin_jbd2.so
	run "$KTRACE" report -i "$TOP/tests/data/mk-plugfn.dat"
	assert_success
	assert_line --partial "ext4_sync_file:       dev 8:1 ino 131074 parent 2 datasync 0"
	refute_output --partial "FAILED TO PARSE"
}

@test "plugins: one ktrace does not know loads them all, in libtraceevent's order, and the text is trace-cmd's" {
	local dir=$BATS_TEST_TMPDIR/plugins all
	mkdir -p "$dir"
	cp /usr/lib/x86_64-linux-gnu/traceevent/plugins/plugin_kvm.so "$dir/plugin_mine.so"
	all=$(ls /usr/lib/x86_64-linux-gnu/traceevent/plugins | wc -l)
	run plugins_loaded "$TOP/tests/data/tc-sched.dat" TRACEEVENT_PLUGIN_DIR="$dir"
	assert_success
	assert_line plugin_mine.so
	assert_line plugin_xen.so
	[ "${#lines[@]}" -eq $((all + 1)) ] || fail "${#lines[@]} plugins loaded, not $((all + 1)): ${lines[*]}"
	TRACEEVENT_PLUGIN_DIR=$dir oracle "$TOP/tests/data/tc-sched.dat" >"$BATS_TEST_TMPDIR/tc"
	TRACEEVENT_PLUGIN_DIR=$dir "$KTRACE" report -i "$TOP/tests/data/tc-sched.dat" >"$BATS_TEST_TMPDIR/kt"
	cmp "$BATS_TEST_TMPDIR/tc" "$BATS_TEST_TMPDIR/kt"
}
