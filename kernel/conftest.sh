#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the -DKT_HAVE_* flags compat.h needs for the kernel sources in $1,
# by looking at its headers: distributions backport API changes, so the
# version number alone would mislead.
src=$1
rb=$src/include/linux/ring_buffer.h

have() {
	grep -qsE "$2" "$1" && printf ' -D%s' "$3"
}

have "$rb" 'ring_buffer_read_page_data' KT_HAVE_RB_READ_PAGE_DATA
have "$rb" 'buffer_data_read_page \*\*rpage' KT_HAVE_RB_ALLOC_RPAGE_INT
have "$rb" 'ring_buffer_unlock_commit\(struct trace_buffer \*buffer\);' \
	KT_HAVE_RB_COMMIT_NOEVENT
sed -n '/TRACE_EVENT(timer_start/,/TP_ARGS/p' \
	"$src/include/trace/events/timer.h" 2>/dev/null |
	grep -q 'unsigned int flags' && printf ' -D%s' KT_HAVE_TIMER_START_FLAGS
echo
