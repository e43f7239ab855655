#!/usr/bin/env bats

bats_require_minimum_version 1.5.0
# clocktrace run --compare: PROG as it is against PROG with the fix.

load helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

@test "compare: tzloop, exact tz counts per role, the fix removes >= 99%" {
	env -u TZ "$CT" run --compare --repeat 2 --json -o "$T/c.json" -- \
		"$TOOLS/tzloop" -q -n 10000 -c 2 >"$T/out" 2>"$T/err"
	c=".compare"
	# tzloop: tzset once, then tzset + localtime per loop, in 3 processes.
	[ "$(jqr "$T/c.json" "$c.before.tz_accesses")" -eq 60001 ]
	[ "$(jqr "$T/c.json" "$c.roles[0].role")" = parent ]
	[ "$(jqr "$T/c.json" "$c.roles[0].before.tz_accesses")" -eq 20001 ]
	[ "$(jqr "$T/c.json" "$c.roles[1].before.tz_accesses")" -eq 40000 ]
	[ "$(jqr "$T/c.json" "$c.roles[1].before.processes")" -eq 2 ]
	after=$(jqr "$T/c.json" "$c.after.tz_accesses")
	[ "$after" -le 600 ]
	[ "$(jqr "$T/c.json" "$c.fix.TZ")" = ":/etc/localtime" ]
	[ "$(jqr "$T/c.json" "$c.repeat")" -eq 2 ]
	# One counted run of each variant, then 2 timed ones of each, alternating.
	[ "$(jqr "$T/c.json" "[$c.runs[].variant] | join(\",\")")" = \
		"before,after,before,after,before,after" ]
	[ "$(jqr "$T/c.json" "[$c.runs[] | select(.counted)] | length")" -eq 2 ]
	[ "$(jq -c "[$c.runs[] | select(.counted | not) | .tz_accesses] | unique" \
		"$T/c.json")" = '[null]' ]
	# The speed-up is the median wall before over after (that the fix is
	# faster is a timing: make bench, tests/perf/perf.bats).
	run jq -e "$c | (.speedup - (.before.wall_ns / .after.wall_ns) | fabs) < 0.01
		and .before.wall_ns_min <= .before.wall_ns
		and .before.wall_ns <= .before.wall_ns_max" "$T/c.json"
	[ "$status" -eq 0 ]
	# The report itself is the counted run before the fix.
	[ "$(jqr "$T/c.json" '[.processes[].tz.accesses] | add')" -eq 60001 ]
	[ "$(jqr "$T/c.json" '.findings[0].id')" = tz-repeated-access ]
	# PROG's stdout is read and hashed, not shown: it prints its times.
	[ ! -s "$T/out" ]
	[ "$(jqr "$T/c.json" "$c.stdout_varies")" = true ]
	[ "$(jqr "$T/c.json" "$c.stdout_differs")" = false ]
	[ "$(our_progs)" -eq 0 ]
}

@test "compare: CPU time per run agrees with wait4's rusage of PROG" {
	env -u TZ "$CT" run --compare --repeat 1 --json -o "$T/c.json" -- \
		"$TOOLS/tzloop" -q -n 20000 -c 1 2>/dev/null
	# The kernel's figure at exit misses only the exit itself.  Both are
	# CPU time of the same process: load lengthens its wall time, not its
	# CPU, so the 10% + 10 ms margin holds on a machine under load 20.
	run jq -e '[.compare.runs[] | (.cpu_ns - .rusage_cpu_ns | fabs) <
		(.rusage_cpu_ns * 0.1 + 10000000)] | all' "$T/c.json"
	[ "$status" -eq 0 ]
	run jq -e '[.compare.runs[] | .cpu_ns > 0] | all' "$T/c.json"
	[ "$status" -eq 0 ]
	# Per role: the parent and its child sum to the whole.
	run jq -e '.compare | .before.cpu_ns > 0 and .roles[1].before.cpu_ns > 0' \
		"$T/c.json"
	[ "$status" -eq 0 ]
}

