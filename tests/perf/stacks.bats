#!/usr/bin/env bats
# --stacks' cost (make bench): CPU added per kernel event with stacks on,
# against stacks off and against perf trace --call-graph dwarf on the same
# workload, and nothing added to untraced processes.  tests/stacks.bats
# asserts the stacks themselves, on counts.  Real BPF, as root.

load ../helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	[ -n "${CTP:-}" ] && kill "$CTP" 2>/dev/null
	bpf_stats_restore
	rm -rf "$T"
}

# CPU us (user + system) of a command and all its children: the tracer,
# its file reader and the workload, whose system time holds the BPF
# programs that run in its syscalls.
cpu_us() {
	bash -c '"$@" >/dev/null 2>&1; times' _ "$@" | tail -1 |
		awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/);
		       printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000000 }'
}

# N raw clock_gettime(CLOCK_PROCESS_CPUTIME_ID) syscalls: a clock event
# each, the cheapest syscall clocktrace counts, so that its cost shows.
clock_loop() {
	echo "$TOOLS/tzloop" -q -m none -n 1 -c 0 -s CLOCK_PROCESS_CPUTIME_ID:"$1"
}

# Records "TOOL N CPU_US" in $T/runs for one run of TOOL's command line
# over clock_loop N.
measure() {
	local tool=$1 n=$2
	shift 2
	# shellcheck disable=SC2046
	echo "$tool $n $(cpu_us "$@" $(clock_loop "$n"))" >>"$T/runs"
}

# ns of CPU per event of TOOL: the slope of its best (least) CPU between
# N1 and N2 events, which leaves out start-up and tear-down.  Other work
# on the machine (2 shared vCPUs) only ever adds: hence the least.
slope_ns() {
	awk -v t="$1" -v a="$2" -v b="$3" '
		$1 == t && (!($2 in m) || $3 < m[$2]) { m[$2] = $3 }
		END { printf "%d\n", (m[b] - m[a]) * 1000 / (b - a) }' "$T/runs"
}

# perf trace finds its tracepoints in tracefs, which a fresh machine may
# not have mounted (as tools/bench/procs.sh does).
tracefs() {
	[ -d /sys/kernel/tracing/events ] ||
		mount -t tracefs nodev /sys/kernel/tracing
	[ -d /sys/kernel/tracing/events/syscalls ]
}

@test "--stacks: CPU per clock syscall, stacks on < stacks off + 0.3 us, and < 1/4 of perf trace --call-graph dwarf's" {
	command -v perf || {
		echo "perf missing: tools/install-deps.sh bench installs linux-perf" >&2
		false
	}
	tracefs
	# Interleaved rounds: a burst of other work lands on every tool.
	for _ in 1 2 3; do
		for n in 100000 1000000; do
			measure untraced "$n"
			measure off "$n" "$CT" run -o /dev/null --
			measure on "$n" "$CT" run --stacks -o /dev/null --
		done
		# perf unwinds every event (8 KiB copied each): fewer events,
		# and a buffer that holds them all, else it loses some.
		for n in 500 3000; do
			measure perf "$n" perf trace -m 64M -e clock_gettime \
				--call-graph dwarf -o "$T/perf.$n" --
			grep -c 'clock_gettime(' "$T/perf.$n" >>"$T/perf_seen"
		done
	done
	cat "$T/runs" >&2
	u=$(slope_ns untraced 100000 1000000)
	off=$(slope_ns off 100000 1000000)
	on=$(slope_ns on 100000 1000000)
	perf=$(slope_ns perf 500 3000)
	echo "ns per clock syscall: untraced $u, clocktrace $off, --stacks $on, perf trace --call-graph dwarf $perf" >&2
	echo "added: stacks off $((off - u)), stacks on $((on - u)) (stacks alone $((on - off))), perf trace $((perf - u)); perf / --stacks: $(( (perf - u) / (on - u > 0 ? on - u : 1) ))x" >&2
	# perf saw every event: its cost is that of unwinding them all.
	[ "$(sort -u "$T/perf_seen" | tr '\n' ' ')" = "3000 500 " ]
	[ $((on - off)) -lt 300 ]
	[ $(( (on - u) * 4 )) -lt $((perf - u)) ]
}

