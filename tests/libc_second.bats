#!/usr/bin/env bats
# --libc with a C library other than the system's (issue 13, item 10):
# dynamic musl, a program that switches C library at exec, and a second
# C library loaded with dlmopen().  Counts are exact, or the report says
# per process that they may not be (libc_complete: false).
load helpers

setup() {
	tmp=$(mktemp -d)
}

teardown() {
	rm -rf "$tmp"
}

libc_sum() {
	jq -r "[.processes[].libc.\"$1\".$2 // 0] | add // 0" "$tmp/out.json"
}

@test "dynamic musl PROG: its loader is probed before it runs, every call counted" {
	"$CT" run --libc --json -o "$tmp/out.json" -- "$TOOLS/tzloop-musl-dyn" \
		-m localtime -n 20000 -c 2 2>"$tmp/err" >/dev/null
	[ "$(workload_sum "$tmp/err" localtime_calls)" -eq 60000 ]
	[ "$(libc_sum localtime count)" -eq 60000 ]
	[ "$(jqr "$tmp/out.json" '[.processes[].libc_complete] | all')" = true ]
	[ "$(jqr "$tmp/out.json" '[.processes[].libc_path | test("musl")] | all')" = true ]
	[ "$(jqr "$tmp/out.json" .lost_events)" -eq 0 ]
}

@test "a glibc shell execs a musl program: counts stated as incomplete for it" {
	"$CT" run --libc --json -o "$tmp/out.json" -- sh -c \
		"exec '$TOOLS/tzloop-musl-dyn' -m localtime -n 20000 -c 0" \
		2>"$tmp/err" >/dev/null
	[ "$(workload_sum "$tmp/err" localtime_calls)" -eq 20000 ]
	# Probed when its exec was seen: what it did before is not counted,
	# and the report says so instead of presenting a partial count.
	[ "$(jqr "$tmp/out.json" '.processes[0].libc_complete')" = false ]
	[ "$(libc_sum localtime count)" -le 20000 ]
	[ "$(jqr "$tmp/out.json" '.processes[0].libc_path')" != null ]
}

@test "a second C library loaded with dlmopen() is probed too" {
	cp /lib/x86_64-linux-gnu/libc.so.6 "$tmp/libc.so.6"
	env -u TZ "$CT" run --libc --json -o "$tmp/out.json" -- \
		"$TOOLS/hostile" dlmopen "$tmp/libc.so.6" 1000 2>"$tmp/err" >/dev/null
	[ "$(workload_sum "$tmp/err" localtime_calls)" -eq 1000 ]
	[ "$(libc_sum localtime count)" -eq 1000 ]
	[ "$(libc_sum localtime kernel.tz_accesses)" -eq 1000 ]
	# Its own C library stays the system's; the copy came later.
	[ "$(jqr "$tmp/out.json" '.processes[0].libc_path')" = \
		"$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" ]
	[ "$(jqr "$tmp/out.json" '.processes[0].libc_complete')" = false ]
	"$CT" run --libc -o "$tmp/out.txt" -- \
		"$TOOLS/hostile" dlmopen "$tmp/libc.so.6" 10 2>/dev/null
	grep -q '^  counts incomplete (a library was probed after they started) for pid [0-9]' "$tmp/out.txt"
}
