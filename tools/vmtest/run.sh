#!/bin/bash
# The kernel matrix: boots each kernel of ROWS under qemu (TCG: no KVM is
# needed) with an initramfs holding the built binaries, runs
# tests/vm/guest-tests.sh inside and prints its results as TAP for
# tools/run-tests.sh, one line per test and kernel.  A guest that does not
# boot, or stops before a test reports, gets "not ok" for that test.
#   run.sh ROW...      ROW = ARCH:SUITE:PACKAGE_GLOB:SUBSET
# e.g. x86_64:bookworm:linux-image-6.1.0-*-cloud-amd64-unsigned:full.
# Environment: VMTEST_DIR (build/vmtest: downloads, initramfs),
# VMTEST_RESULTS (its results/: logs, TAP), VMTEST_TIMEOUT (seconds per
# guest, 420: a loaded host slows TCG 2-4x), VMTEST_JOBS (guests at once,
# one per CPU), VMTEST_MTTCG=1 (a host thread per vCPU, see tcg_accel),
# VMTEST_LOGLEVEL (the guest kernel's console loglevel, 1),
# VMTEST_BINDIR_<ARCH> (where that architecture's clocktrace and tools/ are;
# x86_64: the tree itself).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export VMTEST_DIR=${VMTEST_DIR:-$top/build/vmtest}
mkdir -p "$VMTEST_DIR"
VMTEST_DIR=$(cd "$VMTEST_DIR" && pwd)
timeout=${VMTEST_TIMEOUT:-420}
# A guest runs on one host thread (tcg_accel): one guest per CPU.
jobs=${VMTEST_JOBS:-$(nproc)}
results=${VMTEST_RESULTS:-$VMTEST_DIR/results}
guest_tests=$top/tests/vm/guest-tests.sh

bindir()
{
	case $1 in
	x86_64) echo "${VMTEST_BINDIR_x86_64:-$top}" ;;
	arm64) echo "${VMTEST_BINDIR_arm64:-$top/build-arm64}" ;;
	esac
}

debian_arch()
{
	case $1 in
	x86_64) echo amd64 ;;
	arm64) echo arm64 ;;
	esac
}

cross_cc()
{
	case $1 in
	x86_64) echo "${CC:-gcc}" ;;
	arm64) echo aarch64-linux-gnu-gcc ;;
	esac
}

# Both vCPUs on one host thread.  With a thread per vCPU (multi-threaded
# TCG, qemu 7.2) guests hung or crashed exactly where the kernel rewrites
# its own code while the other vCPU runs it: a 5.10 guest had both vCPUs
# stuck for minutes, registers unchanged, on the same `jmp rel32` in
# syscall_exit_to_user_mode (an instruction that cannot loop) while
# clocktrace switched the syscall tracepoints on; a 6.12 guest panicked
# ("Fatal exception in interrupt") while tracepoints and fentry
# trampolines were attached and detached next to a getppid loop.
tcg_accel()
{
	if [ "${VMTEST_MTTCG:-0}" = 1 ]; then
		echo tcg,thread=multi
	else
		echo tcg,thread=single
	fi
}

# qemu's command for ARCH, up to the kernel and initramfs options.
qemu_cmd()
{
	case $1 in
	x86_64)
		echo qemu-system-x86_64 -accel "$(tcg_accel)" -cpu max -m 1024 -smp 2
		;;
	arm64)
		# pauth-impdef: qemu's pointer authentication is slow under TCG.
		echo qemu-system-aarch64 -M virt -accel "$(tcg_accel)" -cpu max,pauth-impdef=on \
			-m 1024 -smp 2
		;;
	esac
}

console()
{
	case $1 in
	x86_64) echo ttyS0 ;;
	arm64) echo ttyAMA0 ;;
	esac
}

# The bpfobjs helper and the initramfs of ARCH, rebuilt each run (seconds).
prepare_arch()
{
	local arch=$1
	mkdir -p "$VMTEST_DIR/$arch"
	# A failed build must not leave the last run's binaries to be tested.
	rm -f "$VMTEST_DIR/$arch/initrd.cpio.gz"
	# Built aside and renamed: another run may be packing the old one.
	"$(cross_cc "$arch")" -O2 -Wall -Wextra -static -o "$VMTEST_DIR/$arch/bpfobjs.$$" \
		"$here/bpfobjs.c" || return 1
	mv -f "$VMTEST_DIR/$arch/bpfobjs.$$" "$VMTEST_DIR/$arch/bpfobjs"
	# The untraced syscall loop of the unrelated_cost test.
	"$(cross_cc "$arch")" -O2 -Wall -Wextra -static -o "$VMTEST_DIR/$arch/sysloop.$$" \
		"$top/tools/bench/sysloop.c" || return 1
	mv -f "$VMTEST_DIR/$arch/sysloop.$$" "$VMTEST_DIR/$arch/sysloop"
	"$here/initramfs.sh" "$arch" "$(bindir "$arch")" "$VMTEST_DIR/$arch/initrd.cpio.gz"
}

