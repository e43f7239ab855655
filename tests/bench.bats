#!/usr/bin/env bats
# clocktrace bench: structure and sanity of the table on short runs.
load helpers
CT=${CLOCKTRACE_BIN:-$CT}

setup_file() {
	local ct=${CLOCKTRACE_BIN:-$BATS_TEST_DIRNAME/../clocktrace}
	"$ct" bench --duration 0.02 --json -o "$BATS_FILE_TMPDIR/bench.json"
}

@test "bench --json: every row has the contract's fields with valid values" {
	f=$BATS_FILE_TMPDIR/bench.json
	run jq -e '.clocksource | type == "string"' "$f"
	[ "$status" -eq 0 ]
	# 9 clocks and time() and gettimeofday() both ways, 4 tz calls x 2 TZ.
	[ "$(jqr "$f" '.rows | length')" -eq 30 ]
	run jq -e '[.rows[] |
		(.name | type == "string") and
		(.clock == null or (.clock | startswith("CLOCK_"))) and
		(.path | IN("vdso", "syscall", "libc")) and
		(.tz | IN(null, "unset", ":/etc/localtime")) and
		(.process | IN("parent", "child")) and
		(.ns_per_call > 0) and (.calls > 0) and (.elapsed_ns > 0) and
		(.entered_kernel | IN(true, false, null))] | all' "$f"
	[ "$status" -eq 0 ]
	# Each row ran at least the asked duration (0.02 s).
	run jq -e '[.rows[].elapsed_ns >= 20000000] | all' "$f"
	[ "$status" -eq 0 ]
	run jq -e '[.rows[] | select(.path == "syscall") | .entered_kernel] | all' "$f"
	[ "$status" -eq 0 ]
}

@test "bench: sorted by cost, costliest first" {
	run jq -e '[.rows[].ns_per_call] as $c | $c == ($c | sort | reverse)' \
		"$BATS_FILE_TMPDIR/bench.json"
	[ "$status" -eq 0 ]
}

@test "bench: every clock both ways, CPU clocks never by the vDSO" {
	f=$BATS_FILE_TMPDIR/bench.json
	for c in REALTIME MONOTONIC MONOTONIC_RAW REALTIME_COARSE \
		 MONOTONIC_COARSE BOOTTIME TAI PROCESS_CPUTIME_ID THREAD_CPUTIME_ID; do
		[ "$(jqr "$f" "[.rows[] | select(.clock == \"CLOCK_$c\")] | length")" -eq 2 ]
	done
	[ "$(jqr "$f" '[.rows[] | select(.clock == "CLOCK_PROCESS_CPUTIME_ID" and .path != "syscall") | .path] | .[0]')" = libc ]
	[ "$(jqr "$f" '[.rows[] | select(.name == "time" and .path != "syscall")] | .[0].entered_kernel')" = false ]
}

# Which costs more is a timing, measured by make bench
# (tests/perf/perf.bats); here, what enters the kernel.
@test "bench: localtime() with TZ unset enters the kernel; a saving is reported for it" {
	f=$BATS_FILE_TMPDIR/bench.json
	[ "$(jqr "$f" '.rows[] | select(.name == "localtime" and .tz == "unset") | .entered_kernel')" = true ]
	run jq -e '[.verdict.tz[] | select(.name == "localtime") | .saving_ns | type] == ["number"]' "$f"
	[ "$status" -eq 0 ]
}

@test "bench: the clocksource is the one sysfs reports" {
	[ "$(jqr "$BATS_FILE_TMPDIR/bench.json" .clocksource)" = \
	  "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" ]
}

@test "bench --clock restricts the clock rows" {
	run "$CT" bench --duration 0.01 --json --clock monotonic,realtime_coarse
	[ "$status" -eq 0 ]
	clocks=$(echo "$output" | jq -r '[.rows[].clock | select(. != null)] | unique | join(",")')
	[ "$clocks" = "CLOCK_MONOTONIC,CLOCK_REALTIME_COARSE" ]
}

@test "bench --clock with an unknown clock: one line, exit 125" {
	run "$CT" bench --clock monotonic,bogus
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"unknown clock 'bogus'"* ]]
}

@test "bench --fork adds child rows and the child/parent ratio" {
	run "$CT" bench --duration 0.01 --json --fork --clock monotonic
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq '[.rows[] | select(.process == "child")] | length')" -eq 14 ]
	echo "$output" | jq -e '.verdict.child_parent_ratio > 0'
}

@test "bench text: table and verdict" {
	run "$CT" bench --duration 0.01 --clock monotonic
	[ "$status" -eq 0 ]
	[[ "$output" == *"ns/call"* ]]
	[[ "$output" == *"Verdict:"* ]]
	[[ "$output" == *"CLOCK_MONOTONIC"*"vDSO"* ]]
	[[ "$output" == *"saves"*"localtime"* || "$output" == *"localtime"*"saves"* ]]
}

@test "bench -o refuses a symbolic link" {
	ln -sf /dev/null "$BATS_TEST_TMPDIR/link"
	run "$CT" bench --duration 0.01 -o "$BATS_TEST_TMPDIR/link"
	[ "$status" -eq 125 ]
	[[ "$output" == *"symbolic link"* ]]
}
