#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what clocktrace costs against the tools users would pick
# instead (issue 6).  Interleaved A B A B runs after a warm-up round; the
# table goes to stdout and, as JSON, to build/bench/latest.json (the previous
# file, if any, is compared with and kept as build/bench/previous.json).
#
#   tools/bench.sh            full run, about 5-10 minutes
#   QUICK=1 tools/bench.sh    1-2 minutes: smaller N, 3 runs each
#   ONLY=untraced tools/bench.sh   section 5 alone (cost to untraced
#                             processes and its mechanism floors); writes
#                             build/bench/untraced.{json,txt}, leaves
#                             latest.json alone
#   ONLY=procs tools/bench.sh      the process-event section alone
#                             (tools/bench/procs.sh: fork/exec-heavy
#                             workloads); writes build/bench/procs.{json,txt}
#
# Knobs (environment): RUNS, N, M (reference workload: tzloop -n N -c 1
# -s CLOCK_PROCESS_CPUTIME_ID:M), SMALL_DIV (strace and perf trace run
# N/SMALL_DIV, M/SMALL_DIV), SYSLOOP_N and SYSLOOP_K (untraced-process cost:
# SYSLOOP_N syscalls of each kind per variant and round, timed in SYSLOOP_K
# slices), CAP_SECONDS,
# ONLY (empty: everything; untraced: section 5 only).
set -u
cd "$(dirname "$0")/.." || exit 1
ONLY=${ONLY:-}
case $ONLY in
''|untraced|procs) ;;
*) echo "bench: ONLY=$ONLY: only ONLY=untraced or ONLY=procs is supported" >&2; exit 2 ;;
esac

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
	RUNS=${RUNS:-3} N=${N:-20000} M=${M:-20000} SMALL_DIV=${SMALL_DIV:-10}
	SYSLOOP_N=${SYSLOOP_N:-1000000} CAP_SECONDS=${CAP_SECONDS:-5}
	FLOOR_ALONGSIDE=0
else
	RUNS=${RUNS:-5} N=${N:-100000} M=${M:-100000} SMALL_DIV=${SMALL_DIV:-20}
	SYSLOOP_N=${SYSLOOP_N:-2000000} CAP_SECONDS=${CAP_SECONDS:-5}
	FLOOR_ALONGSIDE=1
fi
SYSLOOP_K=${SYSLOOP_K:-10}
NS=$((N / SMALL_DIV)) MS=$((M / SMALL_DIV))

OUT=build/bench
TMP=$OUT/tmp
mkdir -p "$OUT" && rm -rf "$TMP" && mkdir -p "$TMP" || exit 1
# Measure one binary from start to end, even if the tree is rebuilt meanwhile.
CT=$OUT/clocktrace
cp ./clocktrace "$CT" 2>/dev/null || { echo "bench: no ./clocktrace: run make all first" >&2; exit 1; }
RUNS_TSV=$TMP/runs.tsv
: >"$RUNS_TSV"

say() { printf 'bench: %s\n' "$*" >&2; }

# --- peers and helpers ------------------------------------------------------
[ "$ONLY" = untraced ] || tools/install-deps.sh bench || say "some peers could not be installed"
[ -x tools/tzloop ] && [ -x tools/clockthreads ] &&
	[ -x tools/forktree ] || { say "run make all first"; exit 1; }

CC=${CC:-gcc} CLANG=${CLANG:-clang} BPFTOOL=${BPFTOOL:-bpftool}
build_helpers() {
	$CC -O2 -Wall -o $OUT/rstat tools/bench/rstat.c &&
	$CC -O2 -Wall -o $OUT/sysloop tools/bench/sysloop.c &&
	$CLANG -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ivmlinux/x86 \
		-Wall -c tools/bench/floor.bpf.c -o $OUT/floor.bpf.o &&
	$BPFTOOL gen skeleton $OUT/floor.bpf.o name floor_bpf >$OUT/floor.skel.h &&
	$CC -O2 -Wall -I$OUT -o $OUT/floor tools/bench/floor.c \
		-Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic &&
	$CLANG -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Ivmlinux/x86 \
		-Wall -c tools/bench/mechfloor.bpf.c -o $OUT/mechfloor.bpf.o &&
	$BPFTOOL gen skeleton $OUT/mechfloor.bpf.o name mechfloor_bpf >$OUT/mechfloor.skel.h &&
	$CC -O2 -Wall -I$OUT -o $OUT/mechfloor tools/bench/mechfloor.c \
		-Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic
}
build_helpers || { say "cannot build tools/bench helpers"; exit 1; }
[ "$ONLY" = procs ] && exec env CT="$CT" QUICK="$QUICK" RUNS="$RUNS" tools/bench/procs.sh

