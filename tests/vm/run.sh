#!/bin/bash
# The kernel module's tests: build ktrace.ko for Debian's 6.1 and 6.12
# kernels, boot each once in qemu with an initramfs holding busybox, the
# modules, the ktvm helper and guest.sh, and turn the results the guest
# prints on its serial console into TAP.
#
# Environment: KT_VM_SERIES (default "6.1 6.12"), KT_VM_ACCEL (default
# tcg; this machine's /dev/kvm cannot run guests), KT_VM_TIMEOUT seconds
# per boot (default 400).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=$top/build/vm
series=${KT_VM_SERIES:-6.1 6.12}
accel=${KT_VM_ACCEL:-tcg}
timeout=${KT_VM_TIMEOUT:-400}
mkdir -p "$out"

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
if ! gcc -O2 -Wall -Wextra -Werror -o "$out/mkdat" tests/vm/mkdat.c \
	>"$out/mkdat.log" 2>&1; then
	result "not ok" "build the mkdat helper"
	diag "$out/mkdat.log"
	finish
fi
if ! gcc -static -O2 -Wall -Wextra -Werror -o "$out/ktvm" tests/vm/ktvm.c \
	>"$out/ktvm.log" 2>&1; then
	result "not ok" "build the static ktvm helper"
	diag "$out/ktvm.log"
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
	mkdir -p "$w/src" "$w/initramfs"/{bin,dev,proc,sys,tmp}
	# A private copy, so the two kernels' builds never share objects.
	cp -r kernel/. "$w/src/"
	if ! make -C "$kdir" M="$w/src" modules >"$w/build.log" 2>&1; then
		result "not ok" "$s: build ktrace.ko against $rel"
		diag "$w/build.log"
		return
	fi
	result ok "$s: build ktrace.ko and the sample against $rel"

	cp /bin/busybox "$w/initramfs/bin/"
	cp "$out/ktvm" tests/vm/guest.sh "$w/initramfs/"
	cp "$w/src/ktrace.ko" "$w/src/samples/ktrace_sample.ko" "$w/initramfs/"
	cat >"$w/initramfs/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs none /sys/kernel/debug
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
sh /guest.sh 2>&1
poweroff -f
INIT
	chmod +x "$w/initramfs/init"
	(cd "$w/initramfs" && find . | cpio -o -H newc 2>/dev/null | gzip -1) \
		>"$w/initramfs.cpio.gz"

	timeout "$timeout" qemu-system-x86_64 -accel "$accel" -m 512 -smp 2 \
		-kernel "$root/fs/boot/vmlinuz-$rel" \
		-initrd "$w/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet" \
		-nographic -no-reboot -net none \
		-serial mon:stdio -serial "file:$w/export.b64" </dev/null 2>&1 |
		tr -d '\r' >"$w/console.log"

	while IFS= read -r line; do
		case $line in
		"KT: ok "*) result ok "$s: ${line#KT: ok }" ;;
		"KT: not ok "*) result "not ok" "$s: ${line#KT: not ok }" ;;
		"KT: #"*) echo "# ${line#KT: # }" ;;
		esac
	done <"$w/console.log"
	report "$s" "$w"
	if ! grep -q '^KT: end' "$w/console.log"; then
		result "not ok" "$s: the guest ran every test (console: $w/console.log)"
		diag "$w/console.log"
	fi
}

while read -r s rel root kdir; do
	boot "$s" "$rel" "$root" "$kdir"
done <<<"$kernels"
finish