# Boots ROW's kernel; the console goes to the row's log.  Writes the
# kernel's release to the row's .release, or nothing when it cannot be had.
boot_row()
{
	local arch=$1 suite=$2 glob=$3 subset=$4 id=$5 pkg kernel start
	local log=$results/$id.log
	: > "$log"
	echo "$arch $suite $glob $subset" > "$results/$id.row"
	pkg=$("$here/apt.sh" "$(debian_arch "$arch")" download "$suite" "$glob" \
		"$VMTEST_DIR/kernels" 2>> "$log") || {
		echo "vmtest: no kernel $glob in $suite" >> "$log"
		return 1
	}
	kernel=$(ls "$VMTEST_DIR/kernels/$pkg/boot/"vmlinuz-* | head -n 1)
	echo "${kernel##*/vmlinuz-}" > "$results/$id.release"
	[ -x "$(bindir "$arch")/clocktrace" ] || subset=boot
	start=$(date +%s%N)
	# no_timer_check: on a loaded host TCG is too slow for x86's boot-time
	# check of the IO-APIC timer (a 5.10 guest panicked: "IO-APIC + timer
	# doesn't work!"); arm64 ignores it.
	# shellcheck disable=SC2046
	timeout -k 5 "$timeout" $(qemu_cmd "$arch") -display none -no-reboot \
		-monitor none -serial stdio -kernel "$kernel" \
		-initrd "$VMTEST_DIR/$arch/initrd.cpio.gz" \
		-append "console=$(console "$arch") panic=-1 no_timer_check quiet loglevel=${VMTEST_LOGLEVEL:-1} vmtest.subset=$subset vmtest.arch=$arch" \
		< /dev/null >> "$log" 2>&1
	echo "$? $(( ($(date +%s%N) - start) / 1000000 ))" > "$results/$id.qemu"
}

n=0

# TAP for ROW from its log: every test of its subset, reported or not.
report_row()
{
	local arch=$1 subset=$4 id=$5
	local log=$results/$id.log release label name desc line qemu_status="?" ms="?"
	release=$(cat "$results/$id.release" 2>/dev/null)
	label="vm ${release:-$3} $arch"
	[ -s "$results/$id.qemu" ] && read -r qemu_status ms < "$results/$id.qemu"
	tr -d '\r' < "$log" > "$log.clean"
	grep '^VMINFO ' "$log.clean" | sed 's/^VMINFO //' > "$results/$id.info"
	echo "# $label: qemu exit $qemu_status after $ms ms; console: $log"
	while read -r name desc; do
		n=$((n + 1))
		line=$(grep -E "^VMTAP (not )?ok $name\$" "$log.clean" | head -n 1)
		result="not ok"
		[ "$line" = "VMTAP ok $name" ] && result=ok
		echo "$result $name" >> "$results/$id.names"
		echo "$result $n - $label: $desc"
		if [ "$result" = ok ]; then
			continue
		elif [ -n "$line" ]; then
			# Its diagnostics: the lines after it up to the next result.
			sed -n "/^VMTAP not ok $name\$/,/^VMTAP \(not \)\?ok \|^VMTAP done/p" \
				"$log.clean" | sed -n 's/^VMTAP # /# /p'
		elif [ ! -s "$results/$id.release" ]; then
			echo "# no kernel: $(tail -n 1 "$log.clean")"
		elif [ ! -x "$(bindir "$arch")/clocktrace" ]; then
			echo "# no clocktrace built for $arch in $(bindir "$arch"): the guest only booted"
		elif [ "$qemu_status" = 124 ]; then
			echo "# the guest was stopped after ${timeout}s before reporting it"
		else
			echo "# the guest never reported it (qemu exit $qemu_status):"
			grep -v '^VM' "$log.clean" | tail -n 5 | sed 's/^/#   /'
		fi
	done < <(sh "$guest_tests" list "$subset") > "$results/$id.tap"
	cat "$results/$id.tap"
	rm -f "$log.clean"
}

main()
{
	local arch suite glob subset id i pids=() ids=() rows=("$@")
	local start=$SECONDS
	mkdir -p "$results"
	rm -f "$results"/*
	for arch in $(printf '%s\n' "${rows[@]}" | cut -d: -f1 | sort -u); do
		prepare_arch "$arch" || echo "# vmtest: the $arch initramfs failed"
	done
	for i in "${!rows[@]}"; do
		IFS=: read -r arch suite glob subset <<< "${rows[$i]}"
		id=$(printf '%02d-%s' "$i" "$arch")
		ids+=("$id")
		boot_row "$arch" "$suite" "$glob" "$subset" "$id" &
		pids+=($!)
		if [ "${#pids[@]}" -ge "$jobs" ]; then
			wait "${pids[0]}"
			pids=("${pids[@]:1}")
		fi
	done
	wait
	for i in "${!rows[@]}"; do
		IFS=: read -r arch suite glob subset <<< "${rows[$i]}"
		report_row "$arch" "$suite" "$glob" "$subset" "${ids[$i]}"
	done
	echo "$(date -u +%Y-%m-%d) $((SECONDS - start)) $jobs" > "$results/summary"
	echo "# vmtest: $((SECONDS - start)) s for ${#rows[@]} kernels, $jobs at once"
	! grep -q '^not ok' "$results"/*.tap
}

main "$@"