have() { command -v "$1" >/dev/null 2>&1; }
SYSCOUNT=$(command -v syscount-bpfcc || command -v syscount || true)
UNAVAIL=$TMP/unavailable
: >"$UNAVAIL"
have strace || echo "strace	not available: strace not installed" >>"$UNAVAIL"
have perf || echo "perf	not available: perf not installed" >>"$UNAVAIL"
have bpftrace || echo "bpftrace	not available: bpftrace not installed" >>"$UNAVAIL"
if [ -z "$SYSCOUNT" ]; then
	echo "syscount	not available: bcc tools not installed" >>"$UNAVAIL"
elif [ ! -e /lib/modules/"$(uname -r)"/build ] &&
     [ ! -e /sys/kernel/kheaders.tar.xz ]; then
	# bcc compiles its C at run time against the running kernel's headers.
	echo "syscount	not available: no kernel headers for $(uname -r) (bcc needs /lib/modules/$(uname -r)/build or CONFIG_IKHEADERS)" >>"$UNAVAIL"
	SYSCOUNT=
fi
avail() { ! grep -q "^$1	" "$UNAVAIL"; }

# --- one measured run -------------------------------------------------------
# run1 GROUP TOOL ROUND OUTFILE CMD...: time CMD (wall, CPU of it and its
# descendants, peak RSS) and log one line of runs.tsv.
run1() {
	local g=$1 t=$2 r=$3 of=$4
	shift 4
	: >"$TMP/rs"
	timeout -s INT 900 $OUT/rstat "$TMP/rs" "$@" \
		>"$TMP/$g.$t.$r.stdout" 2>"$TMP/$g.$t.$r.stderr" </dev/null
	[ -s "$TMP/rs" ] || echo "0 0 0 0 124" >"$TMP/rs"
	printf '%s\t%s\t%s\t%s\t%s\n' "$g" "$t" "$r" "$(cat "$TMP/rs")" "$of" \
		>>"$RUNS_TSV"
}

# System-wide syscount: started first, stopped after the workload; its own
# CPU is added to the workload's.
run_syscount() {
	local g=$1 r=$2 of=$3
	shift 3
	: >"$TMP/sc.rs"
	$OUT/rstat "$TMP/sc.rs" "$SYSCOUNT" -L >"$of" 2>&1 &
	local sp=$!
	local i=0
	while [ $i -lt 100 ] && ! grep -q Tracing "$of" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	run1 "$g" syscount "$r" "$of" "$@"
	kill -INT $sp 2>/dev/null
	wait $sp
	echo "$(cat "$TMP/sc.rs")" >"$of.self"
}

# tool_run GROUP TOOL ROUND WORKLOAD...
tool_run() {
	local g=$1 t=$2 r=$3
	shift 3
	local of=$TMP/$g.$t.$r.out
	case $t in
	untraced)   run1 "$g" "$t" "$r" "" "$@" ;;
	clocktrace) run1 "$g" "$t" "$r" "$of" $CT run --json -o "$of" -- "$@" ;;
	libc)       run1 "$g" "$t" "$r" "$of" $CT run --libc --json -o "$of" -- "$@" ;;
	floor)      run1 "$g" "$t" "$r" "$of" $OUT/floor -o "$of" -- "$@" ;;
	bpftrace)   run1 "$g" "$t" "$r" "$of" bpftrace -o "$of" tools/bench/peer.bt -c "$*" ;;
	strace)     run1 "$g" "$t" "$r" "$of" strace -f -c -o "$of" "$@" ;;
	perf)       run1 "$g" "$t" "$r" "$of" perf trace -s -o "$of" -- "$@" ;;
	syscount)   run_syscount "$g" "$r" "$of" "$@" ;;
	esac
}

