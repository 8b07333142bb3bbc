#!/bin/bash
# The kernel module's tests: build ktrace.ko for Debian's 6.1 and 6.12
# kernels and the 6.1 PREEMPT_RT one (6.1-rt: linux-image-rt-amd64 of
# bookworm), boot each once in qemu with an initramfs holding busybox,
# the modules, the ktvm helper and guest.sh, and turn the results the
# guest prints on its serial console into TAP.  On the rt kernel
# spinlock_t sleeps, so a probe or channel taking one in atomic context
# would schedule while atomic ("BUG: scheduling while atomic", which
# test_dmesg catches) or deadlock the boot.
#
# Environment: KT_VM_SERIES (default "6.1 6.12 6.1-rt"; 6.12-rt works
# too, see fetch-kernels.sh), KT_VM_ACCEL (kvm or
# tcg; by default kvm if a trial boot works, see vm_pick_accel),
# KT_VM_TIMEOUT seconds per boot (default 1200: only a guard against a
# hung guest; a loaded host slows the emulation a lot), KT_VM_CYCLES
# load/unload cycles of tests/vm/guest-reliab.sh in every boot (default: 100 in the
# first, 25 in the others: under TCG a cycle under load takes 0.7 to 1.5
# s, so 100 everywhere would add minutes to every CI run), KT_VM_APPEND
# more kernel parameters (kt_only=reliab, kt_only=cli or
# kt_only=process: run guest-reliab.sh, guest-cli.sh, or guest-process.sh
# and guest-proccli.sh alone; kt_only=mmap: guest-mmap.sh, then
# guest-cli.sh; kt_only=agent: guest-agent.sh alone).  KT_VM_AGENT_SERIES
# (default 6.12; empty: none) is the boot that also runs the agent test
# (tests/vm/host-agent.sh: a virtio-net card on qemu's user network, the
# guest's `ktrace agent` recorded with the host's by one record --local
# --remote; KT_VM_TRACEFS_LOCK names a lock file the host's recording
# takes).  The guests get three vCPUs (KT_VM_SMP) of which the kernel brings up two
# (maxcpus=2): the third is a possible CPU that has never been online
# until guest-reliab.sh starts it.  KT_VM_OUT: the build directory
# (default build/vm; scripts/check.sh gives each kernel its own).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${KT_VM_OUT:-$top/build/vm}
series=${KT_VM_SERIES:-6.1 6.12 6.1-rt}
agent_series=${KT_VM_AGENT_SERIES-6.12}
timeout=${KT_VM_TIMEOUT:-1200}
export KT_VM_SMP=${KT_VM_SMP:-3}
append=${KT_VM_APPEND:-}
cycles=${KT_VM_CYCLES:-100}
mkdir -p "$out"
# shellcheck source=tests/vm/vm-lib.sh
. tests/vm/vm-lib.sh
# shellcheck source=tests/vm/host-cli.sh
. tests/vm/host-cli.sh
# shellcheck source=tests/vm/host-proccli.sh
. tests/vm/host-proccli.sh
# shellcheck source=tests/vm/host-agent.sh
. tests/vm/host-agent.sh

n=0
# result OK|"not ok" DESC: one TAP line.
result() {
	n=$((n + 1))
	echo "$1 $n - $2"
}

# diag FILE: show a log's tail as TAP comments.
diag() {
	tail -n 20 "$1" | sed 's/^/# /'
}

# The plan comes last: how many results a boot gives is known only after.
finish() {
	echo "1..$n"
	exit 0
}

if ! kernels=$(tests/vm/fetch-kernels.sh $series 2>"$out/fetch.log"); then
	result "not ok" "fetch Debian kernels ($series)"
	diag "$out/fetch.log"
	finish
fi
if ! vm_build_helpers; then
	result "not ok" "build the ktvm and mkdat helpers"
	diag "$out/helpers.log"
	finish
fi

