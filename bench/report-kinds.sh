# bench/report-speed's second part: `ktrace report` against `trace-cmd
# report` on each kind of file (see report-speed's header).  Sourced by
# report-speed after its own part: uses its ktrace, work, rounds, file,
# record(), locked() and put_section().
# shellcheck shell=bash disable=SC2154

kd=$work/kinds
mkdir -p "$kd"

# The kinds: NAME, then what makes the file.
rec_ktrace() { # FILE: ktrace's own -T recording of the same workload
	mkdir -p "$work/dbench"
	locked "$ktrace" record -q -b 65536 -T -e sched:sched_switch -e sched:sched_wakeup \
		-e raw_syscalls -o "$1.new" -- dbench -D "$work/dbench" -t 2 2 \
		>"$work/record.log" 2>&1
	mv "$1.new" "$1"
	rm -rf "$work/dbench"
}

rec_multi() { # FILE: three instances, one with kernel stacks
	local i=kt-bench-report-$$
	mkdir -p "$work/dbench"
	locked env LD_PRELOAD="$work/tc-shim.so" trace-cmd record \
		-B "$i-a" -b 16384 -e sched:sched_switch -e sched:sched_wakeup \
		-B "$i-b" -b 65536 -e raw_syscalls \
		-B "$i-c" -b 16384 -T -e sched:sched_switch \
		--file-version 7 -o "$1.new" -- dbench -D "$work/dbench" -t 2 2 \
		>"$work/record.log" 2>&1
	mv "$1.new" "$1"
	rm -rf "$work/dbench"
}

make_kind() { # NAME FILE
	case $1 in
	stacks) record "$2" 2 -T --file-version 7 --compression zstd ;;
	stacks-zlib)
		[ -s "$kd/stacks.dat" ] || make_kind stacks "$kd/stacks.dat"
		cc -O2 -o "$work/dat-zlib" "$top/tests/dat-zlib.c" -lz -lzstd
		"$work/dat-zlib" "$kd/stacks.dat" "$2" ;;
	stacks-v6) record "$2" 2 -T --file-version 6 ;;
	stacks-ktrace) rec_ktrace "$2" ;;
	ustacks) record "$2" 2 -O userstacktrace --file-version 7 ;;
	multi) rec_multi "$2" ;;
	esac
}

kinds="stacks stacks-zlib stacks-v6 stacks-ktrace ustacks multi"
[ -s "$file" ] && kinds="$kinds plain"
# function_graph: this host's kernel has no such tracer, so the files
# bench/vm-fgraph.sh records in the VM, by trace-cmd and by ktrace, when
# they are in $kd; else KT_BENCH_FGRAPH, by default the corpus's own, a
# small one read $freps times a run (start-up weighs most there).
if [ -s "$kd/fgraph-tc.dat" ] && [ -s "$kd/fgraph-ktrace.dat" ]; then
	kinds="$kinds fgraph-tc fgraph-ktrace"
else
	kinds="$kinds fgraph"