# group NAME "TOOLS" WORKLOAD...: warm-up round 0, then RUNS rounds, the
# tools interleaved in each round.
group() {
	local g=$1 tools=$2 r t
	shift 2
	for r in $(seq 0 "$RUNS"); do
		for t in $tools; do
			avail "$t" || continue
			tool_run "$g" "$t" "$r" "$@"
		done
		printf '.' >&2
	done
	printf '\n' >&2
}

machine_state() {
	echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "foreign_sys_enter_links=$(bpftool link list 2>/dev/null | grep -c "tp 'sys_enter'")"
}

START=$(date +%s)
machine_state >"$TMP/state.before"
say "QUICK=$QUICK runs=$RUNS N=$N M=$M (strace/perf: N=$NS M=$MS) $(cat "$TMP/state.before" | tr '\n' ' ')"

W=(tools/tzloop -n "$N" -c 1 -s CLOCK_PROCESS_CPUTIME_ID:"$M")
WS=(tools/tzloop -n "$NS" -c 1 -s CLOCK_PROCESS_CPUTIME_ID:"$MS")

if [ "$ONLY" != untraced ]; then # sections 1-4
say "1/7 start-up + tear-down (<tool> /bin/true)"
group startup "untraced clocktrace libc floor bpftrace strace perf" /bin/true

say "2/7 reference workload: ${W[*]}"
group ref "untraced clocktrace libc floor bpftrace syscount" "${W[@]}"

say "3/7 slow peers, smaller workload: ${WS[*]}"
group small "untraced clocktrace strace perf" "${WS[@]}"

# --- capacity: >= 1M traced syscalls/s on both cores for CAP_SECONDS ---------
say "4/7 capacity"
CAP=$TMP/capacity
: >"$CAP"
elapsed_of() { sed -n 's/.*elapsed_ns=\([0-9]*\).*/\1/p' "$1" | head -1; }
$OUT/rstat "$TMP/cal.u.rs" tools/clockthreads -t 2 -n 500000 >/dev/null 2>"$TMP/cal.u.err"
$OUT/rstat "$TMP/cal.t.rs" $CT run --json -o "$TMP/cal.json" -- \
	tools/clockthreads -t 2 -n 500000 >/dev/null 2>"$TMP/cal.t.err"
eu=$(elapsed_of "$TMP/cal.u.err") et=$(elapsed_of "$TMP/cal.t.err")
# Calls per thread so that the traced run lasts CAP_SECONDS + 1 s.
CAPN=$(awk -v e="$et" -v s="$CAP_SECONDS" 'BEGIN { n = 500000 * (s + 1) * 1e9 / e; if (n < 2500000) n = 2500000; printf "%d", n }')
echo "untraced_rate=$(awk -v e="$eu" 'BEGIN{printf "%d", 1e6 * 1e9 / e}')" >>"$CAP"
$OUT/rstat "$TMP/cap.rs" $CT run --json -o "$TMP/cap.json" -- \
	tools/clockthreads -t 2 -n "$CAPN" >/dev/null 2>"$TMP/cap.err" &
rp=$!
ctp= ; for _ in $(seq 50); do ctp=$(pgrep -P $rp | head -1); [ -n "$ctp" ] && break; sleep 0.02; done
ticks=0 hwm=0
while [ -n "$ctp" ] && [ -r /proc/"$ctp"/stat ]; do
	s=$(awk '{print $14 + $15}' /proc/"$ctp"/stat 2>/dev/null) && [ -n "$s" ] && ticks=$s
	h=$(awk '/VmHWM/ {print $2}' /proc/"$ctp"/status 2>/dev/null) && [ -n "$h" ] && hwm=$h
	sleep 0.1
done
wait $rp
{
	echo "calls_per_thread=$CAPN"
	echo "workload_elapsed_ns=$(elapsed_of "$TMP/cap.err")"
	echo "tracer_cpu_ticks=$ticks"
	echo "clk_tck=$(getconf CLK_TCK)"
	echo "tracer_hwm_kb=$hwm"
	echo "rusage=$(cat "$TMP/cap.rs")"
} >>"$CAP"
# Peak RSS with 2,000 traced processes alive at once.
$OUT/rstat "$TMP/p2k.rs" $CT run --json -o "$TMP/p2k.json" -- \
	tools/forktree -D 1 -W 2000 -C >/dev/null 2>"$TMP/p2k.err"
