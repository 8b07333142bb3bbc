#!/usr/bin/env bats
# ktrace report's whole-trace views: --format chrome (trace-event JSON)
# and --timeline (SVG).  Checked against the same file's own events as
# `ktrace report --format json` decodes them.

load helpers

setup_file() {
	export VD=$BATS_FILE_TMPDIR
	cd "$VD"
	"$KTRACE" record -q -o sched.dat -- dbench -t 1 2 >/dev/null 2>&1
	# A tiny buffer under a syscall flood: lost-event marks in the data.
	"$KTRACE" record -q -b 4 -e sched -e syscalls -o lost.dat -- dbench -t 1 2 \
		>/dev/null 2>&1
	# The sched_switch facts per CPU, from the line decoder.
	"$KTRACE" report -i sched.dat --format json >sched.jsonl
}

setup() {
	cd "$VD"
}

# python3 check of a chrome JSON against report's JSON lines.
check_chrome() { # TRACE.json JSONL
	python3 - "$1" "$2" <<'PY'
import json, sys
from collections import defaultdict
tr = json.load(open(sys.argv[1]))
ev = [json.loads(l) for l in open(sys.argv[2]) if '"event"' in l]
CPU = 1000000000
switches = defaultdict(list)
last = max(e["ts"] for e in ev)
for e in ev:
    if e["event"] == "sched_switch":
        switches[e["cpu"]].append((e["ts"], e["next_pid"]))
ns = lambda us: round(us * 1000)
slices = defaultdict(list)
for t in tr["traceEvents"]:
    if t["ph"] == "X":
        assert t["pid"] == CPU, t
        slices[t["tid"]].append(t)
for cpu, sw in switches.items():
    runs = [(i, s) for i, s in enumerate(sw) if s[1] != 0]
    got = slices[cpu]
    assert len(got) == len(runs), (cpu, len(got), len(runs))
    for (i, (ts, pid)), x in zip(runs, sorted(got, key=lambda x: x["ts"])):
        assert ns(x["ts"]) == ts, (cpu, x, ts)
        assert x["args"]["pid"] == pid and x["name"].endswith(":%d" % pid), x
        # A run ends where the next sched_switch on its CPU is, or at
        # the end of the trace.
        end = sw[i + 1][0] if i + 1 < len(sw) else last
        assert ns(x["ts"]) + ns(x["dur"]) == end, (cpu, x, end)
inst = [t for t in tr["traceEvents"] if t["ph"] == "i" and t["cat"] != "lost"]
ends = [t for t in tr["traceEvents"] if t["ph"] in "BE" and not t["args"].get("unfinished")]
others = [e for e in ev if e["event"] != "sched_switch"]
# Every other event is an instant, or one end of a slice.
assert len(inst) + len(ends) == len(others), (len(inst), len(ends), len(others))
print("ok %d slices, %d instants" % (sum(map(len, slices.values())), len(inst)))
PY
}

@test "--format chrome: trace-event JSON with names and one track per CPU" {
	run "$KTRACE" report -i sched.dat --format chrome -o trace.json
	assert_success
	# The structure Perfetto and chrome://tracing load.
	jq -e '(.traceEvents | type) == "array" and (.traceEvents | length) > 100' trace.json
	jq -e 'all(.traceEvents[]; has("ph") and has("pid") and has("name") and
		(.ph == "M" or ((.ts | type) == "number")) and
		(.ph != "X" or (.dur >= 0)))' trace.json
	# Names: the CPUs process, a named track per CPU, every task named.
	jq -e '[.traceEvents[] | select(.ph == "M" and .name == "process_name" and .args.name == "CPUs")] | length == 1' trace.json
	ncpu=$(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l)
	[ "$(jq '[.traceEvents[] | select(.ph == "M" and .name == "thread_name" and .pid == 1000000000)] | length' trace.json)" -eq "$ncpu" ]
	jq -e '([.traceEvents[] | select(.ph != "M" and .pid != 1000000000) | .pid] | unique) -
		([.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .pid] | unique) == []' trace.json
	# dbench itself shows up by name.
	jq -e '[.traceEvents[] | select(.ph == "X" and (.name | startswith("dbench:")))] | length > 0' trace.json
}

@test "--format chrome: every run slice ends at its CPU's next sched_switch" {
	"$KTRACE" report -i sched.dat --format chrome -o trace.json
	run check_chrome trace.json sched.jsonl
	assert_success
	assert_output --partial "ok "
}

@test "--format chrome: lost events are instants on their CPU's track" {
	"$KTRACE" report -i lost.dat --format chrome -o lost.json
	marks=$("$KTRACE" report -i lost.dat | grep -c 'EVENTS DROPPED')
	[ "$marks" -gt 0 ]
	[ "$(jq '[.traceEvents[] | select(.cat == "lost" and .pid == 1000000000)] | length' lost.json)" -eq "$marks" ]
}

