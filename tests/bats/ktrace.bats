#!/usr/bin/env bats
# The multicall binary itself: dispatch, help, version, external commands.

load helpers

@test "ktrace with no arguments lists every command" {
	run ktrace
	assert_success
	for c in doctor enable list record report reset stat stream top; do
		assert_output --partial "   $c "
	done
}

@test "ktrace --help and ktrace help list the commands" {
	run ktrace --help
	assert_success
	assert_output --partial "record"
	run ktrace help
	assert_success
	assert_output --partial "record"
}

@test "ktrace --version prints the version" {
	run ktrace --version
	assert_success
	assert_output --regexp '^ktrace version [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "a misspelt command suggests the right one and exits 1" {
	run ktrace recrod
	assert_failure 1
	assert_output "ktrace: 'recrod' is not a ktrace command. Did you mean 'record'?"
}

@test "a command far from any other gets no suggestion" {
	run ktrace frobnicate
	assert_failure 1
	assert_output --partial "'frobnicate' is not a ktrace command"
	refute_output --partial "Did you mean"
}

@test "an executable ktrace-NAME on PATH runs as ktrace NAME" {
	dir=$(mktemp -d)
	printf '#!/bin/sh\necho "external $*"\n' > "$dir/ktrace-hello"
	chmod +x "$dir/ktrace-hello"
	PATH="$dir:$PATH" run ktrace hello a b
	rm -rf "$dir"
	assert_success
	assert_output "external a b"
}

@test "ktrace help COMMAND shows the command's man page" {
	run ktrace help stat
	assert_success
	assert_output --partial "SYNOPSIS"
	assert_output --partial "ktrace stat"
}

@test "ktrace help COMMAND falls back to --help when there is no man" {
	dir=$(mktemp -d)
	ln -s /bin/false "$dir/man"
	PATH="$dir:$PATH" run ktrace help stat
	rm -rf "$dir"
	assert_success
	assert_output --partial "Usage: ktrace stat"
}

@test "ktrace help of an unknown command fails like dispatch does" {
	run ktrace help recrod
	assert_failure 1
	assert_output --partial "Did you mean 'record'?"
}

@test "an unknown global option is a usage error" {
	run ktrace --bogus
	assert_failure 64
}

@test "every command answers --help with its usage" {
	for c in doctor enable list record report reset stat stream top; do
		run ktrace "$c" --help
		assert_success
		assert_output --partial "Usage: ktrace $c"
	done
}

@test "a bad option is a usage error with status 64" {
	run ktrace list --no-such-option
	assert_failure 64
}

@test "output to a closed pipe ends quietly with status 0" {
	run bash -c "set -o pipefail; '$KTRACE' --help | head -c1 >/dev/null; echo \${PIPESTATUS[0]}"
	assert_output --partial "0"
}
