#!/bin/sh
# Guest side of bench/vm-fgraph.sh: one function_graph recording by
# ktrace and one by trace-cmd of the same workload (N reads of /dev/zero
# by dd, the graph of vfs_read, as deep as it goes), both v7 zstd, sent
# to the host on the second serial port as a gzipped tar in base64.
# Prints "BENCH <tool> <lines of its report>" and "BENCH end", or
# "BENCH error <what>".
K=/ktrace
N=${BENCH_N:-30000}
KB=${BENCH_KB:-32768}
x=/tmp/fg
mkdir -p $x
# kallsyms stays in: report prints each function's name from it.
work="dd if=/dev/zero of=/dev/null bs=16 count=$N"

$K record -q -F -b $KB -p function_graph -g vfs_read -o $x/fgraph-ktrace.dat -- \
	$work 2>/tmp/err.kt || { echo "BENCH error ktrace record: $(head -n 3 /tmp/err.kt)"; }
/usr/bin/trace-cmd record -q -F -b $KB -p function_graph -g vfs_read \
	-o $x/fgraph-tc.dat $work >/tmp/err.tc 2>&1 ||
	echo "BENCH error trace-cmd record: $(tail -n 3 /tmp/err.tc)"
for t in ktrace tc; do
	[ -s $x/fgraph-$t.dat ] || { echo "BENCH error no $t file"; continue; }
	echo "BENCH $t $($K report -i $x/fgraph-$t.dat | wc -l) lines, $(wc -c <$x/fgraph-$t.dat) bytes"
	grep -i lost /tmp/err.kt /tmp/err.tc | head -n 2
done
[ -c /dev/ttyS1 ] || echo "BENCH error no /dev/ttyS1"
stty -F /dev/ttyS1 raw -echo
(cd $x && tar c . | gzip -1 | base64) >/dev/ttyS1
echo "BENCH end"