# python3 check of chrome's system call and interrupt slices against
# the pairs report's JSON lines give, event by event.
check_slices() { # TRACE.json JSONL
	python3 - "$1" "$2" <<'PY'
import json, sys
from collections import defaultdict
tr = json.load(open(sys.argv[1]))["traceEvents"]
ev = [json.loads(l) for l in open(sys.argv[2]) if '"event"' in l]
CPU, IRQ = 1000000000, 100000
ns = lambda us: round(us * 1000)
# The oracle: an exit ends the open call of its task when the ids match;
# a softirq_exit the open softirq of its CPU when the vectors match.
want_sys, open_sys = [], {}
want_irq, open_soft, open_hard = [], {}, {}
for e in ev:
    n, pid = e["event"], e["pid"]
    if n == "sys_enter" and pid > 0:
        open_sys[pid] = e
    elif n == "sys_exit" and pid in open_sys and open_sys[pid]["id"] == e["id"]:
        want_sys.append((pid, open_sys.pop(pid)["ts"], e["ts"], e["ret"]))
    elif n == "softirq_entry":
        open_soft[e["cpu"]] = e
    elif n == "softirq_exit" and e["cpu"] in open_soft and open_soft[e["cpu"]]["vec"] == e["vec"]:
        want_irq.append((e["cpu"], "softirq", open_soft.pop(e["cpu"])["ts"], e["ts"]))
    elif n == "irq_handler_entry":
        open_hard[e["cpu"]] = e
    elif n == "irq_handler_exit" and e["cpu"] in open_hard:
        want_irq.append((e["cpu"], "irq", open_hard.pop(e["cpu"])["ts"], e["ts"]))
# The view: B/E pairs per track, nested per track as a stack.
got_sys, got_irq, stacks = [], [], defaultdict(list)
for t in sorted((t for t in tr if t["ph"] in "BE"), key=lambda t: t["ts"]):
    if t["ph"] == "B":
        stacks[(t["pid"], t["tid"])].append(t)
        continue
    b = stacks[(t["pid"], t["tid"])].pop()
    assert b["cat"] == t["cat"] and t["ts"] >= b["ts"], (b, t)
    if t["args"].get("unfinished"):
        continue
    if t["cat"] == "syscall":
        assert t["tid"] == b["tid"] and t["pid"] == b["pid"], t
        got_sys.append((t["tid"], ns(b["ts"]), ns(t["ts"]), t["args"]["ret"]))
    else:
        assert t["pid"] == CPU and t["tid"] >= IRQ, t
        got_irq.append((t["tid"] - IRQ, t["cat"], ns(b["ts"]), ns(t["ts"])))
assert not any(stacks.values()), "a slice never ended"
assert sorted(got_sys) == sorted(want_sys), (len(got_sys), len(want_sys))
assert sorted(got_irq) == sorted(want_irq), (len(got_irq), len(want_irq))
print("ok %d system calls, %d interrupts" % (len(got_sys), len(got_irq)))
PY
}

@test "--format chrome: system calls and interrupts are slices, as the events pair" {
	kt_tool getppid_n "$PWD"
	"$KTRACE" record -q -e raw_syscalls -e irq -e sched_switch -o sys.dat -- ./getppid_n 100 >gp.pid
	"$KTRACE" report -i sys.dat --format json >sys.jsonl
	"$KTRACE" report -i sys.dat --format chrome -o sys.json
	run check_slices sys.json sys.jsonl
	assert_success
	assert_output --partial "ok "
	run check_chrome sys.json sys.jsonl
	assert_success
	# The traced program's 100 getppid calls, named, from its own pid.
	gp=$(cat gp.pid)
	[ "$(jq --argjson p "$gp" '[.traceEvents[] | select(.ph == "B" and .name == "getppid" and .pid == $p)] | length' sys.json)" -eq 100 ]
	# Errors carry their errno name; softirqs their vector's.
	jq -e '[.traceEvents[] | select(.ph == "E" and .cat == "syscall" and (.args.ret // 0) < 0 and .args.ret > -4096)] | all(.args.errno | test("^E[A-Z0-9]+$"))' sys.json
	jq -e '[.traceEvents[] | select(.ph == "B" and .cat == "softirq")] | all(.name | test("^softirq (HI|TIMER|NET_TX|NET_RX|BLOCK|IRQ_POLL|TASKLET|SCHED|HRTIMER|RCU)$"))' sys.json
	# syscalls:* events pair the same way, named by the call.
	"$KTRACE" record -q -e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid -o sc.dat -- ./getppid_n 100 >/dev/null
	"$KTRACE" report -i sc.dat --format chrome -o sc.json
	[ "$(jq '[.traceEvents[] | select(.ph == "B" and .name == "getppid")] | length' sc.json)" -ge 100 ]
	[ "$(jq '[.traceEvents[] | select(.ph == "E" and .cat == "syscall")] | length' sc.json)" -ge 100 ]
}

