#!/usr/bin/env bats
# Findings on real process trees: the parent is the process that forks the
# workers, not a wrapper in front of it; a cost is counted once.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

@test "findings: a wrapper (timeout) is not the parent; nothing is repeated by one process" {
	env -u TZ "$CT" run --json -o "$T/r.json" -- timeout 20 \
		"$TOOLS/tzloop" -n 3000 -c 0 >/dev/null 2>"$T/err"
	wl=$(sed -n 's/^WORKLOAD pid=\([0-9]*\) .*/\1/p' "$T/err")
	[ -n "$wl" ]
	[ "$(jqr "$T/r.json" '.trees | length')" -eq 1 ]
	[ "$(jqr "$T/r.json" '.trees[0].forker')" -eq "$wl" ]
	[ "$(jqr "$T/r.json" '.trees[0].wrappers')" -eq 1 ]
	[ "$(jqr "$T/r.json" '.trees[0].children.processes')" -eq 0 ]
	jq -e '[.findings[].id] | index("tz-repeated-access")' "$T/r.json"
	jq -e '[.findings[].id] | index("tz-children-repeat") == null' "$T/r.json"
}

@test "findings: wrapped forking workload: the forker is the parent, the children's cost is counted once" {
	env -u TZ "$CT" run --json -o "$T/r.json" -- timeout 20 \
		"$TOOLS/tzloop" -n 2000 -c 2 >/dev/null 2>"$T/err"
	parent=$(jqr "$T/r.json" '.processes[] | select(.comm == "tzloop" and .depth == 1) | .pid')
	[ "$(jqr "$T/r.json" '.trees[0].forker')" -eq "$parent" ]
	[ "$(jqr "$T/r.json" '.trees[0].children.processes')" -eq 2 ]
	[ "$(jqr "$T/r.json" '.trees[0].parent.tz_accesses')" -eq \
	  "$(jqr "$T/r.json" ".processes[] | select(.pid == $parent) | .tz.accesses")" ]
	jq -e --argjson p "$parent" '.findings[] | select(.id == "tz-children-repeat") |
		(.message | endswith("in the parent pid \($p)")) and .cost == null and
		.see == "tz-repeated-access"' "$T/r.json"
	# CPU time per role: the kernel's figures of the processes it holds.
	[ "$(jqr "$T/r.json" '.trees[0].children.cpu_processes')" -eq 2 ]
	[ "$(jqr "$T/r.json" '.trees[0].children.cpu_ns')" -eq \
	  "$(jqr "$T/r.json" "[.processes[] | select(.ppid == $parent) | .cpu_ns] | add")" ]
	[ "$(jqr "$T/r.json" '.trees[0].parent.cpu_ns')" -eq \
	  "$(jqr "$T/r.json" ".processes[] | select(.pid == $parent) | .cpu_ns")" ]
	[ "$(jqr "$T/r.json" '.trees[0].parent.cpu_ns')" -gt 0 ]
	# Its severity is the one of the finding whose cost it explains.
	[ "$(jqr "$T/r.json" '[.findings[] | select(.id | startswith("tz-")) | .severity] | unique | length')" -eq 1 ]
	# The text names the real parent and the wrapper it skipped.
	env -u TZ "$CT" run -- timeout 20 "$TOOLS/tzloop" -n 200 -c 2 >/dev/null 2>"$T/text"
	grep -Eq '^  tree of pid [0-9]+ \(timeout\): the parent is pid [0-9]+ \(tzloop\), below 1 wrapper' "$T/text"
	grep -q '^    cost: counted under tz-repeated-access$' "$T/text"
}

@test "findings: severity is info for a cost far below a percent of a CPU" {
	# Twenty stats in a run of a second: microseconds of kernel time.
	env -u TZ "$CT" run --json -o "$T/r.json" -- sh -c \
		"'$TOOLS/tzloop' -m localtime -n 20 -c 0; sleep 1" >/dev/null 2>&1
	jq -e '.findings[] | select(.id == "tz-repeated-access") |
		.severity == "info" and .cost.cpu_percent < 1' "$T/r.json"
}
