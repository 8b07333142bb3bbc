#!/usr/bin/env bats
# The libraries ktrace loads on first use (SQLite, libedit, libcurl,
# libsodium, libxxhash: lib/base/dlfns.c; ncurses: top.bats): one that
# does not load gives one line naming it and the Debian package to
# install, a non-zero status, and nothing more.  Each runs in a mount
# namespace of its own where /dev/null is bound over the library's file
# (dlopen: "file too short"), so the host's library is never touched.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	D=$TOP/tests/data
}

# hidden SONAME CMD...: CMD with SONAME's file unloadable; $status,
# $output, $lines as bats' run.
hidden() {
	local so=$1 file
	shift
	file=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ { print $NF; exit }')
	[ -n "$file" ] || fail "no $so in ldconfig -p"
	file=$(readlink -f "$file")
	run unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$file" "$@"
}

# one_line PACKAGE WHAT: the output is one line naming WHAT and PACKAGE.
one_line() {
	[ "$status" -ne 0 ] || fail "status 0: $output"
	[ "${#lines[@]}" -eq 1 ] || fail "not one line: $output"
	[[ ${lines[0]} == *"$2"*"install $1"* ]] || fail "${lines[0]}"
	[[ $output != *"ERROR: AddressSanitizer"* ]] || fail "$output"
}

@test "sql without SQLite: one line naming it and libsqlite3-0, status 1" {
	hidden libsqlite3.so.0 "$KTRACE" sql -i "$D/tc-sched.dat" "select count(*) from events"
	one_line libsqlite3-0 "cannot start SQLite"
	[ "$status" -eq 1 ]
}

@test "sql's prompt without libedit: one line naming it and libedit2, status 1" {
	hidden libedit.so.2 script -qec "$KTRACE sql -i $D/tc-sched.dat" /dev/null </dev/null
	# script(1) passes the terminal's CR LF.
	output=${output//$'\r'/}
	lines=("$output")
	one_line libedit2 "no line editor"
}

@test "push without libcurl: one line naming it and libcurl4, status 1" {
	hidden libcurl.so.4 "$KTRACE" push -i "$D/tc-sched.dat" --to http://127.0.0.1:1/
	one_line libcurl4 "cannot load libcurl"
	[ "$status" -eq 1 ]
}

@test "push without libxxhash: one line naming it and libxxhash0, status 1" {
	hidden libxxhash.so.0 "$KTRACE" push -i "$D/tc-sched.dat" --to http://127.0.0.1:1/
	one_line libxxhash0 "cannot load libxxhash"
	[ "$status" -eq 1 ]
}

@test "agent --token-file without libsodium: one line naming it and libsodium23, status 1, nothing listening" {
	head -c 32 /dev/urandom | base64 >token
	chmod 600 token
	hidden libsodium.so.23 timeout 10 "$KTRACE" agent --listen 127.0.0.1:0 --token-file token
	one_line libsodium23 "cannot load libsodium"
	[ "$status" -eq 1 ] || fail "status $status (124: it ran on): $output"
}
