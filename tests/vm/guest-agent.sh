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

# stop_agent PID TENTHS: once no ktrace- instance is left (its worker
# gone; at most TENTHS tenths of a second), SIGTERM to the agent PID;
# its status.
stop_agent() {
	i=0
	while ls $T/instances | grep -q '^ktrace-' && [ $i -lt "$2" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -TERM "$1"
	wait "$1"
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
	stop_agent $agp 600
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

# test_vsock: record --guest 1:PORT through vsock's loopback, inside
# this guest (the host here has no vhost-vsock for a guest's vsock):
# `ktrace agent --vsock PORT` and the controller reach each other by
# CID 1 (this machine), over the same code as a guest's CID.  The
# command the agent is allowed writes 300 marks into its worker's
# instance; the file the controller writes must hold all 300, and the
# agent must leave no instance.
test_vsock() {
	for m in $(cat /net/vsock.order); do
		insmod /net/"$m" || fail "insmod $m" || return 1
	done
	cat >/tmp/vwl <<-EOS
	#!/bin/sh
	i=1
	while [ \$i -le 300 ]; do
		echo "vmark \$i" >$T/instances/ktrace-\$PPID/trace_marker
		i=\$((i + 1))
	done
	EOS
	chmod +x /tmp/vwl
	$K agent --vsock 6520 --allow-command /tmp/vwl 2>/tmp/vagent.err &
	vap=$!
	wait_line /tmp/vagent.err "listening on" || { kill $vap; wait $vap; return 1; }
	$K record --guest 1:6520 -q -o /tmp/v.dat -e ftrace:print -- /tmp/vwl 2>/tmp/vrec.err
	rrc=$?
	stop_agent $vap 100
	cat /tmp/vrec.err /tmp/vagent.err
	expect "record --guest's status" "$rrc" 0 &&
	expect "marks through vsock" "$($K report -i /tmp/v.dat | grep -c ' vmark [0-9]*$')" 300 &&
	expect "ktrace- instances left" "$(ls $T/instances | grep -c '^ktrace-')" 0 &&
	grep -q 'vsock:' /tmp/vagent.err ||
		fail "the agent did not name its vsock peer: $(cat /tmp/vagent.err)"
}

if [ -n "${kt_agent:-}" ]; then
	t "agent: ktrace agent on qemu's user network records the guest for the host's record --local --remote, leaves nothing" test_agent
	t "agent: record --guest 1:PORT through vsock's loopback: every mark, nothing left" test_vsock
fi
