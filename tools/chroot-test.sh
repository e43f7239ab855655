#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Portability check: does clocktrace run on a host that has none of its
# build dependencies?  Builds (once, then reuses) a Debian minbase root with
# debootstrap, installs clocktrace into it (the .deb with dpkg -i, or a bare
# binary copied to /clocktrace) with a statically linked workload, mounts
# /proc and /sys, and inside a chroot runs `clocktrace doctor` and
# `clocktrace run --json` on the workload, checking the counts exactly
# against what the workload says it did.  A package is removed again at the
# end, and its files must be gone.
#
#   tools/chroot-test.sh CLOCKTRACE.deb|CLOCKTRACE FORKTREE_STATIC
#
# Environment: CHROOT_DIR (build/chroot), SUITE (bookworm),
# MIRROR (http://deb.debian.org/debian), CHROOT_REFRESH=1 to rebuild the
# cached root.  Needs root and debootstrap; downloads ~40 MB the first time.
# Every mount it makes is undone on every exit path.
set -euo pipefail

CT=${1:?usage: $0 CLOCKTRACE FORKTREE_STATIC}
WORKLOAD=${2:?usage: $0 CLOCKTRACE FORKTREE_STATIC}
ROOT=${CHROOT_DIR:-build/chroot}
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
STAMP=.clocktrace-minbase

# The workload: 1 + 3 + 9 = 13 processes, each making exactly 5 stats and
# 2 opens of /etc/localtime and 7 + 3 clock_gettime syscalls.
WORKLOAD_ARGS=(-D 2 -W 3 -k 5 -o 2 -s CLOCK_MONOTONIC:7
	       -s CLOCK_PROCESS_CPUTIME_ID:3)
WANT_PROCS=13

# Seconds from $1 to $2 (default now), one decimal.
since() { awk -v a="$1" -v b="${2:-$(date +%s.%N)}" 'BEGIN { printf "%.1f", b - a }'; }
say() { printf 'chroot-test: %s\n' "$*"; }
die() { printf 'chroot-test: FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mount, chroot, BPF)"
command -v debootstrap >/dev/null ||
	die "debootstrap not found (apt-get install debootstrap)"
command -v jq >/dev/null || die "jq not found (make deps)"
[ -f "$CT" ] || die "no package or binary at $CT (make deb)"
[ -x "$WORKLOAD" ] || die "no workload at $WORKLOAD"
needed=$(LC_ALL=C readelf -d "$WORKLOAD" 2>/dev/null | grep -c NEEDED || true)
[ "$needed" = 0 ] || die "$WORKLOAD is not statically linked"

# Physical paths: they are what /proc/self/mountinfo shows.
mkdir -p "$(dirname "$ROOT")"
[ -L "$ROOT" ] && ROOT=$(readlink -f "$ROOT")
ROOT=$(cd "$(dirname "$ROOT")" && pwd -P)/$(basename "$ROOT")
NEW="$ROOT.new"

# Every mount point at or below DIR, deepest first.
mounts_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' \
		/proc/self/mountinfo | sort -r
}

unmount_all() {
	local dir m
	for dir in "$ROOT" "$NEW"; do
		for m in $(mounts_under "$dir"); do
			umount "$m" 2>/dev/null || umount -l "$m" ||
				echo "chroot-test: cannot unmount $m" >&2
		done
	done
}

cleanup() {
	local rc=$?
	unmount_all
	[ -n "$(mounts_under "$ROOT")$(mounts_under "$NEW")" ] && rc=1
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Left over by a run that was killed with SIGKILL.
unmount_all

t0=$(date +%s.%N)
if [ "${CHROOT_REFRESH:-0}" = 1 ] || [ ! -e "$ROOT/$STAMP" ]; then
	say "debootstrap --variant=minbase $SUITE into $ROOT (cached after)"
	rm -rf --one-file-system "$NEW" "$ROOT"
	# Into a side directory: an interrupted bootstrap is never reused.
	debootstrap --variant=minbase "$SUITE" "$NEW" "$MIRROR" \
		>"$NEW.log" 2>&1 || { tail -20 "$NEW.log" >&2;
				      die "debootstrap failed (log: $NEW.log)"; }
	unmount_all
	touch "$NEW/$STAMP"
	mv "$NEW" "$ROOT"
	rm -f "$NEW.log"
	say "root built in $(since "$t0") s"
else
	say "reusing $ROOT (CHROOT_REFRESH=1 rebuilds it)"
fi
t1=$(date +%s.%N)

# The point of the exercise: nothing clocktrace was built with is here.
for lib in libbpf.so libelf.so libelf-; do
	if compgen -G "$ROOT/usr/lib/*/$lib*" >/dev/null ||
	   compgen -G "$ROOT/lib/*/$lib*" >/dev/null; then
		die "the root has $lib: it is not a clean target"
	fi
done
for tool in clang bpftool gcc; do
	[ ! -e "$ROOT/usr/bin/$tool" ] || die "the root has $tool"
done

install -m 0755 "$WORKLOAD" "$ROOT/forktree-static"
case $CT in
*.deb)
	cp "$CT" "$ROOT/tmp/clocktrace.deb"
	# Depends must be satisfiable by a bare Debian: no --force here.
	chroot "$ROOT" dpkg -i /tmp/clocktrace.deb >/dev/null ||
		die "dpkg -i of $(basename "$CT") failed in the root"
	BIN=/usr/sbin/clocktrace
	PACKAGED=1
	say "installed $(basename "$CT") with dpkg -i"
	;;
