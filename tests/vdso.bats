#!/usr/bin/env bats
# --vdso: clock reads the vDSO serves, estimated by sampling, against a
# workload that counts its own calls.  The estimates are statistical: the
# assertions are counts of runs, with the confidence the issue states.
load helpers

setup() {
	tmp=$(mktemp -d)
}

teardown() {
	rm -rf "$tmp"
}

# Field F of .vdso summed over the report's processes (F: calls.low ...).
vdso_sum() {
	jq -r "[.processes[].vdso.$1 // 0] | add // 0" "$tmp/out.json"
}

# One ~1 s run: a parent and a child, each 10M clock_gettime and 1000
# time() at 10M calls a second.  Prints "truth estimate low high".
one_run() {
	"$CT" run --vdso --json -o "$tmp/out.json" -- "$TOOLS/vdsoloop" \
		-n 10000000 -t 1000 -c 1 -r 10000000 >"$tmp/wl" 2>"$tmp/err"
	echo "$(( $(workload_sum "$tmp/wl" vdso_clock_gettime) + \
		  $(workload_sum "$tmp/wl" vdso_time) ))" \
	     "$(vdso_sum calls.estimate) $(vdso_sum calls.low)" \
	     "$(vdso_sum calls.high)"
}

# One run, checked loosely: a wrong period, cost or symbolization is off
# by far more than 2x.  Whether the interval holds the truth as often as
# it claims is a statistical question: 20 runs under make bench
# (tests/perf/perf.bats), not a count make test can assert every time.
@test "one-second run: the estimate is within 2x of the true count, low <= estimate <= high" {
	local truth est low high
	read -r truth est low high < <(one_run)
	echo "true $truth, estimate $est [$low, $high]"
	[ "$truth" -eq 20002000 ]
	[ "$est" -ge $((truth / 2)) ]
	[ "$est" -le $((truth * 2)) ]
	[ "$low" -le "$est" ]
	[ "$est" -le "$high" ]
}

@test "no vDSO reads: samples taken, none in the vDSO, the interval holds 0" {
	"$CT" run --vdso --json -o "$tmp/out.json" -- "$TOOLS/vdsoloop" \
		-n 0 -t 0 -w 600000000 >"$tmp/wl" 2>"$tmp/err"
	[ "$(vdso_sum total_samples)" -gt 50 ]
	[ "$(vdso_sum samples)" -eq 0 ]
	[ "$(vdso_sum calls.low)" -eq 0 ]
	[ "$(vdso_sum time_ns.low)" -eq 0 ]
	[ "$(vdso_sum calls.estimate)" -eq 0 ]
}

@test "the JSON fields the issue names, per process, and how it was made" {
	one_run >/dev/null
	# Exactly these keys, in every process.
	jq -e '[.processes[].vdso | (keys == ["by_function", "calls",
		"samples", "time_ns", "total_samples"]) and
		(.time_ns | keys == ["estimate", "high", "low"]) and
		(.calls | keys == ["estimate", "high", "low"]) and
		([.by_function[] | keys == ["calls", "samples"]] | all)] |
		length == 2 and all' "$tmp/out.json"
	jq -e '[.processes[].vdso.by_function.clock_gettime.samples > 0] | all' \
		"$tmp/out.json"
	jq -e '.vdso.period_ns == 3344481 and
	       .vdso.ns_per_call.clock_gettime.median > 0' "$tmp/out.json"
	[ "$(jqr "$tmp/out.json" '.losses.vdso_map_full')" -eq 0 ]
}

@test "the text report says it is an estimate and how" {
	"$CT" run --vdso -- "$TOOLS/vdsoloop" -n 1000000 >/dev/null 2>"$tmp/err"
	grep -q "an ESTIMATE from sampling CPU time every 3344 us" "$tmp/err"
	grep -q "95% Wilson interval on their share" "$tmp/err"
	grep -q "widened by that cost's own error (clock_gettime [0-9.]* ns +-[0-9]*%" "$tmp/err"
}

@test "--vdso-rate: out of range is one line and status 125" {
	run -125 "$CT" run --vdso --vdso-rate 0 -- true
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"vdso-rate must be 1 to 20000"* ]]
	run -125 "$CT" run --vdso --vdso-rate 20001 -- true
}

@test "--vdso-rate 5000: the period follows" {
	"$CT" run --vdso --vdso-rate 5000 --json -o "$tmp/out.json" -- \
		"$TOOLS/vdsoloop" -n 1000000 >/dev/null 2>"$tmp/err"
	[ "$(jqr "$tmp/out.json" '.vdso.period_ns')" -eq 200000 ]
}

@test "without --vdso: no vdso section, no sampler loaded" {
	"$CT" run --json -o "$tmp/out.json" -- "$TOOLS/vdsoloop" -n 1000 \
		>/dev/null 2>"$tmp/err"
	[ "$(jqr "$tmp/out.json" '.processes[0].vdso')" = null ]
	[ "$(jqr "$tmp/out.json" '.vdso')" = null ]
}

@test "vdso-hot-reads: a hot clock loop is named, a loop that reads no clock is not" {
	"$CT" run --vdso --json -o "$tmp/out.json" -- "$TOOLS/vdsoloop" \
		-n 5000000 -c 1 >"$tmp/wl" 2>"$tmp/err"
	[ "$(jqr "$tmp/out.json" '[.findings[] | select(.id == "vdso-hot-reads") | .pids[]] | length')" -eq 2 ]
	"$CT" run --vdso --json -o "$tmp/out.json" -- "$TOOLS/vdsoloop" \
		-n 0 -w 100000000 >"$tmp/wl" 2>"$tmp/err"
	[ "$(jqr "$tmp/out.json" '[.findings[] | select(.id == "vdso-hot-reads")] | length')" -eq 0 ]
}

# The guests of make vmtest run on hpet, where the same vdsoloop's reads
# all enter the kernel and vdso-fallback prices them (tests/vm).  Here the
# clocksource has a vDSO mode and the vDSO serves them: no clock syscall
# and no finding; the syscalls a program makes itself are a bypass.
@test "vdso-fallback: not here, where the vDSO serves the guests' workload; direct syscalls are a bypass" {
	"$CT" run --json -o "$tmp/out.json" -- "$TOOLS/vdsoloop" \
		-n 20000 -t 100 -c 1 >"$tmp/wl" 2>"$tmp/err"
	[ "$(workload_sum "$tmp/wl" vdso_clock_gettime)" -eq 40000 ]
	[ "$(jqr "$tmp/out.json" '[.processes[].clock_ids.CLOCK_MONOTONIC // 0] | add')" -eq 0 ]
	[ "$(jqr "$tmp/out.json" '[.findings[] | select(.id == "vdso-fallback")] | length')" -eq 0 ]
	run "$CT" doctor
	[[ "$output" == *"ok    clocksource: "*"the vDSO serves the clocks"* ]]
	"$CT" run --json -o "$tmp/out.json" -- "$TOOLS/tzloop" -m none -n 1 \
		-c 0 -s CLOCK_MONOTONIC:300 >/dev/null 2>"$tmp/err"
	[ "$(jqr "$tmp/out.json" '.processes[0].clock_ids.CLOCK_MONOTONIC')" -eq 300 ]
	[ "$(jqr "$tmp/out.json" '[.findings[] | select(.id == "vdso-fallback")] | length')" -eq 0 ]
	[ "$(jqr "$tmp/out.json" '[.findings[] | select(.id == "clock-syscall-bypass")] | length')" -eq 1 ]
}
