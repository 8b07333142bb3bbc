# The oracle of `ktrace report --stacks`: folded stacks from the text of
# `trace-cmd report` (kernel_stack records print as "=> func (addr)"
# lines under their "<stack trace >" line; user_stack records as
# "\t=> 0xADDR" lines, the first on the record's own line, 0x0 after the
# last frame).  Each stack belongs to the event before it on its CPU; an
# event's kernel and user stacks, in whichever order they follow it, are
# one stack: comm, the user frames outermost first, the kernel frames.
# comm is the event's task, or a switch's prev_comm; the tracing
# machinery's frames at the inner end of a kernel stack are left out.
# Prints "comm;outer;...;inner count", unsorted.  -v only=EVENT: the
# stacks of EVENT's records only.

# The stack being read (kind "k" or "u", for CPU cpu) is whole.
function done(   i, first, s) {
	if (kind == "k") {
		for (first = 0; first < n; first++)
			if (frames[first] !~ /^(trace_event_raw_event_|__traceiter_|perf_trace_|__bpf_trace_|trace_call_bpf)/)
				break
		s = ""
		for (i = n - 1; i >= first; i--)
			s = s ";" frames[i]
		kpart[kcpu] = s
		hask[kcpu] = 1
	} else if (kind == "u") {
		s = ""
		for (i = n - 1; i >= 0; i--)
			s = s ";" frames[i]
		upart[kcpu] = s
		hasu[kcpu] = 1
	}
	kind = ""
}
# CPU c's event is over: its stack counts once.
function flush(c) {
	if (owner[c] != "" && (hask[c] || hasu[c]) && (only == "" || owner_ev[c] == only))
		count[owner[c] upart[c] kpart[c]]++
	owner[c] = ""
	hask[c] = hasu[c] = 0
	kpart[c] = upart[c] = ""
}
# A user frame, while it is one (0x0 ends the stack).
function uframe(a) {
	if (a == "0x0")
		ended = 1
	if (!ended)
		frames[n++] = a
}
/^=> / {
	if (kind == "k")
		frames[n++] = $2
	next
}
/^\t=> / {
	if (kind == "u")
		uframe($2)
	next
}
{
	done()
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/)
			break
	if (i > NF)
		next
	# An instance's lines start with its name: a CPU of each buffer.
	cpu = (i > 2 && $1 ~ /:$/ ? $1 : "") $i
	seen[cpu] = 1
	ev = $(i + 2)
	sub(/:$/, "", ev)
	if (ev == "kernel_stack" || ev == "user_stack") {
		k = ev == "kernel_stack" ? "k" : "u"
		if (owner[cpu] == "" || (k == "k" ? hask[cpu] : hasu[cpu]))
			next
		kind = k
		kcpu = cpu
		n = 0
		ended = 0
		if (k == "u" && $(i + 3) == "=>")
			uframe($(i + 4))
		next
	}
	flush(cpu)
	comm = $(i - 1)
	sub(/-[0-9]+$/, "", comm)
	if (ev == "sched_switch") {
		comm = $(i + 3)
		sub(/:[0-9]+$/, "", comm)
	}
	owner[cpu] = comm
	owner_ev[cpu] = ev
}
END {
	done()
	for (c in seen)
		flush(c)
	for (k in count)
		print k, count[k]
}