# python3 check of chrome's stacks against report's JSON lines: every
# record followed on its CPU by stacks (kernel_stack, user_stack) has
# them as "sf" (a run slice's end: "esf") or, where it made no trace
# event, as an instant of its own; every frame named resolves.
check_stacks() { # TRACE.json JSONL
	python3 - "$1" "$2" <<'PY'
import json, sys
tr = json.load(open(sys.argv[1]))
ev = [json.loads(l) for l in open(sys.argv[2]) if '"event"' in l]
frames = tr["stackFrames"]
last, followed = {}, set()
for i, e in enumerate(ev):
    if e["event"] in ("kernel_stack", "user_stack"):
        # A stack of no frames names nothing.
        named = [c for c in e.get("caller", []) if c not in (0, (1 << 64) - 1)]
        if e["cpu"] in last and named:
            followed.add(last[e["cpu"]])
    else:
        last[e["cpu"]] = i
with_sf = [t for t in tr["traceEvents"] if "sf" in t or "esf" in t]
alone = [t for t in with_sf if t.get("cat") == "stack"]
assert len(with_sf) == len(followed), (len(with_sf), len(followed))
for t in with_sf:
    f = t.get("sf", t.get("esf"))
    n = 0
    while f is not None:
        assert f in frames, f
        assert frames[f]["category"] in ("kernel", "user"), frames[f]
        f, n = frames[f].get("parent"), n + 1
        assert n < 10000, "a cycle"
assert "(array)" not in open(sys.argv[1]).read()
print("ok %d stacks, %d alone, %d frames" % (len(with_sf), len(alone), len(frames)))
PY
}

# The frames of an event's stack, innermost first: "category:name".
chain() { # TRACE.json SF
	jq -r --arg f "$2" '.stackFrames as $F | [$f | recurse($F[.].parent // empty)] | .[] | "\($F[.].category):\($F[.].name)"' "$1"
}