@test "compare: text report has the verdict and both variants' counts" {
	env -u TZ "$CT" run --compare --repeat 1 -- "$TOOLS/tzloop" -q -n 2000 -c 1 \
		>/dev/null 2>"$T/err"
	grep -q '^COMPARE (PROG as it is, then with TZ=:/etc/localtime; 1 timed run of each' "$T/err"
	grep -Eq '^  verdict: TZ=:/etc/localtime: .*, 8,001 tz accesses → 1$' "$T/err"
	grep -Eq '^  children +4,000 +0 +0 +0$' "$T/err"
	! grep -q 'warning:' "$T/err"
}

@test "compare: a stdout that depends on the fix is a warning, not a failure" {
	run env -u TZ "$CT" run --compare --repeat 1 -- sh -c 'echo "TZ=$TZ"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: PROG's standard output differs between the two variants"* ]]
	[[ "$output" != *"exit status differs"* ]]
}

@test "compare: a different exit status is a warning; the status is PROG's as it is" {
	run env -u TZ "$CT" run --compare --repeat 1 -- sh -c '[ -n "$TZ" ] && exit 3; exit 0'
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: PROG's exit status differs between the two variants"* ]]
	run env -u TZ "$CT" run --compare --repeat 1 -- sh -c '[ -n "$TZ" ] && exit 0; exit 4'
	[ "$status" -eq 4 ]
	[[ "$output" == *"warning: PROG's exit status differs"* ]]
}

@test "compare: --fix sets any variable, in every child too" {
	"$CT" run --compare --repeat 1 --fix CT_FIX=yes --fix TZ=UTC --json \
		-o "$T/c.json" -- sh -c 'sh -c "echo \$CT_FIX \$TZ"' 2>/dev/null
	[ "$(jqr "$T/c.json" '.compare.fix.CT_FIX')" = yes ]
	[ "$(jqr "$T/c.json" '.compare.fix.TZ')" = UTC ]
	[ "$(jqr "$T/c.json" '.compare.stdout_differs')" = true ]
	[ "$(jqr "$T/c.json" '.compare.roles[1].before.processes')" -eq 1 ]
}

@test "compare: a fix already in the environment is said, and changes nothing" {
	TZ=:/etc/localtime "$CT" run --compare --repeat 1 --json -o "$T/c.json" \
		-- "$TOOLS/tzloop" -q -n 2000 -c 1 2>/dev/null
	[ "$(jqr "$T/c.json" '.compare.preset.TZ')" = ":/etc/localtime" ]
	[ "$(jqr "$T/c.json" '.compare.before.tz_accesses')" -eq 1 ]
	[ "$(jqr "$T/c.json" '.compare.after.tz_accesses')" -eq 1 ]
	run env TZ=UTC "$CT" run --compare --repeat 1 -- true
	[[ "$output" == *"note: PROG as it is already had TZ=UTC in its environment"* ]]
	run env -u TZ "$CT" run --compare --repeat 1 -- true
	[[ "$output" != *"already had"* ]]
}

@test "compare: bad usage is one line and 125, nothing run" {
	for args in "--fix TZ=UTC" "--repeat 2" "--compare --repeat 0" \
		"--compare --repeat 21" "--compare --fix =x" "--compare --fix 1A=x" \
		"--compare --fix NOEQUALS" "--compare --libc" "--compare --lang" "--compare -i 1" \
		"--compare --format openmetrics" "--compare --format folded"; do
		run "$CT" run $args -- touch "$T/ran"
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
		[ ! -e "$T/ran" ]
	done
}

@test "compare: PROG not found is 127 with no report" {
	run -127 "$CT" run --compare -- /nonexistent/prog
	[ "$status" -eq 127 ]
	[[ "$output" != *COMPARE* ]]
	[ "$(our_progs)" -eq 0 ]
}

@test "compare: SIGKILL of clocktrace leaves no held PROG and no BPF program" {
	# An argument of this test's own (its pid): held copies of clocktrace
	# (forked, not yet PROG) are found by it, no other suite's.
	held="run --compare --repeat 5 -- sleep 0.3$$"
	"$CT" $held 2>/dev/null &
	ct=$!
	sleep 1
	kill -9 "$ct"
	wait "$ct" || true
	# Held copies of clocktrace die with it; a released PROG is the user's.
	for _ in $(seq 50); do
		pgrep -fx "$CT $held" >/dev/null || break
		sleep 0.1
	done
	run -1 pgrep -fx "$CT $held"
	[ "$(our_progs)" -eq 0 ]
}
