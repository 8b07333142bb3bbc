# SPDX-License-Identifier: GPL-2.0
# Input: trace-cmd report text.  For each CPU's "cpuK i" marks: every gap
# in the sequence must be announced by a drop line for that CPU with the
# same count ("?" when the kernel could not store it), and every drop line
# must be followed by a gap.  Prints "cpuK read lost unknown" per CPU.
match($0, /CPU:[0-9]+ \[([0-9]+ )?EVENTS DROPPED\]/) {
	s = substr($0, RSTART, RLENGTH)
	split(s, a, /[: \[]/)
	c = a[2]
	n = (s ~ /\[[0-9]+ /) ? a[4] : -1
	if (n < 0) unknown[c] = 1; else pend[c] += n
	seen[c] = 1
	next
}
match($0, /: cpu[0-9]+ [0-9]+$/) {
	split(substr($0, RSTART + 2), a, / /)
	c = substr(a[1], 4); i = a[2] + 0
	gap = i - last[c] - 1
	if (gap < 0) { print "cpu" c ": mark " i " after " last[c]; bad = 1 }
	if (gap > 0 && !unknown[c] && pend[c] != gap) { print "cpu" c ": gap of " gap " before " i ", drop mark says " pend[c] + 0; bad = 1 }
	if (gap == 0 && (pend[c] || unknown[c])) { print "cpu" c ": drop mark with no gap before " i; bad = 1 }
	if (gap > 0 && unknown[c]) unk[c]++
	lost[c] += gap; read[c]++
	last[c] = i; pend[c] = 0; unknown[c] = 0
	cpus[c] = 1
}
END {
	for (c in cpus) print "cpu" c, read[c], lost[c], unk[c] + 0
	exit bad
}
