#!/usr/bin/env bats
# ktrace report's whole-trace views: --format perfetto (trace-event JSON)
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

# python3 check of a perfetto JSON against report's JSON lines.
check_perfetto() { # TRACE.json JSONL
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
others = [e for e in ev if e["event"] != "sched_switch"]
assert len(inst) == len(others), (len(inst), len(others))
print("ok %d slices, %d instants" % (sum(map(len, slices.values())), len(inst)))
PY
}

@test "--format perfetto: trace-event JSON with names and one track per CPU" {
	run "$KTRACE" report -i sched.dat --format perfetto -o trace.json
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

@test "--format perfetto: every run slice ends at its CPU's next sched_switch" {
	"$KTRACE" report -i sched.dat --format perfetto -o trace.json
	run check_perfetto trace.json sched.jsonl
	assert_success
	assert_output --partial "ok "
}

@test "--format perfetto: lost events are instants on their CPU's track" {
	"$KTRACE" report -i lost.dat --format perfetto -o lost.json
	marks=$("$KTRACE" report -i lost.dat | grep -c 'EVENTS DROPPED')
	[ "$marks" -gt 0 ]
	[ "$(jq '[.traceEvents[] | select(.cat == "lost" and .pid == 1000000000)] | length' lost.json)" -eq "$marks" ]
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
	prof=$(mktemp -d)
	run timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$prof" \
		--screenshot="$VD/out.png" --window-size=1300,200 "file://$VD/sched.svg"
	rm -rf "$prof"
	[ -s out.png ] || fail "no screenshot: $output"
	[ "$(stat -c %s out.png)" -gt 5000 ] || fail "a trivial PNG"
	file out.png | grep -q 'PNG image data'
}

@test "views reject options that do not apply" {
	run "$KTRACE" report -i sched.dat --format perfetto --raw
	assert_failure 64
	run "$KTRACE" report -i sched.dat --format perfetto --timeline
	assert_failure 64
}
