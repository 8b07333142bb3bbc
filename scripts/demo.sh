#!/bin/sh
# The demo: a short trace of the scheduler, recorded and reported.
set -eu
cd "$(dirname "$0")/.."
out=${TMPDIR:-/tmp}/ktrace-demo.dat
./ktrace doctor || true
./ktrace list systems | head -n 20
./ktrace record -q -o "$out" -e sched_schedule -e sched_try_wakeup -- sleep 0.2
./ktrace report -i "$out" --head 20
./ktrace stat -i "$out"