echo "procs2000_rusage=$(cat "$TMP/p2k.rs")" >>"$CAP"
echo "procs2000_lines=$(grep -c '^WORKLOAD' "$TMP/p2k.err")" >>"$CAP"
fi # sections 1-4

# --- cost to processes that are not traced -----------------------------------
# sysloop (getppid, clock_gettime, newfstatat on /tmp) alone and while each
# variant is attached, all variants in every round, the order rotated from
# round to round so that drift does not always land on the same one:
#   none         nothing attached
#   clocktrace   clocktrace run -- sleep 600
#   floor        the minimal libbpf counter (full runs only)
#   rawtp-empty  empty programs on tp_btf/sys_enter + sys_exit: the least any
#                raw-syscall-tracepoint tool can cost
#   classic-tp   empty programs on syscalls/sys_{enter,exit}_clock_gettime:
#                what a per-syscall tracepoint design costs other syscalls
#                and the traced one
#   fentry, kprobe, lsm: hooks on the functions alone, measured where they
#                load; elsewhere the table says why not (mechfloor's reason).
say "5/7 cost to untraced processes (sysloop x $SYSLOOP_N in $SYSLOOP_K slices)"
UNT=$TMP/untraced.tsv MFS=$TMP/mechfloor.tsv MFU=$TMP/mechfloor.unavailable
: >"$UNT"; : >"$MFS"; : >"$MFU"
# mf_start MODE OUTFILE: start mechfloor MODE, wait until it is attached
# (sets bg) or has said it cannot be (returns 1).
mf_start() {
	local i=0
	: >"$2"
	$OUT/mechfloor "$1" >"$2" 2>&1 &
	bg=$!
	while [ $i -lt 200 ] && kill -0 "$bg" 2>/dev/null &&
	      ! grep -qE '^(ready|unavailable)' "$2"; do
		sleep 0.05; i=$((i + 1))
	done
	grep -q '^ready' "$2" && return 0
	kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; bg=
	return 1
}
# mf_stop: SIGTERM to mechfloor $bg, wait for its exit; stop_ns = the wall
# time that took (not in a subshell: only this shell can wait for it).
mf_stop() {
	local t0 t1
	t0=$(date +%s%N)
	kill -TERM "$bg"
	wait "$bg" 2>/dev/null
	t1=$(date +%s%N)
	stop_ns=$((t1 - t0))
}
MECH=
for m in rawtp-empty classic-tp fentry kprobe lsm; do
	bg=
	if mf_start "$m" "$TMP/mf.$m.probe"; then
		mf_stop
		MECH="$MECH $m"
	else
		r=$(sed -n 's/^unavailable mode=[^ ]* err=\([^ ]*\) reason=\(.*\)/not available: \1 (\2)/p' "$TMP/mf.$m.probe")
		printf '%s\t%s\n' "$m" "${r:-not available: $(tail -1 "$TMP/mf.$m.probe")}" >>"$MFU"
	fi
