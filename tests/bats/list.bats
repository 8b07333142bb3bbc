#!/usr/bin/env bats
# ktrace list: every form checked against tracefs itself (directory names,
# available_tracers, options/, format files), text and JSON.

load helpers

# Every system:event under events/, sorted: the oracle for `list events`.
tracefs_events() { # [SYSTEM-GLOB [EVENT-GLOB]]
	local d s
	# Parameter expansion, not a sed per event: 2300 events' forks took
	# a minute on a machine whose fork costs 8 ms.
	for d in "$TRACEFS"/events/${1:-*}/${2:-*}/; do
		[ -d "$d" ] || continue
		d=${d%/}
		s=${d%/*}
		echo "${s##*/}:${d##*/}"
	done | LC_ALL=C sort
}

sorted() { LC_ALL=C sort; }

@test "list prints every event as system:event, one a line, as tracefs has them" {
	run ktrace list
	assert_success
	[ "${#lines[@]}" -gt 100 ]
	diff <(printf '%s\n' "${lines[@]}" | sorted) <(tracefs_events)
	assert_line "sched:sched_switch"
	# Control files next to the events are not events.
	refute_line "sched:enable"
	refute_line "sched:filter"
	refute_line --partial "header_page"
}

@test "list events agrees with trace-cmd list -e, plus the events tracers write" {
	run ktrace list events
	assert_success
	# trace-cmd reads available_events, which leaves out ftrace:*.
	diff <(printf '%s\n' "${lines[@]}" | grep -v '^ftrace:' | sorted) \
		<(trace-cmd list -e | sorted)
	[ -z "$(printf '%s\n' "${lines[@]}" | sorted | uniq -d)" ] || fail "duplicate lines"
	# Sorted by system, then by event.
	diff <(printf '%s\n' "${lines[@]}") <(printf '%s\n' "${lines[@]}" | LC_ALL=C sort -t: -k1,1 -k2,2)
}

@test "list events is the default" {
	diff <(ktrace list events) <(ktrace list)
}

@test "list events 'sched:*' lists exactly the sched system" {
	run ktrace list events 'sched:*'
	assert_success
	diff <(printf '%s\n' "${lines[@]}" | sorted) <(tracefs_events sched)
}

@test "list events '*wakeup*' matches event names in every system" {
	run ktrace list events '*wakeup*'
	assert_success
	diff <(printf '%s\n' "${lines[@]}" | sorted) <(tracefs_events '*' '*wakeup*')
	assert_line "sched:sched_wakeup"
}

@test "a GLOB without the word events lists events" {
	diff <(ktrace list 'sched:*') <(ktrace list events 'sched:*')
}

@test "a bare system name and a classic alias work as in -e" {
	diff <(ktrace list sched) <(tracefs_events sched)
	run ktrace list events sched_schedule
	assert_success
	assert_output "sched:sched_switch"
	run ktrace list events sched_switch
	assert_success
	assert_output "sched:sched_switch"
	run ktrace list events '*:sched_switch'
	assert_success
	assert_output "sched:sched_switch"
	# "sched:" is the whole system, like "sched:*".
	diff <(ktrace list events sched:) <(tracefs_events sched)
	run ktrace list events 'sched:sched_wakeup?new'
	assert_success
	assert_output "sched:sched_wakeup_new"
}

@test "list of an unknown event fails and suggests the real one" {
	run ktrace list events sched_swich
	assert_failure 1
	assert_output "ktrace list: unknown event 'sched_swich'; did you mean 'sched:sched_switch'?"
}

@test "list of a glob that matches nothing fails with one line" {
	run ktrace list events '*no_such_event_kt*'
	assert_failure 1
	assert_output "ktrace list: no event matches '*no_such_event_kt*'; see 'ktrace list events'"
	run ktrace list events 'no_such_system_kt:*'
	assert_failure 1
	assert_output --partial "no event matches 'no_such_system_kt:*'"
}

@test "list systems lists the directories of events/" {
	run ktrace list systems
	assert_success
	diff <(printf '%s\n' "${lines[@]}") \
		<(find "$TRACEFS/events" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sorted)
	run ktrace list systems 'sche*'
	assert_success
	assert_output "sched"
	run ktrace list systems 'no_such_kt*'
	assert_failure 1
	assert_output "ktrace list: no system matches 'no_such_kt*'; see 'ktrace list systems'"
}

@test "list tracers lists available_tracers" {
	run ktrace list tracers
	assert_success
	diff <(printf '%s\n' "${lines[@]}") <(tr ' ' '\n' < "$TRACEFS/available_tracers" | grep .)
	assert_line nop
}

@test "list options says on or off as options/ does" {
	run ktrace list options
	assert_success
	[ "${#lines[@]}" -ge 10 ]
	local name state want
	for l in "${lines[@]}"; do
		read -r name state <<<"$l"
		want=off
		[ "$(cat "$TRACEFS/options/$name")" = 1 ] && want=on
		[ "$state" = "$want" ] || fail "option $name: ktrace says $state, tracefs says $want"
	done
	# Aligned: the state column starts at the same place on every line.
	[ "$(printf '%s\n' "${lines[@]}" | awk '{ print length($0) - length($NF) }' | sort -u | wc -l)" -eq 1 ]
}

@test "list aliases prints alias, system:event and description in aligned columns" {
	run ktrace list aliases
	assert_success
	assert_line --regexp '^sched_schedule +sched:sched_switch +context switch$'
	assert_line --regexp '^syscall_entry +raw_syscalls:sys_enter +system call entry$'
	# Column 2 and column 3 start at the same offset on every line.
	[ "$(printf '%s\n' "${lines[@]}" | awk '{ print index($0, $2) }' | sort -u | wc -l)" -eq 1 ]
	[ "$(printf '%s\n' "${lines[@]}" | awk '{ s = $0; sub(/^[^ ]+ +[^ ]+ +/, "", s); print length($0) - length(s) }' | sort -u | wc -l)" -eq 1 ]
	# Every alias resolves to the event it names.
	for l in "${lines[@]}"; do
		read -r alias target _ <<<"$l"
		[ -d "$TRACEFS/events/${target%%:*}/${target#*:}" ] || continue
		[ "$(ktrace list events "$alias")" = "$target" ] || fail "$alias does not list $target"
	done
	run ktrace list aliases 'sched_*'
	assert_success
	assert_equal "${#lines[@]}" 2
}

@test "list --json parses with jq in every form and says what the text says" {
	run ktrace list --json
	assert_success
	[ "$(jq -r '.[] | .system + ":" + .event' <<<"$output")" = "$(ktrace list)" ]
	run ktrace list events --json 'sched:*'
	assert_success
	[ "$(jq length <<<"$output")" -eq "$(tracefs_events sched | wc -l)" ]
	run ktrace list systems --json
	assert_success
	[ "$(jq -r '.[].system' <<<"$output")" = "$(ktrace list systems)" ]
	[ "$(jq -r '.[] | select(.system == "sched") | .events' <<<"$output")" -eq "$(tracefs_events sched | wc -l)" ]
	run ktrace list tracers --json
	assert_success
	[ "$(jq -r '.[] | select(.current) | .tracer' <<<"$output")" = "$(cat "$TRACEFS/current_tracer")" ]
	run ktrace list options --json
	assert_success
	[ "$(jq -r '.[] | select(.option == "overwrite") | .enabled' <<<"$output")" = \
	  "$([ "$(cat "$TRACEFS/options/overwrite")" = 1 ] && echo true || echo false)" ]
	run ktrace list aliases --json
	assert_success
	[ "$(jq -r '.[] | select(.alias == "sched_schedule") | .system + ":" + .event + "|" + .description + "|" + (.available|tostring)' <<<"$output")" = \
	  "sched:sched_switch|context switch|true" ]
	run ktrace list --json --fields sched_switch
	assert_success
	jq -e '.[0].event == "sched_switch" and (.[0].fields | length) > 4' <<<"$output"
}

@test "an empty match in JSON is still valid JSON for the other lists" {
	run bash -c "'$KTRACE' list systems --json 'no_such_kt*' 2>/dev/null"
	assert_failure 1
	[ "$(jq length <<<"$output")" -eq 0 ]
}

# The fields of the format file, as "name offset size signed" lines.
format_fields() { # SYSTEM EVENT
	sed -n 's/^\tfield:\(.*\);\toffset:\([0-9]*\);\tsize:\([0-9]*\);\tsigned:\([01]\);$/\1 \2 \3 \4/p' \
		"$TRACEFS/events/$1/$2/format" |
		awk '{ s = $NF; z = $(NF-1); o = $(NF-2); n = $(NF-3); sub(/\[.*/, "", n); print n, o, z, s }'
}

@test "list --fields prints every field of the format file with offset, size and sign" {
	run ktrace list --fields sched:sched_switch
	assert_success
	assert_line --index 0 --regexp "^sched:sched_switch \(id $(cat "$TRACEFS/events/sched/sched_switch/id")\)$"
	assert_line --regexp '^  field +type +offset +size +signed$'
	assert_line --regexp '^  prev_comm +char\[16\] +8 +16 +no$'
	assert_line --regexp '^  common_pid +int +4 +4 +yes$'
	got=$(printf '%s\n' "${lines[@]}" | awk 'NR > 2 && $1 != "print" { print $1, $(NF-2), $(NF-1), ($NF == "yes") }')
	[ "$got" = "$(format_fields sched sched_switch)" ] || fail "fields differ from the format file: $got"
	assert_line "  print fmt: $(sed -n 's/^print fmt: //p' "$TRACEFS/events/sched/sched_switch/format")"
}

@test "list --fields --json agrees with the format file" {
	run ktrace list --json --fields sched_wakeup
	assert_success
	got=$(jq -r '.[0].fields[] | "\(.name) \(.offset) \(.size) \(if .signed then 1 else 0 end)"' <<<"$output")
	[ "$got" = "$(format_fields sched sched_wakeup)" ] || fail "fields differ: $got"
	[ "$(jq -r '.[0].print_fmt' <<<"$output")" = "$(sed -n 's/^print fmt: //p' "$TRACEFS/events/sched/sched_wakeup/format")" ]
	[ "$(jq -r '.[0].id' <<<"$output")" = "$(cat "$TRACEFS/events/sched/sched_wakeup/id")" ]
	jq -e '[.[0].fields[] | select(.common)] | map(.name) | index("common_pid") != null' <<<"$output"
}

@test "list --fields of a glob prints each event" {
	run ktrace list --json --fields 'sched:sched_wakeup*'
	assert_success
	[ "$(jq -r '.[].event' <<<"$output" | sorted)" = "$(tracefs_events sched 'sched_wakeup*' | sed 's/.*://')" ]
}

@test "list --fields parses every event of this kernel" {
	# kvm:kvm_inj_exception and the like make libtraceevent leak: the
	# ASan run of this test is what keeps that hidden from LSan only.
	run bash -c "set -o pipefail; '$KTRACE' list --json --fields '*' | jq -r '.[] | \"\(.system):\(.event) \(.fields | length)\"'"
	assert_success
	diff <(printf '%s\n' "${lines[@]}" | cut -d' ' -f1) <(ktrace list)
	# Every event has at least the four common fields.
	[ -z "$(printf '%s\n' "${lines[@]}" | awk '$2 < 4')" ]
}

@test "list --fields of an unknown event fails with a suggestion" {
	run ktrace list --fields sched_wakeup_nwe
	assert_failure 1
	assert_output "ktrace list: unknown event 'sched_wakeup_nwe'; did you mean 'sched:sched_wakeup_new'?"
}

@test "list usage errors exit 64" {
	run ktrace list evnets
	assert_failure 64
	assert_output --partial "unknown list 'evnets'; did you mean 'events'?"
	run ktrace list events 'a*' 'b*'
	assert_failure 64
	assert_output --partial "too many arguments"
	run ktrace list systems --fields sched_switch
	assert_failure 64
	assert_output --partial "--fields takes an event"
	run ktrace list --fields
	assert_failure 64
}

@test "list opens no format file (it stays fast) but --fields does" {
	# LeakSanitizer cannot run under ptrace.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	run strace -f -e trace=openat,open -o /dev/stdout "$KTRACE" list
	assert_success
	refute_output --partial "/format\""
	run strace -f -e trace=openat,open -o /dev/stdout "$KTRACE" list --fields sched_switch
	assert_success
	assert_output --partial "events/sched/sched_switch/format\""
}

@test "list into a closed pipe exits 0 quietly" {
	run bash -c "set -o pipefail; '$KTRACE' list 2>&1 | head -n 1"
	assert_success
	assert_output "$(tracefs_events | head -n 1)"
}

@test "list as a user who cannot write tracefs fails with one line" {
	run as_nobody "$KTRACE" list
	assert_failure 1
	assert_output "ktrace list: cannot write tracefs: Permission denied; run as root (or with CAP_SYS_ADMIN and write access to /sys/kernel/tracing)"
}

@test "list --help works without tracefs access" {
	run as_nobody "$KTRACE" list --help
	assert_success
	assert_output --partial "Usage: ktrace list"
}

@test "bash completes list names and, after events, event names" {
	source "$TOP/completions/ktrace.bash"
	PATH="$(dirname "$KTRACE"):$PATH"
	COMP_WORDS=(ktrace list al)
	COMP_CWORD=2
	COMPREPLY=()
	_ktrace
	assert_equal "${COMPREPLY[*]}" "aliases"
	# Bash splits at the colon: the words are sched, :, sched_sw.
	COMP_WORDS=(ktrace list events sched : sched_sw)
	COMP_CWORD=5
	COMPREPLY=()
	_ktrace
	printf '%s\n' "${COMPREPLY[@]}" | grep -qx sched_switch ||
		fail "no sched:sched_switch for 'list events sched_sw': ${COMPREPLY[*]}"
}

@test "list functions: the kernel's functions by glob, with the fallback said" {
	run ktrace list functions 'do_sys_open*'
	assert_success
	assert_line do_sys_openat2
	# This host refuses available_filter_functions: kallsyms, said once.
	if ! cat "$TRACEFS/available_filter_functions" >/dev/null 2>&1; then
		assert_line --index 0 --partial "warning: available_filter_functions: Operation not permitted; listed instead: /proc/kallsyms' functions"
		[ "$(grep -c warning <<<"$output")" = 1 ]
	fi
	run ktrace list functions --json 'vfs_rea*'
	assert_success
	jq -e '[.[] | .function] | index("vfs_read") != null' <<<"$(grep -v warning <<<"$output")"
	run ktrace list functions nosuchfunction_zz
	assert_failure 1
	assert_line --partial "no function matches 'nosuchfunction_zz'; see 'ktrace list functions'"
	run complete_words ktrace list func
	assert_output functions
}
