#!/bin/sh
# The report formatter's speed: libtraceevent's tep_print_event against
# lib/decode/fastfmt.c over the same live events (tests/fastfmt-load.sh),
# per event kind, in interleaved repetitions.  Needs root and tracefs.
# Usage: bench/fastfmt-speed.sh [REPS] [LOAD-SECONDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s build/fastfmt-speed
exec build/fastfmt-speed -n "${1:-7}" -- tests/fastfmt-load.sh "${2:-2}"
