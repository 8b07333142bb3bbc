#!/usr/bin/env bats
# The project's own rules: every command ships a man page whose SYNOPSIS
# and OPTIONS match its argp table, completions for every option, and a
# bats file.

load helpers

commands() {
	"$KTRACE" | awk '/^commands:/ { on = 1; next } on && NF >= 2 && /^   / { print $1 }'
}

@test "every command has a man page, a bats file and a --help" {
	for c in $(commands); do
		[ -f "$TOP/man/ktrace-$c.1" ] || fail "man/ktrace-$c.1 missing"
		[ -f "$TOP/tests/bats/$c.bats" ] || fail "tests/bats/$c.bats missing"
	done
	[ -f "$TOP/man/ktrace.1" ] || fail "man/ktrace.1 missing"
	# ktrace(1) names each in COMMANDS and in SEE ALSO.
	for c in $(commands); do
		n=$(grep -cF -- ".BR ktrace\\-$c (1)" "$TOP/man/ktrace.1" || true)
		[ "$n" -ge 2 ] || fail "ktrace-$c(1) is in man/ktrace.1 $n times, not in COMMANDS and SEE ALSO"
	done
}

@test "every option of every command is in its man page" {
	for c in $(commands); do
		for o in $("$KTRACE" "$c" --list-opts); do
			case "$o" in --help|--usage) continue ;; esac
			# roff escapes the dash: \-\-name or \-x
			pat=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
			grep -q -- "$pat" "$TOP/man/ktrace-$c.1" ||
				fail "ktrace $c $o is not in man/ktrace-$c.1"
		done
	done
}

@test "the man page SYNOPSIS names what --help's usage line names" {
	for c in $(commands); do
		usage=$("$KTRACE" "$c" --help | sed -n 's/^Usage: ktrace [a-z]* //p' | head -n 1)
		syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$TOP/man/ktrace-$c.1")
		# Every positional word of the usage line (ARGS, EVENT...) appears.
		for w in $(printf '%s' "$usage" | tr -c 'A-Z\n' ' '); do
			[ ${#w} -ge 3 ] || continue
			grep -q "$w" <<<"$syn" || fail "ktrace-$c.1 SYNOPSIS lacks $w of '$usage'"
		done
	done
}

@test "the man page SYNOPSIS names every option of --help, short or long" {
	for c in $(commands); do
		syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$TOP/man/ktrace-$c.1")
		# Option lines of argp's help start within a few columns.
		while read -r s l; do
			[ -z "$l" ] && { l=$s; s=; }
			case $l in help | usage | version | list-opts) continue ;; esac
			[ -n "$s" ] && grep -qE -- "\\\\-$s([^A-Za-z]|$)" <<<"$syn" && continue
			grep -qF -- "\\-\\-${l//-/\\-}" <<<"$syn" ||
				fail "ktrace-$c.1 SYNOPSIS lacks ${s:+-$s or }--$l"
		done < <("$KTRACE" "$c" --help | grep -E '^ {1,6}(-[A-Za-z0-9], )?--[a-z]' |
			sed -E 's/^ +(-([A-Za-z0-9]), )?--([a-z-]+).*/\2 \3/')
	done
}

@test "every option of every command completes in bash" {
	source /usr/share/bash-completion/bash_completion 2>/dev/null || true
	source "$TOP/completions/ktrace.bash"
	PATH="$(dirname "$KTRACE"):$PATH"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	for c in $(commands); do
		COMP_WORDS=(ktrace "$c" --)
		COMP_CWORD=2
		COMP_LINE="ktrace $c --"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_ktrace
		for o in $("$KTRACE" "$c" --list-opts | grep '^--'); do
			printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$o" ||
				fail "'ktrace $c --<TAB>' does not offer $o"
		done
	done
}

@test "commands complete in bash" {
	source "$TOP/completions/ktrace.bash"
	PATH="$(dirname "$KTRACE"):$PATH"
	COMP_WORDS=(ktrace re)
	COMP_CWORD=1
	COMPREPLY=()
	_ktrace
	printf '%s\n' "${COMPREPLY[@]}" | grep -qx record
	printf '%s\n' "${COMPREPLY[@]}" | grep -qx report
	printf '%s\n' "${COMPREPLY[@]}" | grep -qx reset
}

@test "zsh completion file defines _ktrace" {
	run zsh -c "fpath=($TOP/completions \$fpath); autoload -Uz _ktrace; whence -w _ktrace"
	assert_success
	assert_output --partial "function"
}

# zsh_offers WORD...: what _ktrace offers for the words (the last one
# being completed), with compadd and zsh's own completers stubbed to
# print what they would be given (zsh filters by the prefix itself).
# (LeakSanitizer off for the completions' own ktrace runs: its exit scan,
# which stops the process under ptrace, was seen to hang there for good.)
zsh_offers() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	PATH="$(dirname "$KTRACE"):$PATH" timeout 60 zsh -f -c '
		fpath=("$1" $fpath)
		autoload -Uz _ktrace
		compadd() {
			if [[ $1 == -a ]]; then print -l -- ${(P)2}; else print -l -- "$@"; fi
		}
		_files() { print "<files>"; }
		_command_names() { print "<commands>"; }
		shift
		words=("$@")
		CURRENT=$#
		_ktrace' zsh "$TOP/completions" "$@"
}

@test "zsh completes commands, options, event names and each command's --format values" {
	run zsh_offers ktrace re
	assert_line record
	assert_line report
	run zsh_offers ktrace record --
	assert_line --output
	assert_line --max-lost
	run zsh_offers ktrace record -e sched_sw
	assert_line sched:sched_switch
	run zsh_offers ktrace stream --format ""
	assert_output "text
json"
	run zsh_offers ktrace report --format ""
	assert_line perfetto
	run zsh_offers ktrace record --backend ""
	assert_output "ftrace
module"
	run zsh_offers ktrace record --compression ""
	assert_output "zstd
zlib
none"
	run zsh_offers ktrace report -i ""
	assert_output "<files>"
	run zsh_offers ktrace record --packed-ring=
	assert_output "always
never
auto
32M
256M"
}

@test "bash completes record --packed-ring='s optional WHEN after its '='" {
	run complete_words ktrace record --packed-ring = n
	assert_output never
	run complete_words ktrace record --packed-ring = ""
	assert_line always
	assert_line 32M
}

# layout_breach FILE HEADER: layout-check.sh on a copy of the tree in
# which FILE includes HEADER.
layout_breach() {
	local tmp status
	tmp=$(mktemp -d)
	cp -r "$TOP/lib" "$TOP/cmd" "$TOP/kernel" "$TOP/scripts" "$tmp/"
	cp "$TOP/ktrace.c" "$tmp/"
	echo "#include \"$2\"" >>"$tmp/$1"
	"$tmp/scripts/layout-check.sh"
	status=$?
	rm -rf "$tmp"
	return $status
}

@test "lib/ rooms include only the rooms below them, and nothing includes in a loop" {
	# lib/README.md draws the arrows; scripts/layout-check.sh reads them
	# off the sources' #include lines.
	run "$TOP/scripts/layout-check.sh"
	assert_success
	assert_output ""
	# It sees a breach: a file/ header that names live/ ...
	run layout_breach lib/file/tracedat.h live/events/events.h
	assert_failure
	assert_output --partial "lib/file/tracedat.h (file) includes live/events/events.h"
	# ... and one between live/'s rooms: tracefs control that names the
	# session above it.
	run layout_breach lib/live/tracefs/reset.h live/session/session.h
	assert_failure
	assert_output --partial "lib/live/tracefs/reset.h (live/tracefs) includes live/session/session.h"
}
