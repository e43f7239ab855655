#!/usr/bin/env bats
# Performance claims: wall and CPU times, their ratios and peak RSS.  These
# depend on the machine and its load, so they run under make bench (which
# fails when one is missed), not make test: there the same features are
# asserted on counts.  Real BPF, as root.

load ../helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	[ -n "${WL:-}" ] && kill "$WL" 2>/dev/null
	[ -n "${CTP:-}" ] && kill "$CTP" 2>/dev/null
	rm -rf "$T"
}

# From tests/libc.bats: start-up and tear-down of every library probe.
@test "clocktrace run --libc /bin/true takes under 1 s" {
	start=$(date +%s%N)
	"$CT" run --libc -o /dev/null -- /bin/true
	end=$(date +%s%N)
	echo "run --libc /bin/true: $(( (end - start) / 1000000 )) ms" >&2
	[ $(( (end - start) / 1000000 )) -lt 1000 ]
}

# From tests/lang.bats (which checks the mechanism is frame mode).
@test "python: frame mode costs nothing per line: pure-Python loop < 1.5x untraced, where the line probe is > 10x" {
	spin="$TOOLS/lang/spin.py"
	# Best of five, untraced and traced runs interleaved: other work on
	# the machine (CI runs on 2 shared vCPUs) only ever adds, and comes in
	# bursts that would otherwise land on one side only.
	for _ in 1 2 3 4 5; do
		spin_ns /usr/bin/python3 "$spin" lines 2000000 >> "$T/u"
		spin_ns "$CT" run --lang --json -o "$T/out.json" -- \
			/usr/bin/python3 "$spin" lines 2000000 >> "$T/f"
	done
	u=$(sort -n "$T/u" | head -1)
	f=$(sort -n "$T/f" | head -1)
	echo "untraced: $(tr '\n' ' ' < "$T/u"); frame mode: $(tr '\n' ' ' < "$T/f")" >&2
	[ "$(jqr "$T/out.json" .lang.mechanism.python)" = frame ]
	x=$(CLOCKTRACE_NO_PYFRAME=1 spin_ns "$CT" run --lang -o /dev/null -- \
		/usr/bin/python3 "$spin" lines 20000)
	echo "ns per iteration: untraced $u, frame mode $f, USDT line $x" >&2
	awk -v u="$u" -v f="$f" 'BEGIN { exit !(f < 1.5 * u) }'
	awk -v u="$u" -v x="$x" 'BEGIN { exit !(x > 10 * u) }'
}

# CPU ms (user + system) of an untraced loop of 20,000 localtime() with TZ
# unset: each call makes a stat, and traps twice if a probe reaches it.
untraced_cpu_ms() {
	bash -c 'env -u TZ "$1" -q -m localtime -n 20000 -c 0 >/dev/null 2>&1
		 times' _ "$TOOLS/tzloop" | tail -1 |
		awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/);
		       printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }'
}

# The median of three measures.
median_cpu_ms() {
	for _ in 1 2 3; do untraced_cpu_ms; done | sort -n | sed -n 2p
}