*)
	install -m 0755 "$CT" "$ROOT/clocktrace"
	BIN=/clocktrace
	PACKAGED=0
	;;
esac
rm -f "$ROOT/tmp/ct.json" "$ROOT/tmp/workload.txt"

mount -t proc proc "$ROOT/proc"
mount -t sysfs sysfs "$ROOT/sys"
# As on a real host; clocktrace's own probes (tp_btf) do not need it.
if [ -d "$ROOT/sys/kernel/tracing" ] && [ ! -e "$ROOT/sys/kernel/tracing/trace" ]; then
	mount -t tracefs nodev "$ROOT/sys/kernel/tracing"
fi
[ -e "$ROOT/sys/kernel/btf/vmlinux" ] || die "no BTF under $ROOT/sys"

in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

say "ldd inside the root:"
deps=$(in_root ldd "$BIN" 2>&1) || die "ldd $BIN failed: $deps"
# shellcheck disable=SC2001 # indent every line
echo "$deps" | sed 's/^/    /'
extra=$(echo "$deps" | grep -Ev 'linux-vdso|libc\.so|libm\.so|ld-linux' || true)
[ -z "$extra" ] || die "needs more than the C library: $extra"

say "clocktrace doctor:"
set +e
in_root "$BIN" doctor >"$ROOT/tmp/doctor.txt" 2>&1
rc=$?
set -e
sed 's/^/    /' "$ROOT/tmp/doctor.txt"
[ "$rc" = 0 ] || die "doctor exited $rc (want 0)"

say "clocktrace run --json -- /forktree-static ${WORKLOAD_ARGS[*]}"
set +e
in_root "$BIN" run --json -o /tmp/ct.json -- \
	/forktree-static "${WORKLOAD_ARGS[@]}" \
	>/dev/null 2>"$ROOT/tmp/workload.txt"
rc=$?
set -e
[ "$rc" = 0 ] || { cat "$ROOT/tmp/workload.txt" >&2; die "run exited $rc"; }

J="$ROOT/tmp/ct.json"
W="$ROOT/tmp/workload.txt"
wsum() {
	grep -o "^WORKLOAD .*" "$W" | grep -o " $1=[0-9-]*" | cut -d= -f2 |
		awk '{ s += $1 } END { print s + 0 }'
}
check() {	# name got want
	if [ "$2" != "$3" ]; then
		die "$1: clocktrace counted $2, want $3"
	fi
	say "  ok $1 = $2"
}
check "WORKLOAD lines" "$(grep -c '^WORKLOAD ' "$W")" "$WANT_PROCS"
check "processes" "$(jq '.processes | length' "$J")" "$WANT_PROCS"
check "exit code" "$(jq '.exit.code' "$J")" 0
check "lost events" "$(jq '.lost_events' "$J")" 0
check "stat /etc/localtime" \
	"$(jq '[.processes[].tz.paths["/etc/localtime"].stat // 0] | add' "$J")" \
	"$(wsum tz_stat)"
check "open /etc/localtime" \
	"$(jq '[.processes[].tz.paths["/etc/localtime"].open // 0] | add' "$J")" \
	"$(wsum tz_open)"
check "clock_gettime syscalls" \
	"$(jq '[.processes[].clock.clock_gettime.count // 0] | add' "$J")" \
	"$(wsum clock_syscalls)"
check "CLOCK_MONOTONIC" \
	"$(jq '[.processes[].clock_ids.CLOCK_MONOTONIC // 0] | add' "$J")" \
	$((WANT_PROCS * 7))
check "CLOCK_PROCESS_CPUTIME_ID" \
	"$(jq '[.processes[].clock_ids.CLOCK_PROCESS_CPUTIME_ID // 0] | add' "$J")" \
	$((WANT_PROCS * 3))
check "per-process stat" \
	"$(jq '[.processes[] | select(.tz.paths["/etc/localtime"].stat == 5)] | length' "$J")" \
	"$WANT_PROCS"
check "tree depths" "$(jq -c '[.processes[].depth] | sort | unique' "$J")" "[0,1,2]"

if [ "$PACKAGED" = 1 ]; then
	[ -e "$ROOT/usr/share/man/man8/clocktrace.8.gz" ] || die "no man page installed"
	[ -e "$ROOT/usr/share/bash-completion/completions/clocktrace" ] ||
		die "no completion installed"
	chroot "$ROOT" dpkg --purge clocktrace >/dev/null || die "dpkg --purge failed"
	for f in usr/sbin/clocktrace usr/share/man/man8/clocktrace.8.gz \
		 usr/share/bash-completion/completions/clocktrace; do
		[ ! -e "$ROOT/$f" ] || die "/$f left after dpkg --purge"
	done
	say "  ok dpkg --purge removed every file"
fi

t2=$(date +%s.%N)
say "PASS (root: $(since "$t0" "$t1") s, test: $(since "$t1" "$t2") s)"
