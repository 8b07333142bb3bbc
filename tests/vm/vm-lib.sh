# shellcheck shell=bash
# Building, packing and booting a test VM; sourced by tests/vm/run.sh and
# bench/module-overhead.sh.  Callers set: top (the source tree), out (a
# build directory) and timeout; vm_pick_accel sets accel.

# vm_pick_accel VMLINUZ: KT_VM_ACCEL if set, else kvm when a trial boot
# under KVM reaches user space, else tcg.  /dev/kvm may exist and still
# fail to run a guest (it does on the machine this was written on), so
# only a boot decides.  The answer is kept until the host reboots.
vm_pick_accel() {
	local kernel=$1 t=$out/kvm-trial boot
	if [ -n "${KT_VM_ACCEL:-}" ]; then
		accel=$KT_VM_ACCEL
		return
	fi
	accel=tcg
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 0
	boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	if [ -f "$out/accel.$boot" ]; then
		accel=$(cat "$out/accel.$boot")
		return
	fi
	rm -rf "$t"
	mkdir -p "$t/bin"
	cp /bin/busybox "$t/bin/"
	printf '#!/bin/busybox sh\n/bin/busybox echo KT-TRIAL-OK\n/bin/busybox poweroff -f\n' \
		>"$t/init"
	chmod +x "$t/init"
	(cd "$t" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$t.cpio.gz"
	if timeout 15 qemu-system-x86_64 -accel kvm -m 256 -kernel "$kernel" \
		-initrd "$t.cpio.gz" -append "console=ttyS0 panic=-1 quiet" \
		-nographic -no-reboot -net none </dev/null 2>&1 |
		grep -q KT-TRIAL-OK; then
		accel=kvm
	fi
	rm -rf "$t" "$t.cpio.gz"
	echo "$accel" >"$out/accel.$boot"
}

# vm_build_helpers: the static guest helpers (ktvm, marksrv) and the
# host's mkdat.
# Returns nonzero with the log in $out/helpers.log on failure.
vm_build_helpers() {
	gcc -O2 -Wall -Wextra -Werror -o "$out/mkdat" "$top/tests/vm/mkdat.c" \
		>"$out/helpers.log" 2>&1 &&
	gcc -static -O2 -Wall -Wextra -Werror -o "$out/ktvm" \
		"$top/tests/vm/ktvm.c" >>"$out/helpers.log" 2>&1 &&
	gcc -static -O2 -Wall -Wextra -Werror -o "$out/marksrv" \
		"$top/tests/vm/marksrv.c" >>"$out/helpers.log" 2>&1
}

# vm_build_modules DIR KDIR: build a private copy of kernel/ in DIR/src,
# so builds for different kernels never share objects, and the stress
# module (tests/vm/stress) in DIR/src/stress.  Log: DIR/build.log.
vm_build_modules() {
	local w=$1 kdir=$2
	rm -rf "$w/src"
	mkdir -p "$w/src"
	cp -r "$top/kernel/." "$w/src/"
	cp -r "$top/tests/vm/stress" "$w/src/stress"
	make -C "$kdir" M="$w/src" modules >"$w/build.log" 2>&1 &&
	make -C "$kdir" M="$w/src/stress" \
		KBUILD_EXTRA_SYMBOLS="$w/src/Module.symvers" modules \
		>>"$w/build.log" 2>&1
}

# vm_pack DIR GUEST_SCRIPT [NETDIR]: DIR/initramfs.cpio.gz with busybox,
# ktvm, marksrv, the modules and GUEST_SCRIPT as /guest.sh, run by
# /init; NETDIR (fetch-kernels.sh's <root>/net: the network driver's
# modules and their load order) as /net.
vm_pack() {
	local w=$1 guest=$2 r=$1/initramfs
	rm -rf "$r"
	mkdir -p "$r"/{bin,dev,proc,sys,tmp}
	cp /bin/busybox "$r/bin/"
	cp "$out/ktvm" "$out/marksrv" "$r/"
	[ -z "${3:-}" ] || cp -r "$3" "$r/net"
	vm_pack_ktrace "$r"
	cp "$guest" "$r/guest.sh"
	cp "$w/src/ktrace.ko" "$w/src/samples/ktrace_sample.ko" \
		"$w/src/stress/ktrace_stress.ko" "$r/"
	cp "$top/tests/vm/guest-process.sh" "$w/src/samples/ktrace_export_sample.ko" \
		"$w/src/samples/ktrace_event_sample.ko" "$r/"
	# Without their debug info (1.7 MB of ktrace.ko's 1.8) the modules
	# load faster, which the 100 load/unload cycles feel.
	strip --strip-debug "$r"/*.ko
	cat >"$r/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs none /sys/kernel/debug
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
# The firmware leaves escape codes on the console's first line.
echo
sh /guest.sh 2>&1
poweroff -f
INIT
	chmod +x "$r/init"
	(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) \
		>"$w/initramfs.cpio.gz"
}

# vm_boot DIR VMLINUZ: boot once; the console goes to DIR/console.log,
# a line at a time (the agent test's host part waits for one while the
# guest runs), the second serial port to DIR/export.b64.  KT_VM_SMP sets the number of
# vCPUs (2), KT_VM_APPEND adds kernel parameters, KT_VM_QEMU_ARGS qemu
# options.
#
# A PREEMPT_RT kernel runs the 8250 driver's interrupt handler in a
# thread; under TCG the second port's bulk transfer (test_export) then
# sees enough unhandled interrupts for the kernel to call the line
# spurious and disable it ("irq 3: nobody cared"), and the transfer
# hangs.  noirqdebug keeps that detector out of it on rt kernels.
vm_boot() {
	local w=$1 kernel=$2 append="console=ttyS0 panic=-1 quiet"
	case $kernel in
	*-rt-*) append="$append noirqdebug" ;;
	esac
	append="$append ${KT_VM_APPEND:-}"
	# One host thread runs every vCPU under TCG: with a thread each,
	# the kernel patching its code (static keys, static calls) while
	# another vCPU runs it sometimes crashed or locked up the guest
	# (int3 oopses, soft lockups), a flaw of the emulation.
	local acc=$accel
	[ "$acc" = tcg ] && acc=tcg,thread=single
	timeout "$timeout" qemu-system-x86_64 -accel "$acc" -m 512 -smp "${KT_VM_SMP:-2}" \
		-kernel "$kernel" -initrd "$w/initramfs.cpio.gz" \
		-append "$append" \
		-nographic -no-reboot -net none \
		-serial mon:stdio -serial "file:$w/export.b64" \
		${KT_VM_QEMU_ARGS:-} </dev/null 2>&1 |
		stdbuf -oL tr -d '\r' >"$w/console.log"
}

# vm_pack_ktrace ROOT: the ktrace binary with its shared libraries (those
# it links and libsodium, which it loads for the agent's token:
# lib/net/auth.c), libtraceevent's plugins, and every
# tests/vm/guest-*.sh, into ROOT.
vm_pack_ktrace() {
	local r=$1 lib plugins=/usr/lib/x86_64-linux-gnu/traceevent/plugins
	make -s -C "$top" ktrace >"$out/ktrace-build.log" 2>&1 || return 1
	cp "$top/ktrace" "$r/ktrace"
	for lib in $({ ldd "$top/ktrace"; ldd /usr/lib/x86_64-linux-gnu/libsodium.so.23; } |
		     grep -oE '/[^ ]+' | sort -u) /usr/lib/x86_64-linux-gnu/libsodium.so.23; do
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$lib" "$r$lib"
	done
	if [ -d "$plugins" ]; then
		mkdir -p "$r$plugins"
		cp "$plugins"/*.so "$r$plugins/"
	fi
	cp "$top"/tests/vm/guest-*.sh "$r/"
}

# vm_pack_add DIR FILE...: add FILEs (absolute paths, kept as they are)
# and the shared libraries of those that are dynamic executables to
# DIR/initramfs.cpio.gz made by vm_pack.  They go in a second gzipped
# cpio appended to the first: the kernel unpacks concatenated archives
# in turn, so the first need not be rebuilt.
vm_pack_add() {
	local w=$1 r=$1/initramfs-add f lib
	shift
	rm -rf "$r"
	for f in "$@"; do
		mkdir -p "$r$(dirname "$f")"
		cp -L "$f" "$r$f" || return 1
		[ -x "$f" ] || continue
		for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+'); do
			mkdir -p "$r$(dirname "$lib")"
			cp -L "$lib" "$r$lib" || return 1
		done
	done
	(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) \
		>>"$w/initramfs.cpio.gz"
}
