#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the -DKT_HAVE_* flags compat.h needs for the kernel sources in $1,
# by looking at its headers: distributions backport API changes, so the
# version number alone would mislead.
src=$1

have() {
	grep -qsE "$2" "$1" && printf ' -D%s' "$3"
}

sed -n '/TRACE_EVENT(timer_start/,/TP_ARGS/p' \
	"$src/include/trace/events/timer.h" 2>/dev/null |
	grep -q 'unsigned int flags' && printf ' -D%s' KT_HAVE_TIMER_START_FLAGS
have "$src/include/linux/mm.h" 'static inline void vm_flags_set\(' \
	KT_HAVE_VM_FLAGS_SET
echo
