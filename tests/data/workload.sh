#!/bin/bash
# A short workload touching many event kinds for trace.dat oracles:
# scheduling, syscalls, memory, block I/O and writeback (dd + fsync),
# timers (sleep) and networking on loopback (a refused TCP connect).
dir=${1:-/tmp}
ls -R /usr/include/linux >/dev/null
dd if=/dev/zero of="$dir/kt-workload.bin" bs=64k count=16 conv=fsync 2>/dev/null
sync "$dir/kt-workload.bin" 2>/dev/null || sync
(exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null
sleep 0.02
rm -f "$dir/kt-workload.bin"
exit 0
