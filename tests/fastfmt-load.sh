#!/bin/sh
# A mixed workload for the report formatter's check and benchmark: file
# system (dbench, find, dd), processes and signals, then loopback network traffic last
# so its events are still in the ring buffer when it is read.
# Usage: fastfmt-load.sh [SECONDS]
secs=${1:-2}
d=$(mktemp -d /tmp/kt-ffload.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
dbench -t "$secs" -D "$d" 2 >/dev/null 2>&1 &
find /usr/share/doc -maxdepth 3 >/dev/null 2>&1
dd if=/dev/zero of="$d/f" bs=64k count=64 conv=fsync 2>/dev/null
for i in 1 2 3; do
	sh -c 'kill -USR1 $$' 2>/dev/null
	sleep 0.1 &
	wait $!
done
wait
# UDP to a closed loopback port: xmit, receive and an ICMP reply each
for i in 1 2 3 4 5; do
	bash -c 'echo hello >/dev/udp/127.0.0.1/9' 2>/dev/null
done
# futex(FUTEX_WAKE) calls last too: dbench's early ones may be overwritten
# by the time a slow (ASan) reader gets to them.
python3 -c 'import ctypes
libc = ctypes.CDLL(None, use_errno=True)
word = ctypes.c_int(0)
for _ in range(5):
    libc.syscall(202, ctypes.byref(word), 1, 1, None, None, 0)' 2>/dev/null
exit 0
