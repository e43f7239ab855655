#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The process-event section of make bench (issue 14): what tracing costs a
# fork/exec-heavy workload.  Run by tools/bench.sh (its helpers built in
# build/bench), or alone: ONLY=procs tools/bench.sh.
#
#   loop     a shell loop starting /bin/true PROCS_N times
#   prefork  tools/bench/prefork.sh: PREFORK_N workers, PREFORK_K alive at
#            once, each an exec of forktree doing 3 tz stats
#   startup  TOOL /bin/true: subtracted to give the cost "start-up excluded"
#
# untraced, floor, clocktrace and bpftrace run interleaved, round 0 a
# warm-up, then RUNS rounds; then, with kernel.bpf_stats_enabled, RUNS
# more runs of clocktrace and the floor per workload for the kernel's own
# run time of each program.  Writes build/bench/procs.{json,txt}.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=build/bench
TMP=$OUT/tmp-procs
CT=${CT:-$OUT/clocktrace}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
	RUNS=${RUNS:-3} PROCS_N=${PROCS_N:-300} PREFORK_N=${PREFORK_N:-200}
else
	RUNS=${RUNS:-5} PROCS_N=${PROCS_N:-1000} PREFORK_N=${PREFORK_N:-600}
fi
PREFORK_K=${PREFORK_K:-4}
rm -rf "$TMP" && mkdir -p "$TMP" || exit 1
[ -x "$OUT/rstat" ] && [ -x "$OUT/floor" ] && [ -x "$CT" ] ||
	{ echo "procs: build/bench helpers missing: run tools/bench.sh" >&2; exit 1; }
say() { printf 'bench: %s\n' "$*" >&2; }

LOOP=(/bin/bash "$PWD"/tools/bench/trueloop.sh "$PROCS_N")
PREFORK=(/bin/bash "$PWD"/tools/bench/prefork.sh "$PREFORK_N" "$PREFORK_K" "$PWD"/tools/forktree -D 0 -k 3)
TOOLS="untraced floor clocktrace"
# bpftrace finds its tracepoints in tracefs, which a fresh machine may not
# have mounted.
[ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if command -v bpftrace >/dev/null 2>&1 && [ -d /sys/kernel/tracing/events ]; then
	TOOLS="$TOOLS bpftrace"
else
	say "procs: bpftrace left out (not installed, or no tracefs)"
fi

# run1 WORKLOAD TOOL ROUND CMD...: one timed run, one line of runs.tsv:
# workload tool round wall_ns user_us sys_us maxrss_kb status
run1() {
	local w=$1 t=$2 r=$3 of=$TMP/$1.$2.$3.out
	shift 3
	: >"$TMP/rs"
	case $t in
	untraced)   set -- "$@" ;;
	floor)      set -- $OUT/floor -o "$of" -- "$@" ;;
	clocktrace) set -- $CT run --json -o "$of" -- "$@" ;;
	bpftrace)   set -- bpftrace -o "$of" tools/bench/peer.bt -c "$*" ;;
	esac
	timeout -s INT 900 $OUT/rstat "$TMP/rs" "$@" >/dev/null 2>"$TMP/$w.$t.$r.err" </dev/null
	[ -s "$TMP/rs" ] || echo "0 0 0 0 124" >"$TMP/rs"
	printf '%s\t%s\t%s\t%s\n' "$w" "$t" "$r" "$(cat "$TMP/rs")" >>"$TMP/runs.tsv"
}

say "procs: loop of $PROCS_N /bin/true, prefork of $PREFORK_N workers ($PREFORK_K at once), $RUNS runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/runs.tsv"
for r in $(seq 0 "$RUNS"); do
	for t in $TOOLS; do
		run1 startup "$t" "$r" /bin/true
		run1 loop "$t" "$r" "${LOOP[@]}"
		run1 prefork "$t" "$r" "${PREFORK[@]}"
	done
	printf '.' >&2
done
printf '\n' >&2

# The kernel's run time of each program of the tracer (pid $1): name,
# run_time_ns, run_cnt.  run_cnt counts every process of the machine that
# reached the program, traced or not.
progs_of() {
	python3 "$PROGS_OF" "$1"
}
PROGS_OF=$(pwd)/tools/bench/progs_of.py
export PROGS_OF
export -f progs_of
: >"$TMP/bpfstats.tsv"
OLDSTATS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
if sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null; then
	trap 'sysctl -qw kernel.bpf_stats_enabled=$OLDSTATS' EXIT
	say "procs: BPF run time per program (kernel.bpf_stats_enabled)"
	for r in $(seq 1 "$RUNS"); do
		for t in clocktrace floor; do
			case $t in
			clocktrace) tr=($CT run -o /dev/null --) ;;
			floor) tr=($OUT/floor -o /dev/null --) ;;
			esac
			for w in loop prefork; do
				if [ $w = loop ]; then wl=("${LOOP[@]}"); else wl=("${PREFORK[@]}"); fi
				"${tr[@]}" bash -c '"$@" >/dev/null 2>&1; progs_of $PPID' _ "${wl[@]}" 2>/dev/null |
					sed "s/^/$w\t$t\t$r\t/" >>"$TMP/bpfstats.tsv"
			done
		done
	done
	sysctl -qw kernel.bpf_stats_enabled="$OLDSTATS"
	trap - EXIT
else
	say "procs: cannot enable kernel.bpf_stats_enabled: no BPF run times"
fi
python3 tools/bench/procs.py --tmp "$TMP" --out "$OUT/procs.json" \
	--procs-n "$PROCS_N" --prefork-n "$PREFORK_N" --prefork-k "$PREFORK_K" \
	--runs "$RUNS" --quick "$QUICK"