# report SERIES DIR: trace-cmd report must decode the exported pages
# into exactly the records the guest counted, event by event.
report() {
	local s=$1 w=$2 x=$2/export ev want got bad=0
	mkdir -p "$x"
	if ! tr -d '\r' <"$w/export.b64" | base64 -d -i 2>/dev/null |
		tar x -C "$x" 2>/dev/null || [ ! -s "$x/counts" ]; then
		result "not ok" "$s: trace-cmd report decodes ktrace.ko's pages (no export)"
		return
	fi
	"$out/mkdat" "$w/ktrace.dat" "$x" "$(ls "$x" | grep -c '^cpu')" &&
		trace-cmd report -i "$w/ktrace.dat" >"$w/report.txt" 2>"$w/report.err"
	while read -r ev want; do
		got=$(grep -c ": $ev: " "$w/report.txt")
		if [ "$got" != "$want" ]; then
			echo "# $ev: trace-cmd report shows $got records, the guest read $want"
			bad=1
		fi
	done < <(sed -n 's/^event //p' "$x/counts")
	# Field values too: the workload made exactly 10 getppid() calls.
	for ev in syscall_entry syscall_exit; do
		got=$(grep -cE " $ev: +nr=110 " "$w/report.txt")
		if [ "$got" != 10 ]; then
			echo "# trace-cmd report shows $got $ev records of getppid (nr=110), not 10"
			bad=1
		fi
	done
	if grep -qE 'UNKNOWN|[Ff]ailed|[Ee]rror|[Ww]arning' "$w/report.txt" "$w/report.err"; then
		grep -E 'UNKNOWN|[Ff]ailed|[Ee]rror|[Ww]arning' "$w/report.txt" "$w/report.err" |
			head -n 5 | sed 's/^/# /'
		bad=1
	fi
	if [ "$bad" = 0 ] && [ -s "$w/report.txt" ]; then
		result ok "$s: trace-cmd report decodes ktrace.ko's pages, every record"
	else
		result "not ok" "$s: trace-cmd report decodes ktrace.ko's pages, every record"
	fi
}

# boot SERIES RELEASE ROOT KDIR: build, pack, boot, report one kernel.
boot() {
	local s=$1 rel=$2 root=$3 kdir=$4 w=$out/$2 line
	rm -rf "$w"
	mkdir -p "$w"
	if ! vm_build_modules "$w" "$kdir"; then
		result "not ok" "$s: build ktrace.ko against $rel"
		diag "$w/build.log"
		return
	fi
	result ok "$s: build ktrace.ko and the sample against $rel"
	# One boot also runs the agent test (host-agent.sh): a network card,
	# and the host's part in the background while the guest runs.
	local qargs=${KT_VM_QEMU_ARGS:-} kappend="maxcpus=2 kt_cycles=$cycles $append" hp=
	if [ "$s" = "$agent_series" ] && [ ! -s "$root/net/order" ]; then
		result "not ok" "$s: agent: no network driver in $root/net; run tests/vm/fetch-kernels.sh $s with the network up"
		vm_pack "$w" tests/vm/guest.sh
	elif [ "$s" = "$agent_series" ]; then
		vm_pack "$w" tests/vm/guest.sh "$root/net"
		agent_setup "$w"
		qargs="$qargs $agent_args"
		kappend="$kappend $agent_append"
		agent_host "$w" &
		hp=$!
	else
		vm_pack "$w" tests/vm/guest.sh
	fi
	KT_VM_APPEND=$kappend KT_VM_QEMU_ARGS=$qargs \
		vm_boot "$w" "$root/fs/boot/vmlinuz-$rel"
	cycles=${KT_VM_CYCLES:-25}
	: >"$w/booted"
	[ -z "$hp" ] || wait "$hp"

	while IFS= read -r line; do
		case $line in
		"KT: ok "*) result ok "$s: ${line#KT: ok }" ;;
		"KT: not ok "*) result "not ok" "$s: ${line#KT: not ok }" ;;
		"KT: #"*) echo "# ${line#KT: # }" ;;
		esac
	done <"$w/console.log"
	report "$s" "$w"
	cli_report "$s" "$w"
	proccli_report "$s" "$w"
	[ -z "$hp" ] || agent_report "$s" "$w"
	if ! grep -q '^KT: end' "$w/console.log"; then
		result "not ok" "$s: the guest ran every test (console: $w/console.log)"
		diag "$w/console.log"
	fi
}

vm_pick_accel "$(awk 'NR == 1 {print $3 "/fs/boot/vmlinuz-" $2}' <<<"$kernels")"
echo "# qemu -accel $accel"
while read -r s rel root kdir; do
	boot "$s" "$rel" "$root" "$kdir"
done <<<"$kernels"
finish
