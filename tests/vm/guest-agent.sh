#!/bin/sh
# The guest's half of the agent test, sourced by guest.sh (busybox sh;
# t, expect, fail come from there) when run.sh boots with
# kt_agent=AGENTPORT,MARKPORT,TOKEN and a virtio-net card on qemu's user
# network (10.0.2.15, the host's forwarded ports reaching AGENTPORT and
# MARKPORT).  The guest runs `ktrace agent`; the host, in one run of
# `ktrace record --local --remote`, records itself and the guest while
# its command writes a mark Lk, asks /marksrv to write Rk in the guest's
# recording, and writes Mk once the answer is back: Rk lies between Lk
# and Mk in time.  tests/vm/host-agent.sh checks the merged timeline.
K=/ktrace

# agent_net: the network driver (fetch-kernels.sh's <root>/net, packed
# as /net) and eth0 at qemu's user-network address.
agent_net() {
	for m in $(cat /net/order); do
		insmod /net/"$m" || fail "insmod $m" || return 1
	done
	ip link set lo up &&
	ip addr add 10.0.2.15/24 dev eth0 &&
	ip link set eth0 up &&
	ip route add default via 10.0.2.2
}

# wait_line FILE TEXT: at most 20 s for TEXT in FILE.
wait_line() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		[ $i -lt 200 ] || fail "no '$2' in $1: $(cat "$1")" || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

test_agent() {
	# shellcheck disable=SC2046
	set -- $(echo "$kt_agent" | tr , ' ')
	t0=$(cut -d' ' -f1 /proc/uptime)
	agent_net || return 1
	# The name the agent's file stores (else "(none)").
	hostname ktvm-guest
	ip addr show eth0
	# The file's head goes to the host: leave the big kallsyms out.
	: >/tmp/no-kallsyms
	mount --bind /tmp/no-kallsyms /proc/kallsyms
	echo "$3" >/tmp/agent.token
	chmod 600 /tmp/agent.token
	/marksrv "$2" 900 >/tmp/marksrv.out 2>&1 &
	msp=$!
	$K agent --listen "10.0.2.15:$1" --token-file /tmp/agent.token 2>/tmp/agent.err &
	agp=$!
	wait_line /tmp/marksrv.out listening &&
	wait_line /tmp/agent.err "listening on" || { kill $msp $agp; wait; return 1; }
	# The host's part starts at this line.
	echo "KTAGENT: ready" >/dev/console
	wait $msp
	mrc=$?
	cat /tmp/marksrv.out
	# The recording ends after the host's command: its worker removes
	# its instance and exits (at most 60 s).
	i=0
	while ls $T/instances | grep -q '^ktrace-' && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -TERM $agp
	wait $agp
	arc=$?
	cat /tmp/agent.err
	umount /proc/kallsyms
	echo "KT: # agent: the test took $(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime) s" >/dev/console
	expect "marksrv's status" "$mrc" 0 &&
	expect "marks written" "$(sed -n 's/^marks //p' /tmp/marksrv.out)" 40 &&
	expect "the agent's status after SIGTERM" "$arc" 0 &&
	expect "ktrace- instances left" "$(ls $T/instances | grep -c '^ktrace-')" 0 &&
	grep -q 'recording in instance ktrace-' /tmp/agent.err ||
		fail "the agent recorded nothing"
}

if [ -n "${kt_agent:-}" ]; then
	t "agent: ktrace agent on qemu's user network records the guest for the host's record --local --remote, leaves nothing" test_agent
fi
