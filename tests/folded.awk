# The oracle of `ktrace report --stacks`: folded stacks from the text of
# `trace-cmd report` (kernel_stack records print as "=> func (addr)"
# lines under their "<stack trace >" line).  Each stack belongs to the
# event before it on its CPU; comm is the event's task, or a switch's
# prev_comm; the tracing machinery's frames at the inner end are left
# out.  Prints "comm;outer;...;inner count", unsorted.  -v only=EVENT:
# the stacks of EVENT's records only.
function flush(   k, i, first) {
	if (!collecting)
		return
	collecting = 0
	if (owner == "" || (only != "" && owner_ev != only))
		return
	for (first = 0; first < n; first++)
		if (frames[first] !~ /^(trace_event_raw_event_|__traceiter_|perf_trace_|__bpf_trace_|trace_call_bpf)/)
			break
	k = owner
	for (i = n - 1; i >= first; i--)
		k = k ";" frames[i]
	count[k]++
}
/^=> / {
	if (collecting)
		frames[n++] = $2
	next
}
{
	flush()
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/)
			break
	if (i > NF)
		next
	# An instance's lines start with its name: a CPU of each buffer.
	cpu = (i > 2 && $1 ~ /:$/ ? $1 : "") $i
	ev = $(i + 2)
	sub(/:$/, "", ev)
	if (ev == "kernel_stack") {
		collecting = 1
		n = 0
		owner = last[cpu]
		owner_ev = last_ev[cpu]
		last[cpu] = ""
		next
	}
	comm = $(i - 1)
	sub(/-[0-9]+$/, "", comm)
	if (ev == "sched_switch") {
		comm = $(i + 3)
		sub(/:[0-9]+$/, "", comm)
	}
	last[cpu] = comm
	last_ev[cpu] = ev
}
END {
	flush()
	for (k in count)
		print k, count[k]
}