@test "--format chrome: kernel and user stacks are the stack frames of their events" {
	kt_tool getppid_n "$PWD"
	"$KTRACE" record -q -T --user-stack -F -e syscalls:sys_enter_getppid -e sched_switch \
		-o u.dat -- ./getppid_n 20
	"$KTRACE" report -i u.dat --format json >u.jsonl
	run "$KTRACE" report -i u.dat --format chrome -o u.json
	assert_success
	run check_stacks u.json u.jsonl
	assert_success
	assert_output --partial "ok "
	# Each getppid's stack: the kernel's frames on top of libc's syscall.
	sf=$(jq -r '[.traceEvents[] | select(.ph == "B" and .name == "getppid")] | .[0].sf' u.json)
	run chain u.json "$sf"
	assert_line "kernel:do_syscall_64"
	assert_line --index $((${#lines[@]} - 1)) "user:syscall"
	[ "$(jq '[.traceEvents[] | select(.ph == "B" and .name == "getppid" and .sf)] | length' u.json)" -eq 20 ]
	# The same with -e: a stack goes with its event when that is selected.
	"$KTRACE" report -i u.dat -e sched_switch --format chrome -o s.json
	jq -e '[.traceEvents[] | select(.name == "getppid")] | length == 0' s.json
	jq -e '[.traceEvents[] | select(.esf)] | length > 0' s.json
	# trace-cmd's stacks (caller[8] with the end mark), from the corpus.
	"$KTRACE" report -i "$TOP/tests/data/tc-v7-stack.dat" --format json >tcs.jsonl
	"$KTRACE" report -i "$TOP/tests/data/tc-v7-stack.dat" --format chrome -o tcs.json
	run check_stacks tcs.json tcs.jsonl
	assert_success
	assert_output --partial "ok "
	# Perfetto's trace: the same stacks as samples, libc's syscall named.
	"$KTRACE" report -i u.dat --format perfetto -o u.pftrace
	run check_pftrace u.pftrace u.jsonl
	assert_success
	assert_output --regexp ", [1-9][0-9]* stacks$"
	run pf_decode u.pftrace
	assert_output --partial 'str: "syscall"'
	assert_output --partial 'str: "do_syscall_64"'
	# A bigger mixed file: wakeups, interrupts, calls, switches.
	"$KTRACE" record -q -T -e sched_switch -e sched_wakeup -e raw_syscalls -e irq \
		-o st.dat -- ./getppid_n 2000
	"$KTRACE" report -i st.dat --format json >st.jsonl
	"$KTRACE" report -i st.dat --format chrome -o st.json
	run check_stacks st.json st.jsonl
	assert_success
	assert_output --partial "ok "
}

@test "--format chrome: threads under their process (pid is the tgid), named" {
	cc -O2 -o threads_n "$TOP/tests/threads_n.c" -lpthread
	"$KTRACE" record -q -e sched_switch -e raw_syscalls -o th.dat -- ./threads_n 3 20 100 >/dev/null
	"$KTRACE" report -i th.dat --format chrome -o th.json
	# The 4 tasks' getppid slices: one process, 4 threads, 20 each.
	run jq -c '[.traceEvents[] | select(.ph == "B" and .name == "getppid") | [.pid, .tid]] |
		group_by(.) | map(length)' th.json
	assert_output "[20,20,20,20]"
	[ "$(jq '[.traceEvents[] | select(.ph == "B" and .name == "getppid") | .pid] | unique | length' th.json)" -eq 1 ]
	tgid=$(jq '[.traceEvents[] | select(.ph == "B" and .name == "getppid") | .pid] | unique | .[0]' th.json)
	[ "$(jq --argjson p "$tgid" '[.traceEvents[] | select(.ph == "M" and .name == "process_name" and .pid == $p and .args.name == "threads_n")] | length' th.json)" -eq 1 ]
	[ "$(jq --argjson p "$tgid" '[.traceEvents[] | select(.ph == "M" and .name == "thread_name" and .pid == $p)] | length' th.json)" -eq 4 ]
	# A process named once, every track named.
	jq -e '[.traceEvents[] | select(.ph == "M" and .name == "process_name") | .pid] | length == (unique | length)' th.json
}

@test "--format chrome: a probe's events have the category probe, not its group" {
	[ -e "$TRACEFS/uprobe_events" ] || skip "no uprobe_events"
	kt_tool probe_target "$PWD" -O1 -g
	"$KTRACE" record -q -F -o p.dat --uprobe "$PWD/probe_target:kt_probe_target x=%di:s32" \
		-- ./probe_target 10
	"$KTRACE" report -i p.dat --format chrome -o p.json
	run jq -c '[.traceEvents[] | select(.name == "kt_probe_target") | .cat] | unique' p.json
	assert_output '["probe"]'
	[ "$(jq '[.traceEvents[] | select(.name == "kt_probe_target")] | map(.args.x) | sort' p.json | jq -c .)" = "[0,1,2,3,4,5,6,7,8,9]" ]
}

# protoc's text of a Perfetto trace report wrote (--format perfetto),
# decoded with lib/views/perfetto_trace.proto: that subset is upstream's
# (tests/perfetto-proto-check.py).  A generic event (one Perfetto has no
# message for) is an FtraceEvent field numbered 65536 and up that its
# bundle's generic_event_descriptors describe: the subset is decoded
# once for them, and the trace again with each as a message of
# FtraceEvent named gen_FIELDID_EVENTNAME, its fields named as the
# descriptor names them (int64 ones as uint64, as GenericFtraceEvent's
# uint_value gave them).
pf_decode() { # TRACE.pftrace
	local dir=$BATS_TEST_TMPDIR/pfproto
	mkdir -p "$dir/views"
	protoc --proto_path="$TOP/lib" --decode=perfetto.protos.Trace \
		views/perfetto_trace.proto <"$1" >"$dir/first.txt" || return 1
	python3 - "$TOP/lib/views/perfetto_trace.proto" "$dir/first.txt" \
		>"$dir/views/perfetto_trace.proto" <<'PY' || return 1
import ast, re, sys
proto, text = open(sys.argv[1]).read(), open(sys.argv[2]).read()
def fields(b):
    """A message's fields as (number, value): varints and bytes only."""
    i, out = 0, []
    def varint():
        nonlocal i
        v = s = 0
        while True:
            c = b[i]; i += 1
            v |= (c & 0x7f) << s; s += 7
            if c < 0x80:
                return v
    while i < len(b):
        k = varint()
        if k & 7 == 0:
            out.append((k >> 3, varint()))
        elif k & 7 == 2:
            n = varint()
            out.append((k >> 3, b[i:i + n])); i += n
        else:
            raise ValueError("wire type %d" % (k & 7))
    return out
types = {3: "uint64", 9: "string", 18: "sint64"}
oneof, msgs = [], []
descs = re.findall(r'generic_event_descriptors \{\s*field_id: (\d+)\s*event_descriptor: ("(?:[^"\\]|\\.)*")', text)
for fid, raw in dict(descs).items():
    d = fields(ast.literal_eval("b" + raw))
    name = [v for k, v in d if k == 1][0].decode()
    oneof.append("    G%s gen_%s_%s = %s;" % (fid, fid, name, fid))
    body = []
    for k, v in d:
        if k == 2:
            f = dict(fields(v))
            body.append("  optional %s %s = %d;" % (types[f[5]], f[1].decode(), f[3]))
    msgs.append("message G%s {\n%s\n}" % (fid, "\n".join(body)))
at = proto.index("  oneof event {\n") + len("  oneof event {\n")
print(proto[:at] + "".join(l + "\n" for l in oneof) + proto[at:] + "\n".join(msgs))
PY
	protoc --proto_path="$dir" --decode=perfetto.protos.Trace \
		views/perfetto_trace.proto <"$1"
}

# python3 check of a Perfetto trace against report's JSON lines, CPU by
# CPU: the compact switches and wakings (timestamps undone from their
# deltas), every other event by name and time, typed or generic, their
# fields' values where JSON has them, no field protoc does not know, the
# process tree naming every task, the losses in the stats.
check_pftrace() { # TRACE.pftrace JSONL
	pf_decode "$1" >"$1.txt" || return 1
	python3 - "$1.txt" "$2" <<'PY'
import ast, json, re, sys
from collections import defaultdict
text = open(sys.argv[1]).read()
# protoc's strings: C escapes (octal for bytes past ASCII).
unquote = lambda v: ast.literal_eval("b" + v).decode("utf-8", "replace")
assert not re.search(r"^\s*\d+(:| \{)", text, re.M), "unknown fields"
def parse(lines, i):
    node = defaultdict(list)
    while i < len(lines):
        l = lines[i].strip()
        i += 1
        if l == "}":
            return node, i
        if l.endswith("{"):
            sub, i = parse(lines, i)
            node[l[:-1].strip()].append(sub)
        else:
            k, v = l.split(": ", 1)
            node[k].append(unquote(v) if v[0] == '"' else int(v) if re.match(r"^-?\d+$", v) else v)
    return node, i
root, _ = parse(text.splitlines(), 0)
ev = [json.loads(l) for l in open(sys.argv[2])]
# The stacks: each of a record that has one before it on its CPU, its
# frames up to the kernel's end mark, outermost first, named or 0xADDR.
want_st, seen = [], set()
for e in ev:
    if e.get("event") in ("kernel_stack", "user_stack"):
        named = []
        for c, n in zip(e["caller"], e.get("caller_names") or [None] * len(e["caller"])):
            if c == (1 << 64) - 1:
                break
            if c:
                named.append(n or "0x%x" % c)
        if e["cpu"] in seen and named:
            want_st.append((e["cpu"], e["ts"], named[::-1]))
    elif "event" in e:
        seen.add(e["cpu"])
lost = defaultdict(int)
for e in ev:
    if "lost" in e and "event" not in e and e["lost"]:
        lost[e["cpu"]] += e["lost"]
ev = [e for e in ev if "event" in e and e["event"] not in ("kernel_stack", "user_stack")]
COMMON = ("timestamp", "pid", "common_flags")
got_sw, got_wk, got = defaultdict(list), defaultdict(list), defaultdict(list)
stats, tree = {}, None
names, frames, stacks, got_st = {}, {}, {}, []
for p in root["packet"]:
    for d in p.get("interned_data", []):
        names.update({x["iid"][0]: x["str"][0] for x in d.get("function_names", [])})
        frames.update({x["iid"][0]: x["function_name_id"][0] for x in d.get("frames", [])})
        stacks.update({x["iid"][0]: x["frame_ids"] for x in d.get("callstacks", [])})
    if "perf_sample" in p:
        ps = p["perf_sample"][0]
        got_st.append((ps["cpu"][0], p["timestamp"][0],
                       [names[frames[f]] for f in stacks[ps["callstack_iid"][0]]]))
    if "ftrace_events" in p:
        b = p["ftrace_events"][0]
        cpu = b["cpu"][0]
        for fe in b.get("event", []):
            (kind,) = [k for k in fe if k not in COMMON]
            msg = fe[kind][0]
            name = msg["event_name"][0] if kind == "generic" else \
                kind.split("_", 2)[2] if re.match(r"gen_\d+_", kind) else kind
            got[cpu].append((fe["timestamp"][0], name, fe["pid"][0], msg))
        for cs in b.get("compact_sched", []):
            tab = cs.get("intern_table", [])
            t = 0
            for i, d in enumerate(cs.get("switch_timestamp", [])):
                t = d if i == 0 else t + d
                got_sw[cpu].append((t, cs["switch_next_pid"][i], tab[cs["switch_next_comm_index"][i]], cs["switch_prev_state"][i]))
            t = 0
            for i, d in enumerate(cs.get("waking_timestamp", [])):
                t = d if i == 0 else t + d
                got_wk[cpu].append((t, cs["waking_pid"][i], tab[cs["waking_comm_index"][i]], cs["waking_target_cpu"][i]))
    elif "process_tree" in p:
        tree = p["process_tree"][0]
    elif "ftrace_stats" in p:
        st = p["ftrace_stats"][0]
        stats[st["phase"][0]] = {c["cpu"][0]: c for c in st.get("cpu_stats", [])}
compact = bool(got_sw or got_wk)
want_sw, want_wk, want = defaultdict(list), defaultdict(list), defaultdict(list)
for e in ev:
    if compact and e["event"] == "sched_switch":
        want_sw[e["cpu"]].append((e["ts"], e["next_pid"], e["next_comm"], e["prev_state"]))
    elif compact and e["event"] == "sched_waking":
        want_wk[e["cpu"]].append((e["ts"], e["field_pid"], e["field_comm"], e["target_cpu"]))
    else:
        want[e["cpu"]].append(e)
assert dict(got_sw) == dict(want_sw), "compact switches differ"
assert dict(got_wk) == dict(want_wk), "compact wakings differ"
n = 0
for cpu in set(want) | set(got):
    g = sorted(got[cpu], key=lambda x: (x[0], x[1]))
    w = sorted(want[cpu], key=lambda e: (e["ts"], e["event"]))
    assert [(x[0], x[1], x[2]) for x in g] == [(e["ts"], e["event"], e["pid"]) for e in w], ("events differ", cpu, len(g), len(w))
    for (ts, name, pid, msg), e in zip(g, w):
        vals = {f["name"][0]: (f.get("str_value") or f.get("int_value") or f.get("uint_value"))[0]
                for f in msg.get("field", [])} if "event_name" in msg else {k: v[0] for k, v in msg.items()}
        for k, v in vals.items():
            # JSON names a field that is also a common key field_NAME.
            k = "field_" + k if "field_" + k in e else k
            if k in ("pid", "comm", "cpu", "ts", "event", "system", "buffer"):
                continue
            if k in e and isinstance(e[k], (int, str)) and not isinstance(e[k], bool):
                x = e[k] if not isinstance(e[k], int) or isinstance(v, str) or e[k] >= 0 else e[k] % (1 << 64) if v > (1 << 63) else e[k]
                assert v == x or str(v) == str(x), (name, k, v, e[k])
        n += 1
# Every task an event names is in the process tree.
tids = {t["tid"][0]: t["tgid"][0] for t in tree.get("threads", [])} if tree else {}
pids = {p["pid"][0] for p in tree.get("processes", [])} if tree else set()
for e in ev:
    for k in ("pid", "next_pid", "prev_pid", "field_pid"):
        if isinstance(e.get(k), int) and e[k] > 0:
            assert e[k] in tids or e[k] in pids, ("not in the tree", k, e[k])
for tid, tgid in tids.items():
    assert tgid in pids, ("a thread's process is missing", tid, tgid)
# The losses, per CPU, in the stats at the end.
end = stats.get("END_OF_TRACE", {})
for cpu, c in end.items():
    assert c.get("overrun", [0])[0] == lost.get(cpu, 0), (cpu, c, lost.get(cpu))
assert sorted(got_st) == sorted(want_st), ("stacks differ", len(got_st), len(want_st))
print("ok %d events, %d switches, %d wakings, %d processes, %d threads, %d stacks" % (
    n, sum(map(len, got_sw.values())), sum(map(len, got_wk.values())), len(pids), len(tids), len(got_st)))
PY
}

@test "--format perfetto: the proto subset is upstream's (field numbers, types, labels)" {
	run python3 "$TOP/tests/perfetto-proto-check.py" "$TOP/lib/views/perfetto_trace.proto" \
		"$TOP/tests/data/perfetto-protos"
	assert_success
	assert_output --regexp "^ok [0-9]+ messages, [0-9]+ fields$"
	# And it tells a change from upstream.
	sed 's/optional int32 next_pid = 6;/optional int32 next_pid = 7;/' \
		"$TOP/lib/views/perfetto_trace.proto" >bad.proto
	run python3 "$TOP/tests/perfetto-proto-check.py" bad.proto "$TOP/tests/data/perfetto-protos"
	assert_failure
	assert_output --partial "SchedSwitchFtraceEvent.next_pid"
}

@test "--format perfetto: the stored corpus, event for event, compact sched and typed" {
	for f in kt-kinds tc-sched kt-sched tc-v7-lost tc-syscalls tc-v7-stack; do
		"$KTRACE" report -i "$TOP/tests/data/$f.dat" --format json >"$f.jsonl"
		run "$KTRACE" report -i "$TOP/tests/data/$f.dat" --format perfetto -o "$f.pftrace"
		assert_success
		run check_pftrace "$f.pftrace" "$f.jsonl"
		assert_success
		assert_output --partial "ok "
	done
	# trace-cmd's stacks as samples.
	run check_pftrace tc-v7-stack.pftrace tc-v7-stack.jsonl
	assert_output --regexp ", 109 stacks$"
	# Typed messages where Perfetto has them, generic ones for the rest.
	run pf_decode kt-kinds.pftrace
	# The kernel first, by which Perfetto reads prev_state.
	first=$(sed -n '1,/^}/p' <<<"$output" | tr -d ' \n')
	[[ $first == *'sequence_flags:1system_info{utsname{sysname:"Linux"release:"6.18.44-fc-v782"'* ]]
	assert_output --partial "sched_wakeup {"
	assert_output --partial "softirq_raise {"
	assert_output --partial "sched_migrate_task {"
	assert_output --regexp 'gen_[0-9]+_mm_page_alloc \{'
	assert_output --partial 'group_name: "kmem"'
	assert_output --partial "compact_sched {"
	run pf_decode tc-sched.pftrace
	assert_output --partial "sched_process_fork {"
	assert_output --partial "sched_process_exec {"
	# A loss marks the bundle after it.
	run pf_decode tc-v7-lost.pftrace
	assert_output --partial "lost_events: true"
}

@test "--format perfetto: a recording: switches per CPU as report counts them, the process tree" {
	"$KTRACE" report -i sched.dat --format perfetto -o sched.pftrace
	run check_pftrace sched.pftrace sched.jsonl
	assert_success
	assert_output --partial "ok "
	# No bigger than the trace.dat of the same events.
	[ "$(stat -c %s sched.pftrace)" -le "$(stat -c %s sched.dat)" ]
	# The clock snapshot: the trace's start (BOOTTIME, 6) in REALTIME (1),
	# by the offsets record measured (sql's meta shows them).
	run pf_decode sched.pftrace
	boot=$(grep -A3 "clock_id: 6" <<<"$output" | awk '/timestamp/ { print $2 }')
	real=$(grep -A3 "clock_id: 1$" <<<"$output" | awk '/timestamp/ { print $2 }')
	[ -n "$boot" ]
	[ -n "$real" ]
	offs=$("$KTRACE" sql -i sched.dat "select value from meta where key like 'realtime_offset_%'" | grep -E '^[0-9]+$' | sort -n)
	lo=$(head -1 <<<"$offs") hi=$(tail -1 <<<"$offs")
	[ $((real - boot)) -ge "$lo" ]
	[ $((real - boot)) -le "$hi" ]
	# threads_n's threads under their process.
	cc -O2 -o threads_n "$TOP/tests/threads_n.c" -lpthread
	"$KTRACE" record -q -e sched_switch -e sched_waking -e raw_syscalls -o th.dat -- ./threads_n 3 20 100 >/dev/null
	"$KTRACE" report -i th.dat --format json >th.jsonl
	"$KTRACE" report -i th.dat --format perfetto -o th.pftrace
	run check_pftrace th.pftrace th.jsonl
	assert_success
	tgid=$(jq -s '[.[] | select(.event == "sys_enter" and .comm == "threads_n") | .pid] | min' th.jsonl)
	run pf_decode th.pftrace
	[ "$(grep -c "tgid: $tgid\$" <<<"$output")" -eq 3 ]
	grep -q "pid: $tgid\$" <<<"$output"
}

@test "--format perfetto: selections apply (-e, --cpu, --pid, --from/--to)" {
	"$KTRACE" report -i sched.dat -e sched_switch --cpu 0 --format json >sel.jsonl
	"$KTRACE" report -i sched.dat -e sched_switch --cpu 0 --format perfetto -o sel.pftrace
	run check_pftrace sel.pftrace sel.jsonl
	assert_success
	run pf_decode sel.pftrace
	refute_output --regexp "cpu: [1-9]"
	# A task's events: switches typed, whole (the compact form needs every switch).
	pid=$(jq -s 'map(select(.event == "sched_switch" and .next_pid > 0)) | .[0].next_pid' sched.jsonl)
	"$KTRACE" report -i sched.dat --pid "$pid" --format json >pid.jsonl
	"$KTRACE" report -i sched.dat --pid "$pid" --format perfetto -o pid.pftrace
	run check_pftrace pid.pftrace pid.jsonl
	assert_success
	run pf_decode pid.pftrace
	refute_output --partial "compact_sched"
	assert_output --partial "sched_switch {"
	# A window.
	from=$(jq -s '.[length / 3 | floor].ts' sched.jsonl)
	to=$(jq -s '.[2 * length / 3 | floor].ts' sched.jsonl)
	from=@$((from / 1000000000)).$(printf %09d $((from % 1000000000)))
	to=@$((to / 1000000000)).$(printf %09d $((to % 1000000000)))
	"$KTRACE" report -i sched.dat --from "$from" --to "$to" --format json >win.jsonl
	"$KTRACE" report -i sched.dat --from "$from" --to "$to" --format perfetto -o win.pftrace
	run check_pftrace win.pftrace win.jsonl
	assert_success
}

@test "--format perfetto: a series of chunks (-i DIR) converts as one trace" {
	# A chunk holds about 230K of events past its fixed part (kallsyms):
	# 12000 switches make two, a third of what dbench -t 1 made to check.
	"$KTRACE" record -q --rotate 1100K -e sched -e raw_syscalls -o ser -- \
		stress-ng --switch 1 --switch-ops 12000 -q >/dev/null 2>&1
	[ "$(ls ser | wc -l)" -ge 2 ]
	"$KTRACE" report -i ser --format json >ser.jsonl
	run "$KTRACE" report -i ser --format perfetto -o ser.pftrace
	assert_success
	run check_pftrace ser.pftrace ser.jsonl
	assert_success
	assert_output --partial "ok "
}

check_svg() { # SVG JSONL
	python3 - "$1" "$2" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
from collections import defaultdict
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
ev = [json.loads(l) for l in open(sys.argv[2]) if '"event"' in l]
last = max(e["ts"] for e in ev)
sw = defaultdict(list)
for e in ev:
    if e["event"] == "sched_switch":
        sw[e["cpu"]].append((e["ts"], e["next_pid"]))
nspp = float(root.get("data-ns-per-px"))
lanes = root.findall(NS + "g[@class='lane']")
ncpu = int(sys.argv[3]) if len(sys.argv) > 3 else None
for lane in lanes:
    cpu = int(lane.get("data-cpu"))
    runs = lane.findall(NS + "rect[@class='run']")
    s = sw.get(cpu, [])
    busy = 0
    n = 0
    for i, (ts, pid) in enumerate(s):
        if pid == 0:
            continue
        n += 1
        busy += (s[i + 1][0] if i + 1 < len(s) else last) - ts
    assert len(runs) == n, (cpu, len(runs), n)
    width = sum(float(r.get("width")) for r in runs)
    assert abs(width * nspp - busy) <= max(1e-6 * busy, 1000), (cpu, width * nspp, busy)
    # The same task, the same colour.
    col = {}
    for r in runs:
        assert col.setdefault(r.get("data-pid"), r.get("fill")) == r.get("fill")
print("lanes %d" % len(lanes))
PY
}

@test "--timeline: an SVG lane per CPU, a rect per run, widths = busy time" {
	run "$KTRACE" report -i sched.dat --timeline -o sched.svg
	assert_success
	xmllint --noout sched.svg
	ncpu=$(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l)
	run check_svg sched.svg sched.jsonl
	assert_success
	assert_output "lanes $ncpu"
	# A time axis with labels.
	python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
ax = r.find("{http://www.w3.org/2000/svg}g[@class=\"axis\"]")
assert len(ax.findall("{http://www.w3.org/2000/svg}text")) >= 3' sched.svg
}

@test "--timeline: lost-event spans are hatched" {
	"$KTRACE" report -i lost.dat --timeline -o lost.svg
	marks=$("$KTRACE" report -i lost.dat | grep -c 'EVENTS DROPPED')
	[ "$marks" -gt 0 ]
	[ "$(grep -c 'class="lost"[^>]*fill="url(#hatch)"' lost.svg)" -eq "$marks" ]
}

@test "--timeline renders in headless Chromium" {
	"$KTRACE" report -i sched.dat --timeline -o sched.svg
	screenshot "$VD/sched.svg" "$VD/out.png" 1300,200
	[ "$(stat -c %s out.png)" -gt 5000 ] || fail "a trivial PNG"
}

@test "views reject options that do not apply" {
	run "$KTRACE" report -i sched.dat --format perfetto --stat
	assert_failure 64
	run "$KTRACE" report -i sched.dat --format chrome --raw
	assert_failure 64
	run "$KTRACE" report -i sched.dat --format chrome --timeline
	assert_failure 64
	run "$KTRACE" report -i sched.dat --format perfetto --raw
	assert_failure 64
}