# ns of BPF run time per event of "clocktrace run OPTS" over clock_loop
# N: the kernel's own count of its programs' run time (bpf_stats), read
# while run still holds them (the workload then sleeps until killed).
kernel_ns_per_event() {
	local n=$1 id sl
	shift
	rm -f "$T/wl"
	"$CT" run "$@" -o /dev/null -- bash -c "$(clock_loop "$n" | sed 's/ -q//') >/dev/null \
		2>$T/wl; exec sleep 30" >/dev/null 2>&1 &
	CTP=$!
	for _ in $(seq 600); do
		grep -q '^WORKLOAD' "$T/wl" 2>/dev/null && break
		sleep 0.05
	done
	# Not done in 30 s: no figure (the caller counts them).
	grep -q '^WORKLOAD' "$T/wl" &&
	for id in $(awk '$1 == "prog_id:" { print $2 }' /proc/"$CTP"/fdinfo/* 2>/dev/null |
		    sort -u); do
		bpftool -j prog show id "$id" | jq -r '.run_time_ns // 0'
	done | awk -v n="$n" '{ t += $1 } END { printf "%d\n", t / n }'
	sl=$(pgrep -P "$CTP" -x sleep)
	kill "$sl"
	wait "$CTP" || true
	CTP=
}

# What the kernel side adds to each event: the budget, a clock read, a
# copy now and then.  Precise where CPU times on a shared machine are not.
@test "--stacks: the BPF programs' run time per clock syscall grows by < 100 ns (bpf_stats)" {
	bpf_stats_on
	for _ in 1 2 3; do
		kernel_ns_per_event 1000000 >>"$T/off"
		kernel_ns_per_event 1000000 --stacks >>"$T/on"
	done
	[ "$(grep -cx '[0-9]\+' "$T/off")" -eq 3 ]
	[ "$(grep -cx '[0-9]\+' "$T/on")" -eq 3 ]
	off=$(sort -n "$T/off" | head -1)
	on=$(sort -n "$T/on" | head -1)
	echo "BPF ns per clock syscall: stacks off $(tr '\n' ' ' <"$T/off"), stacks on $(tr '\n' ' ' <"$T/on"): added $((on - off))" >&2
	[ $((on - off)) -lt 100 ]
}

# CPU ms of an untraced loop of 100,000 localtime() with TZ unset (a stat
# each), the least of five.
untraced_cpu_ms() {
	for _ in 1 2 3 4 5; do
		bash -c 'env -u TZ "$1" -q -m localtime -n 100000 -c 0 \
			>/dev/null 2>&1; times' _ "$TOOLS/tzloop" | tail -1 |
			awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/);
			       printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }'
	done | sort -n | head -1
}

# The loop's CPU while "clocktrace run OPTIONS -- sleep 30" runs beside.
beside_run_ms() {
	"$CT" run "$@" -o /dev/null -- sleep 30 2>/dev/null &
	CTP=$!
	# Running once its programs are attached: sleep is traced.
	for _ in $(seq 100); do
		sl=$(pgrep -P "$CTP" -x sleep) && break
		sleep 0.05
	done
	sleep 0.3
	untraced_cpu_ms
	# The traced sleep ends: run reports and exits.
	kill "$sl"
	wait "$CTP" || true
	CTP=
}

# The same shape as perf.bats's test of --libc's filter.  What every
# untraced syscall pays for run's own filter (is_traced() at the raw
# tracepoint) is there with stacks off too: --stacks must add nothing.
@test "--stacks: an untraced localtime loop beside run --stacks is not slower than beside run without it" {
	alone=$(untraced_cpu_ms)
	# Interleaved: a burst of other work lands on both sides.
	for _ in 1 2 3; do
		beside_run_ms >>"$T/plain"
		beside_run_ms --stacks >>"$T/stacks"
	done
	plain=$(sort -n "$T/plain" | head -1)
	stacks=$(sort -n "$T/stacks" | head -1)
	echo "untraced loop CPU ms: alone $alone, beside run $(tr '\n' ' ' <"$T/plain")," \
	     "beside run --stacks $(tr '\n' ' ' <"$T/stacks")" >&2
	[ "$stacks" -le $(( plain * 105 / 100 + 2 )) ]
}