done
# Raw sys_enter/sys_exit links of other tools (another clocktrace, a test
# suite): they put every task on the slow syscall path, `none` included, and
# hide what the variants add.  Counted before and after each variant.
foreign_links() { bpftool link list 2>/dev/null | grep -cE "tp 'sys_(enter|exit)'"; }
alongside() { # VARIANT ROUND: the three sysloops while VARIANT is attached
	local v=$1 r=$2 bg= mode x t0 t1 of=$TMP/mf.$1.$2.out fl
	fl=$(foreign_links)
	case $v in
	none) ;;
	clocktrace) $CT run -o /dev/null -- sleep 600 >/dev/null 2>&1 & bg=$! ;;
	floor)      $OUT/floor -o /dev/null -- sleep 600 >/dev/null 2>&1 & bg=$! ;;
	*)          mf_start "$v" "$of" || { printf '%s\t%s\tfailed\n' "$v" "$r" >>"$MFS"; return; } ;;
	esac
	# clocktrace and floor have no ready line: give them time to attach.
	case $v in none) ;; clocktrace|floor) sleep 0.7 ;; *) sleep 0.2 ;; esac
	# SYSLOOP_N calls in SYSLOOP_K timed slices: the least disturbed slice
	# (other work on the machine only ever adds) and the median slice.
	for mode in getppid clock stat; do
		x=$($OUT/sysloop $mode $((SYSLOOP_N / SYSLOOP_K)) "$SYSLOOP_K" |
			sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p' | sort -g |
			awk '{ v[NR] = $1 } END { if (NR) printf "%s\t%s", v[1], NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		printf '%s\t%s\t%s\t%s\n' "$v" "$mode" "$r" "$x" >>"$UNT.$v"
	done
	case $v in
	none) ;;
	clocktrace|floor)
		# Tear-down: from killing the traced sleep to the tracer's exit.
		t0=$(date +%s%N)
		for c in $(pgrep -P "$bg"); do kill "$c"; done
		wait "$bg" 2>/dev/null
		t1=$(date +%s%N)
		printf '%s\t%s\t%s\t-\t-\n' "$v" "$r" $((t1 - t0)) >>"$MFS" ;;
	*)
		# Detach: from SIGTERM to mechfloor's exit, and its own
		# measure of destroying the links and programs.
		mf_stop
		printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$r" "$stop_ns" \
			"$(sed -n 's/.*detach_ns=\([0-9]*\).*/\1/p' "$of")" \
			"$(sed -n 's/.*attach_ns=\([0-9]*\).*/\1/p' "$of")" >>"$MFS" ;;
	esac
	x=$(foreign_links)
	[ "$x" -gt "$fl" ] && fl=$x
	sed "s/\$/\t$fl/" "$UNT.$v" >>"$UNT"
	rm -f "$UNT.$v"
}
VARIANTS="none clocktrace"
[ "$FLOOR_ALONGSIDE" = 1 ] && VARIANTS="$VARIANTS floor"
VARIANTS="$VARIANTS$MECH"
say "  variants: $VARIANTS$([ -s "$MFU" ] && printf '; not available: %s' "$(cut -f1 "$MFU" | tr '\n' ' ')")"
set -- $VARIANTS
NV=$#
# Round 0 warms up; then rounds until RUNS of them were clean (no foreign
# syscall tracepoints), at most 3 x RUNS: report.py leaves the others out.
# Before each round, up to 10 s of waiting for foreign tracers to go.
r=0 clean=0
while [ $r -eq 0 ] || { [ $clean -lt "$RUNS" ] && [ $r -le $((3 * RUNS)) ]; }; do
	for _ in $(seq 50); do [ "$(foreign_links)" = 0 ] && break; sleep 0.2; done
	set -- $VARIANTS
	for _ in $(seq $((r % NV))); do set -- "$@" "$1"; shift; done
	for v in "$@"; do alongside "$v" "$r"; done
	if awk -v r=$r '$3 == r && $6 > 0 { f = 1 } END { exit !f }' "$UNT"; then
		printf 'x' >&2
	else
		[ $r -gt 0 ] && clean=$((clean + 1))
		printf '.' >&2
	fi
	r=$((r + 1))
done
printf '\n' >&2

# --- BPF run time per event, from the kernel's own bpf_stats ------------------
# Wall and CPU above carry the noise of everything else on the machine; the
# kernel's per-program run_time_ns does not (it leaves out the tracepoint
# dispatch, which is the same for every raw-tracepoint tool).  Enabled only
# for this section: it costs two clock reads per program run.
if [ "$ONLY" != untraced ]; then # sections 6-7
say "6/7 BPF run time per event (kernel.bpf_stats_enabled)"
BS=$TMP/bpfstats.tsv
: >"$BS"
OLDSTATS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
if sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null; then
	trap 'sysctl -qw kernel.bpf_stats_enabled=$OLDSTATS' EXIT
	# progs_of TRACER_PID: "name run_time_ns run_cnt" of its programs
	PROGS_OF=$(pwd)/tools/bench/progs_of.py
	export PROGS_OF
	progs_of() {
		python3 "$PROGS_OF" "$1"
	}
	export -f progs_of 2>/dev/null
	for r in $(seq 1 "$RUNS"); do
		for t in clocktrace floor; do
			case $t in
			clocktrace) tr=($CT run -o /dev/null --) ;;
			floor) tr=($OUT/floor -o /dev/null --) ;;
			esac
			"${tr[@]}" bash -c '"$@" >/dev/null 2>&1; progs_of $PPID' _ "${W[@]}" 2>/dev/null |
				sed "s/^/ref\t$t\t$r\t/" >>"$BS"
		done
	done
	for t in clocktrace floor; do
		case $t in
		clocktrace) $CT run -o /dev/null -- sleep 600 >/dev/null 2>&1 & bg=$! ;;
		floor) $OUT/floor -o /dev/null -- sleep 600 >/dev/null 2>&1 & bg=$! ;;
		esac
		sleep 0.7
		for mode in getppid clock stat; do
			a=$(progs_of $bg | awk '{t += $2; c += $3} END {print t + 0, c + 0}')
			$OUT/sysloop $mode "$SYSLOOP_N" >/dev/null
			b=$(progs_of $bg | awk '{t += $2; c += $3} END {print t + 0, c + 0}')
			printf 'untraced\t%s\t%s\t%s %s\n' "$t" "$mode" "$a" "$b" >>"$BS"
		done
		for c in $(pgrep -P "$bg"); do kill "$c"; done
		wait "$bg" 2>/dev/null
	done
	sysctl -qw kernel.bpf_stats_enabled="$OLDSTATS"
	trap - EXIT