# Waits until clocktrace -v says pid $1 has its links.
wait_probed() {
	for _ in $(seq 100); do
		grep -q "pid $1 probed" "$T/ct" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# From tests/libc_filter.bats (which counts the probe runs instead).
@test "attach --libc: an untraced localtime loop is not slowed; run --libc slows it (measured)" {
	alone=$(median_cpu_ms)
	env -u TZ "$TOOLS/tzloop" -q -m localtime -n 100000000 -c 0 >/dev/null 2>&1 &
	WL=$!
	"$CT" attach -v -p "$WL" --libc -o /dev/null 2>"$T/ct" &
	CTP=$!
	wait_probed "$WL"
	attached=$(median_cpu_ms)
	kill -INT "$CTP"
	wait "$CTP" || true
	CTP=
	"$CT" run --libc -o /dev/null -- sleep 30 2>"$T/run" &
	CTP=$!
	for _ in $(seq 100); do
		grep -q "probes every process" "$T/run" && break
		sleep 0.05
	done
	sleep 0.3
	systemwide=$(median_cpu_ms)
	kill -INT "$CTP"
	wait "$CTP" || true
	CTP=
	echo "untraced loop CPU: alone $alone ms, during attach --libc" \
	     "$attached ms, during run --libc $systemwide ms" >&2
	# Generous: the machine is shared, but a trap pair per call is
	# several times the call (the run measure shows it can tell).
	[ "$attached" -le $(( alone * 3 / 2 + 20 )) ]
	[ "$systemwide" -gt $(( alone * 3 / 2 + 20 )) ]
}

# From tests/compare.bats (which checks the speed-up's arithmetic).
@test "compare: the fix makes tzloop faster (speed-up > 1)" {
	env -u TZ "$CT" run --compare --repeat 5 --json -o "$T/c.json" -- \
		"$TOOLS/tzloop" -q -n 10000 -c 2 >/dev/null 2>&1
	jqr "$T/c.json" '"speed-up \(.compare.speedup)"' >&2
	jq -e '.compare.speedup > 1' "$T/c.json"
}

# From tests/bench.bats: clocktrace bench's own timings, 0.2 s a row.
@test "bench: the forced syscall costs more than the vDSO; localtime() with TZ unset more than set" {
	"$CT" bench --duration 0.2 --json --clock monotonic -o "$T/b.json"
	f=$T/b.json
	vdso=$(jqr "$f" '.rows[] | select(.clock == "CLOCK_MONOTONIC" and .path == "vdso") | .ns_per_call')
	sys=$(jqr "$f" '.rows[] | select(.clock == "CLOCK_MONOTONIC" and .path == "syscall") | .ns_per_call')
	unset_ns=$(jqr "$f" '.rows[] | select(.name == "localtime" and .tz == "unset") | .ns_per_call')
	set_ns=$(jqr "$f" '.rows[] | select(.name == "localtime" and .tz == ":/etc/localtime") | .ns_per_call')
	echo "vdso $vdso syscall $sys; localtime unset $unset_ns set $set_ns" >&2
	awk -v v="$vdso" -v s="$sys" 'BEGIN { exit !(s > v) }'
	awk -v u="$unset_ns" -v s="$set_ns" 'BEGIN { exit !(u > s) }'
	jq -e '[.verdict.tz[] | select(.name == "localtime") | .saving_ns > 0] | all' "$f"
}

# From tests/run.bats (which keeps a 32 MiB bound against growth): the
# issue-6 target.
@test "run: 2,000 traced processes alive at once: peak RSS under 16 MiB" {
	# The largest peak RSS among what python waited for: clocktrace's.
	rss=$(python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
		"$ROOT/clocktrace" run --json -o "$T/out.json" -- "$TOOLS/forktree" -D 1 -W 2000 -C)
	echo "peak RSS: $rss KiB" >&2
	[ "$(jqr "$T/out.json" '.processes | length')" -eq 2001 ]
	[ "$rss" -lt $((16 * 1024)) ]
}

# From tests/vdso.bats: issue 29's targets at the default rate (299 Hz).
# Coverage: the interval holds the true count in >= 19 of 20 runs (a 95%
# interval exact to the last digit does so in 74% of batches of 20; ours
# is wider: the per-call cost's error is taken in whole).  Width: the
# target (<= 20% of the estimate) is missed at this rate: the sampling
# term alone is 2 x 1.96 x sqrt((1-p)/(n p)) per process, 21% quiet (n
# ~90, p ~0.8) to 32% under load (n ~150, p ~0.5) (README,
# docs/performance.md); what is asserted is the width stated there, a
# median of at most 60% (measured 29% quiet, 38-45% under load).
@test "--vdso: 20 one-second runs at the default rate, the interval holds the true count in >= 19, median width <= 60%" {
	local hits=0 truth est low high
	: > "$T/widths"
	for i in $(seq 20); do
		"$CT" run --vdso --json -o "$T/v.json" -- "$TOOLS/vdsoloop" \
			-n 10000000 -t 1000 -c 1 -r 10000000 >"$T/wl" 2>"$T/err"
		truth=$(( $(workload_sum "$T/wl" vdso_clock_gettime) + \
			  $(workload_sum "$T/wl" vdso_time) ))
		read -r est low high < <(jq -r '[.processes[].vdso.calls] |
			"\(map(.estimate) | add) \(map(.low) | add) \(map(.high) | add)"' "$T/v.json")
		[ "$truth" -eq 20002000 ]
		echo "run $i: true $truth, estimate $est [$low, $high]" >&2
		if [ "$low" -le "$truth" ] && [ "$truth" -le "$high" ]; then
			hits=$((hits + 1))
		fi
		echo $(( (high - low) * 100 / est )) >> "$T/widths"
	done
	median=$(sort -n "$T/widths" | sed -n 10p)
	echo "--vdso 20 runs: interval held the truth $hits times; widths (% of the estimate) $(sort -n "$T/widths" | tr '\n' ' ')" >&2
	[ "$hits" -ge 19 ]
	[ "$median" -le 60 ]
}

# CPU ns of vdsoloop's clock loop (its own CLOCK_PROCESS_CPUTIME_ID).
vdsoloop_cpu() {
	"$@" 2>/dev/null | grep -o 'cpu_ns=[0-9]*' | cut -d= -f2
}

# From tests/vdso.bats: what --vdso's sampler adds to the traced program,
# at the default rate.  Best of five, interleaved with the same run
# without --vdso (whose tracepoints the clock loop never hits).
@test "--vdso at the default rate adds under 1% to the traced program's CPU time" {
	for _ in 1 2 3 4 5; do
		vdsoloop_cpu "$CT" run -o /dev/null -- "$TOOLS/vdsoloop" \
			-n 40000000 >> "$T/u"
		vdsoloop_cpu "$CT" run --vdso -o /dev/null -- "$TOOLS/vdsoloop" \
			-n 40000000 >> "$T/v"
	done
	u=$(sort -n "$T/u" | head -1)
	v=$(sort -n "$T/v" | head -1)
	echo "vdsoloop -n 40000000 CPU ns: without $(tr '\n' ' ' < "$T/u"); with --vdso $(tr '\n' ' ' < "$T/v"); added $(( (v - u) * 10000 / u )) / 10000" >&2
	[ $(( (v - u) * 100 )) -lt "$u" ]
}