fi
kinds="$kinds corpus"
corpus=$(ls "$top"/tests/data/*.dat)
fgraph=${KT_BENCH_FGRAPH:-$top/tests/data/vm-fgraph.dat}
freps=1
[ "$(stat -c %s "$fgraph")" -ge 1048576 ] || freps=50
# ktrace reads each file KT_BENCH_KREPS (5) times a round, each read
# timed alone (kread), their mean kept: one read of a few-MB file moves
# by a few ms from the next, a few % of its 0.2 s.
kreps=${KT_BENCH_KREPS:-5}

kfile() { # NAME: the file of a kind
	case $1 in
	plain) echo "$file" ;;
	fgraph) echo "$fgraph" ;;
	corpus) echo "$top/tests/data" ;;
	*) echo "$kd/$1.dat" ;;
	esac
}

for k in $kinds; do
	f=$(kfile "$k")
	[ "$k" = corpus ] || [ -s "$f" ] || { echo "recording the '$k' file ..."; make_kind "$k" "$f"; }
done
[ "$only" != 1 ] || { echo "report-speed: the files are in $work"; exit 0; }

# kread MODE FILE OUT: one read of FILE by MODE's command, its text to
# OUT; prints "cpu-ms wall-s".  CPU is perf stat's task-clock (user + sys
# of the command, exact to the microsecond, not /usr/bin/time's 10 ms
# steps); the environment is set in a subshell, not by env(1), so only
# the reader itself is counted.
# mode_env MODE: export the environment of MODE's reads.
mode_env() {
	case $1 in
	ser) export KTRACE_NO_THREADS=1 ;;
	thr) export KTRACE_THREADS=1 ;;
	# the default path, its trial forced whatever the load (ahead-trial.h)
	def) export KTRACE_THREADS=trial ;;
	esac
}

kread() {
	local m=$1 f=$2 o=$3 t0 t1
	t0=$EPOCHREALTIME
	(
		mode_env "$m"
		case $m in
		tc) exec perf stat -x, -e task-clock -o "$kd/ps.out" -- trace-cmd report "$f" ;;
		*) exec perf stat -x, -e task-clock -o "$kd/ps.out" -- "$ktrace" report -i "$f" ;;
		esac
	) >"$o" 2>/dev/null || :
	t1=$EPOCHREALTIME
	awk -F, -v t0="$t0" -v t1="$t1" '$3 == "task-clock" { printf "%s %.6f\n", $1, t1 - t0 }' "$kd/ps.out"
}

# krun NAME MODE: one timed run of kind NAME; appends "cpu wall rss" to
# $kd/NAME.MODE (MODE ser, thr, def or tc).  Each read is timed alone,
# its output deleted before it and after it outside the timing: neither
# tool pays for freeing the last read's page cache, and the outputs of
# the reads of a run never pile up past the dirty-page limits (five
# 541 MB texts did, and the plain row's CPU rose by a third).
krun() {
	local k=$1 m=$2 f per=1 reps=1 i rss=0
	f=$(kfile "$k")
	rm -f "$kd/out.$m"
	if [ "$k" = corpus ]; then
		# every stored file, one read each, the CPU summed
		for i in $corpus; do
			kread "$m" "$i" /dev/null
		done | awk '{ c += $1; w += $2 } END { printf "%.3f %.3f 0\n", c / 1000, w }' >>"$kd/$k.$m"
		return
	fi
	# trace-cmd here has no zlib: it reads the zstd original
	[ "$m" = tc ] && [ "$k" = stacks-zlib ] && f=$(kfile stacks)
	[ "$k" = fgraph ] && reps=$freps
	[ "$m" = tc ] || per=$kreps
	for i in $(seq $((reps * per))); do
		rm -f "$kd/out.$m"
		kread "$m" "$f" "$kd/out.$m"
	done >"$kd/reads"
	# ktrace's peak RSS, from one more read outside the timing
	if [ "$m" != tc ]; then
		rm -f "$kd/out.rss"
		(mode_env "$m"; exec /usr/bin/time -f %M -o "$kd/rss" "$ktrace" report -i "$f") \
			>"$kd/out.rss" 2>/dev/null || :
		rss=$(tail -n 1 "$kd/rss")
		rm -f "$kd/out.rss"
	fi
	awk -v n="$per" -v rss="$rss" '{ c += $1; w += $2 } END { printf "%.4f %.4f %d\n", c / 1000 / n, w / n, rss }' "$kd/reads" >>"$kd/$k.$m"
}

kmedian() { # FILE COLUMN
	cut -d ' ' -f "$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# The median of the rounds' ratios A/B of column 1 (a round's runs share its load).
kratio() { # A-TIMES B-TIMES
	paste -d ' ' "$1" "$2" | awk '{ print ($4 > 0 ? $1 / $4 : 0) }' |
		sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'
}

krounds=$rounds
[ "$krounds" -ge 3 ] || krounds=3
load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
for k in $kinds; do
	rm -f "$kd/$k".ser "$kd/$k".thr "$kd/$k".def "$kd/$k".tc
done
declare -A same lines
for r in $(seq 1 "$krounds"); do
	for k in $kinds; do
		krun "$k" ser
		krun "$k" thr
		krun "$k" def
		krun "$k" tc
		if [ "$r" = 1 ] && [ "$k" != corpus ]; then
			lines[$k]=$(wc -l <"$kd/out.ser")
			same[$k]=identical
			cmp -s "$kd/out.ser" "$kd/out.thr" || same[$k]="threaded DIFFERENT"
			cmp -s "$kd/out.ser" "$kd/out.def" || same[$k]="trial DIFFERENT"
			# trace-cmd's first line (cpus=N, version = N) aside
			tail -n +2 "$kd/out.tc" | cmp -s - "$kd/out.ser" || same[$k]="DIFFERENT"
		fi
		echo "round $r $k: serial $(tail -n 1 "$kd/$k.ser"), threaded $(tail -n 1 "$kd/$k.thr"), trial $(tail -n 1 "$kd/$k.def"), trace-cmd $(tail -n 1 "$kd/$k.tc") (cpu s, wall s, max RSS KB)"
	done
done
rm -f "$kd"/out.*
load1=$(cut -d ' ' -f 1-3 /proc/loadavg)

describe() { # NAME
	case $1 in
	stacks) echo "kernel stacks (\`trace-cmd record -T\`), v7 zstd" ;;
	stacks-zlib) echo "the same repacked with zlib (tests/dat-zlib.c; trace-cmd, without zlib here, reads the zstd original)" ;;
	stacks-v6) echo "kernel stacks (\`trace-cmd record -T\`), v6" ;;
	stacks-ktrace) echo "kernel stacks (\`ktrace record -T\`), v7 zstd" ;;
	ustacks) echo "user stacks (\`trace-cmd record -O userstacktrace\`), v7 zstd" ;;
	multi) echo "three instances (\`-B\` x3, one with -T), v7 zstd" ;;
	fgraph-tc) echo "function_graph of vfs_read under dd (\`trace-cmd record -p function_graph\` in the VM, bench/vm-fgraph.sh), v7 zstd" ;;
	fgraph-ktrace) echo "the same by \`ktrace record -p function_graph\`, v7 zstd" ;;
	fgraph) echo "function_graph, $(basename "$fgraph") (recorded in the VM)$([ "$freps" = 1 ] || echo ", read $freps times a run")" ;;
	plain) echo "plain: sched + raw_syscalls (the file above)" ;;
	corpus) echo "tests/data, $(echo "$corpus" | wc -l) files, CPU summed" ;;
	esac
}

rows=""
worst=""
for k in $kinds; do
	f=$(kfile "$k")
	size="-"
	[ "$k" = corpus ] || size="$(( $(stat -c %s "$f") / 1048576 )) MB"
	a=$(kratio "$kd/$k.tc" "$kd/$k.ser")
	b=$(kratio "$kd/$k.tc" "$kd/$k.thr")
	c=$(kratio "$kd/$k.thr" "$kd/$k.ser")
	d=$(kratio "$kd/$k.def" "$kd/$k.ser")
	rss="$(( $(kmedian "$kd/$k.ser" 3) / 1024 ))/$(( $(kmedian "$kd/$k.thr" 3) / 1024 )) MB"
	out=${same[$k]:-"(corpus.bats compares)"}
	rows="$rows
| $(describe "$k") | $size | ${lines[$k]:--} | $(kmedian "$kd/$k.ser" 1) | $(kmedian "$kd/$k.thr" 1) | $(kmedian "$kd/$k.tc" 1) | ${a}x | ${b}x | ${c} | ${d} | $(kmedian "$kd/$k.ser" 2) / $(kmedian "$kd/$k.thr" 2) / $(kmedian "$kd/$k.def" 2) / $(kmedian "$kd/$k.tc" 2) | $rss | $out |"
	case $out in *DIFFERENT*) worst="$worst $k" ;; esac
done

# Where the serial path's time goes on the kernel-stack file.
prof="(perf is not installed)"
if command -v perf >/dev/null; then
	KTRACE_NO_THREADS=1 perf record -q -F 4999 -o "$kd/perf.data" \
		"$ktrace" report -i "$(kfile stacks)" -o /dev/null >/dev/null 2>&1 || :
	prof=$(perf report -i "$kd/perf.data" --no-children --sort dso,sym --stdio 2>/dev/null |
		grep '%' | head -n 16)
	rm -f "$kd/perf.data"
fi

ksummary=$(cat <<EOF
## report: kinds of file

\`bench/report-speed\` (its second part): \`ktrace report\` serial
(\`KTRACE_NO_THREADS=1\`), reading and unpacking ahead in its second
thread (\`KTRACE_THREADS=1\`, \`lib/file/ahead.c\`), the default path
with its read-ahead trial forced whatever the load (\`KTRACE_THREADS=trial\`,
\`lib/file/ahead-trial.h\`: it reads ahead only where that earned its CPU) and \`trace-cmd report\` ($(trace-cmd --version 2>/dev/null | awk '/version/ { print $3; exit }')) on each kind of file, dbench 2 for 2 s
recorded with sched_switch, sched_wakeup and raw_syscalls; each run
writes the text to a file on /var/tmp, deleted before and after it
outside the timing; CPU is perf stat's task-clock (user + sys, exact),
ktrace's the mean of $kreps reads a round; $krounds interleaved rounds,
medians of the CPU time and of the rounds' ratios.  $(nproc) CPUs shared with other work: load average
$load0 at the start, $load1 at the end.  trace-cmd's CPU time
grows with the load much more than ktrace's: ratios taken at a load
above 1 flatter ktrace.

| file | size | lines | ktrace serial CPU s | ktrace threaded CPU s | trace-cmd CPU s | trace-cmd / serial | trace-cmd / threaded | threaded / serial CPU | trial / serial CPU | wall s: serial / threaded / trial / trace-cmd | peak RSS serial/threaded | output |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|$rows

Where the serial path's CPU goes on the kernel-stack file
(\`perf record -F 4999\`, \`KTRACE_NO_THREADS=1 ktrace report -i FILE -o
/dev/null\`; top entries by DSO and symbol):

\`\`\`
$prof
\`\`\`

Measured $(date -u +%Y-%m-%d).
EOF
)
echo
echo "$ksummary"
put_section "report: kinds of file" "$ksummary"
[ -z "$worst" ] || { echo "report-speed: outputs differ:$worst" >&2; exit 1; }