else
	say "cannot enable kernel.bpf_stats_enabled: section skipped"
fi

# --- attach to a busy process -------------------------------------------------
# Issue 4 asks what attaching costs a live process: the same process timed
# in rounds before, during and after a clocktrace attach.
say "7/7 attach to a busy process (sysloop clock, rounds of 200,000)"
attach_busy() {
	local f=$TMP/busy.txt a b
	: >"$f"
	$OUT/sysloop clock 200000 40 >"$f" &
	local pid=$!
	wait_lines() { while [ "$(wc -l <"$f")" -lt "$1" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done; }
	wait_lines 6
	$CT attach -p "$pid" --json -o "$TMP/busy.json" &
	local ct=$!
	sleep 0.5
	a=$(wc -l <"$f")
	wait_lines $((a + 8))
	b=$(wc -l <"$f")
	kill -INT "$ct"
	wait "$ct"
	wait_lines $((b + 8))
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# Rounds wholly before, inside and after the attached window.
	awk -v a="$a" -v b="$b" -F'ns_per_call=' '
		function med(v, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
			return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2 }
		NR >= 2 && NR < a { x[++nx] = $2 }
		NR > a + 1 && NR <= b { y[++ny] = $2 }
		NR > b + 1 { z[++nz] = $2 }
		END { bx = med(x, nx); by = med(y, ny); bz = med(z, nz)
			printf "attach to a busy process: %.0f ns per clock_gettime syscall before, %.0f attached (+%.0f ns, %.2fx), %.0f after detach (medians of %d, %d, %d rounds of 200,000)\n", bx, by, by - bx, by / bx, bz, nx, ny, nz }' "$f"
}
attach_busy | tee "$OUT/attach.txt"
fi # sections 6-7

machine_state >"$TMP/state.after"
END=$(date +%s)

if [ "$ONLY" = untraced ]; then
	python3 tools/bench/report.py --only untraced --tmp "$TMP" \
		--out "$OUT/untraced.json" --quick "$QUICK" --runs "$RUNS" \
		--n "$N" --m "$M" --ns "$NS" --ms "$MS" --sysloop-n "$SYSLOOP_N" --sysloop-k "$SYSLOOP_K" \
		--seconds $((END - START)) --cap-seconds "$CAP_SECONDS"
	exit
fi
# Fork/exec-heavy workloads: their own table, build/bench/procs.txt.
say "process events (tools/bench/procs.sh)"
CT="$CT" QUICK="$QUICK" RUNS="$RUNS" tools/bench/procs.sh
[ -f "$OUT/latest.json" ] && cp "$OUT/latest.json" "$OUT/previous.json"
python3 tools/bench/report.py --tmp "$TMP" --out "$OUT/latest.json" \
	--previous "$OUT/previous.json" --quick "$QUICK" --runs "$RUNS" \
	--n "$N" --m "$M" --ns "$NS" --ms "$MS" --sysloop-n "$SYSLOOP_N" --sysloop-k "$SYSLOOP_K" \
	--seconds $((END - START)) --cap-seconds "$CAP_SECONDS"
