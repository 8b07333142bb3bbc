# bash completion for ktrace(1).
# Options come from the binary itself (`ktrace CMD --list-opts`), so they
# can never drift from its argp tables; event names come from the live
# tracefs through `ktrace list`.

_ktrace_events()
{
	ktrace list events 2>/dev/null
	ktrace list aliases 2>/dev/null | awk '{ print $1 }'
}

# Bash splits "sched:sched_switch" at the colon (COMP_WORDBREAKS), so
# glue the word being completed back together into cur, and prev before it.
_ktrace_colon_word()
{
	local i=$COMP_CWORD
	cur=${COMP_WORDS[i]}
	if [ "$cur" = : ] && [ "$i" -gt 2 ]; then
		cur=${COMP_WORDS[i-1]}:
		i=$((i - 1))
	elif [ "$i" -gt 3 ] && [ "${COMP_WORDS[i-1]}" = : ]; then
		cur=${COMP_WORDS[i-2]}:$cur
		i=$((i - 2))
	fi
	prev=${COMP_WORDS[i-1]}
}

# Complete an event in cur; bash replaces only the part after the colon.
_ktrace_complete_events()
{
	COMPREPLY=($(compgen -W "$(_ktrace_events)" -- "$cur"))
	if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
		COMPREPLY=("${COMPREPLY[@]#"${cur%:*}:"}")
	fi
}

_ktrace_instances()
{
	local d
	d=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts 2>/dev/null)
	[ -n "$d" ] && ls "$d/instances" 2>/dev/null
}

_ktrace()
{
	local cur prev cmd words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()

	if [ "$COMP_CWORD" -eq 1 ]; then
		words=$(ktrace 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^   / { print $1 }')
		COMPREPLY=($(compgen -W "$words help" -- "$cur"))
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	if [ "$cmd" = help ]; then
		words=$(ktrace 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^   / { print $1 }')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return 0
	fi

	_ktrace_colon_word
	# --packed-ring=WHEN: an optional argument, given after '=' (a word of its own).
	if [ "$prev" = = ] && [ "${COMP_WORDS[COMP_CWORD-2]}" = --packed-ring ]; then
		COMPREPLY=($(compgen -W "always never auto 32M 256M" -- "$cur"))
		return 0
	fi
	# Arguments of options that take one.
	case "$prev" in
	-e|--event|--fields|--stack)
		_ktrace_complete_events
		return 0 ;;
	-B|--instance)
		COMPREPLY=($(compgen -W "$(_ktrace_instances)" -- "$cur"))
		return 0 ;;
	-i|--input|-o|--output|--recover|--save|--password-file|--token-file)
		# compgen -f offers directories too: -i DIR reads a series of chunks.
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	--allow-command|--on-trigger)
		COMPREPLY=($(compgen -c -- "$cur"))
		return 0 ;;
	--to|--push)
		# push, record --push: ClickHouse's HTTP interface.
		COMPREPLY=($(compgen -W "http://localhost:8123/" -- "$cur"))
		return 0 ;;
	--format)
		# Each command takes its own set.
		case "$cmd" in
		stream) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
		analyze) COMPREPLY=($(compgen -W "table json folded" -- "$cur")) ;;
		diff) COMPREPLY=($(compgen -W "table json" -- "$cur")) ;;
		sql) COMPREPLY=($(compgen -W "table csv json" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "text process json trace-cmd perfetto chrome dat" -- "$cur")) ;;
		esac
		return 0 ;;
	--backend)
		COMPREPLY=($(compgen -W "ftrace module" -- "$cur"))
		return 0 ;;
	--compression)
		COMPREPLY=($(compgen -W "zstd zlib none" -- "$cur"))
		return 0 ;;
	--file-version)
		COMPREPLY=($(compgen -W "7 6" -- "$cur"))
		return 0 ;;
	--rotate)
		COMPREPLY=($(compgen -W "16M 64M 256M 1G 30s 10m 1h" -- "$cur"))
		return 0 ;;
	--keep)
		COMPREPLY=($(compgen -W "10 20 100" -- "$cur"))
		return 0 ;;
	--trigger)
		COMPREPLY=($(compgen -W "syscall>50ms syscall:fsync>20ms wakeup>20ms offcpu>50ms exit" -- "$cur"))
		return 0 ;;
	--max-snapshots)
		COMPREPLY=($(compgen -W "1 10 100" -- "$cur"))
		return 0 ;;
	--before|--after|--cooldown)
		COMPREPLY=($(compgen -W "500ms 1s 10s 1m" -- "$cur"))
		return 0 ;;
	--last)
		COMPREPLY=($(compgen -W "10s 30s 1m 10m 1h" -- "$cur"))
		return 0 ;;
	--sort)
		COMPREPLY=($(compgen -W "total calls errors mean p50 p99 max name run wait sleep switches wakeups comm blocked S D times" -- "$cur"))
		return 0 ;;
	--by)
		COMPREPLY=($(compgen -W "call task process comm" -- "$cur"))
		return 0 ;;
	--for)
		COMPREPLY=($(compgen -W "sched syscalls cpu offcpu" -- "$cur"))
		return 0 ;;
	--rank)
		COMPREPLY=($(compgen -W "significant impact" -- "$cur"))
		return 0 ;;
	--alpha)
		COMPREPLY=($(compgen -W "0.01 0.05 0.001" -- "$cur"))
		return 0 ;;
	esac
	if [ "$cmd" = snapshot ] && [ "$prev" = -l ]; then
		COMPREPLY=($(compgen -W "10s 30s 1m 10m 1h" -- "$cur"))
		return 0
	fi
	# record's function tracers (-p, -n and -g are other things elsewhere).
	if [ "$cmd" = record ]; then
		case "$prev" in
		-p|--tracer|--plugin)
			COMPREPLY=($(compgen -W "function function_graph" -- "$cur"))
			return 0 ;;
		-l|--limit-func|-n|--notrace-func|-g|--graph-func)
			[ -n "$cur" ] &&
				COMPREPLY=($(ktrace list functions "$cur*" 2>/dev/null))
			return 0 ;;
		esac
	fi

	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$(ktrace "$cmd" --list-opts 2>/dev/null)" -- "$cur"))
		return 0
	fi

	# Positional arguments.
	case "$cmd" in
	analyze)
		COMPREPLY=($(compgen -W "cpu critpath offcpu sched syscalls" -- "$cur")) ;;
	enable)
		_ktrace_complete_events ;;
	list)
		if [ "$prev" = events ]; then
			_ktrace_complete_events
		else
			COMPREPLY=($(compgen -W "events systems tracers options aliases functions" -- "$cur"))
		fi ;;
	report|stat|diff)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	record|stream)
		COMPREPLY=($(compgen -c -- "$cur")) ;;
	snapshot)
		# The running recordings, as the registry names them.
		COMPREPLY=($(compgen -W "$(ls "${KTRACE_RUN_DIR:-/run/ktrace}" 2>/dev/null | grep -x '[0-9]*')" -- "$cur")) ;;
	esac
	return 0
}
complete -F _ktrace ktrace
