#!/usr/bin/env bats

bats_require_minimum_version 1.5.0
# --attach auto|tracepoint|fentry.  This kernel may refuse fentry (the
# reference machine's does): fentry mode itself is proved exact in the
# kernel matrix (tests/vm/guest-tests.sh, run_forktree_fentry and the
# others), where Debian's kernels allow it.

load helpers

setup() {
	T=$(mktemp -d)
}

teardown() {
	rm -rf "$T"
}

# What doctor says --attach auto takes on this kernel: fentry or tracepoint.
doctor_pick() {
	"$CT" doctor --json | jq -r '.checks[] | select(.check == "attach") |
		.detail | split(" ")[0]'
}

@test "attach: auto takes what doctor says, names it in JSON and text, counts exactly" {
	pick=$(doctor_pick)
	[[ "$pick" == fentry || "$pick" == tracepoint ]]
	# The reference kernel refuses fentry: auto must then be the tracepoints.
	if ! "$CT" doctor | grep -q '^ok    fentry: yes'; then
		[ "$pick" = tracepoint ]
	fi
	"$CT" run --json -o "$T/r.json" -- "$TOOLS/forktree" -D 2 -W 3 -k 7 \
		-o 2 -s CLOCK_PROCESS_CPUTIME_ID:11 2>"$T/err"
	forktree_exact
	[ "$(jqr "$T/r.json" '.kernel.attach')" = "$pick" ]
	"$CT" run -- "$TOOLS/forktree" -D 0 -k 1 2>"$T/text"
	grep -q "; syscalls seen by $pick\$" "$T/text"
	[ "$(our_progs)" -eq 0 ]
}

@test "attach: --attach tracepoint counts exactly and says so" {
	"$CT" run --attach tracepoint --json -o "$T/r.json" -- "$TOOLS/forktree" \
		-D 2 -W 3 -k 7 -o 2 -s CLOCK_PROCESS_CPUTIME_ID:11 2>"$T/err"
	forktree_exact
	[ "$(jqr "$T/r.json" '.kernel.attach')" = tracepoint ]
}

@test "attach: --attach fentry where the kernel refuses it: one line, exit 125, nothing loaded" {
	run --separate-stderr env CLOCKTRACE_NO_FENTRY=1 "$CT" run --attach fentry \
		-o "$T/r.json" -- "$TOOLS/forktree" -D 0 -k 1
	[ "$status" -eq 125 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$stderr" = "clocktrace: --attach fentry: this kernel refuses it (fentry turned off by CLOCKTRACE_NO_FENTRY); use --attach auto or tracepoint" ]
	# PROG never ran: no WORKLOAD line, no report.
	[ ! -e "$T/r.json" ]
	[ "$(our_progs)" -eq 0 ]
}

@test "attach: --attach fentry on this kernel: exact where doctor says fentry, one line and 125 where not" {
	run --separate-stderr "$CT" run --attach fentry --json -o "$T/r.json" -- \
		"$TOOLS/forktree" -D 2 -W 3 -k 7 -o 2 -s CLOCK_PROCESS_CPUTIME_ID:11
	if [ "$(doctor_pick)" = fentry ]; then
		[ "$status" -eq 0 ]
		echo "$stderr" > "$T/err"
		forktree_exact
		[ "$(jqr "$T/r.json" '.kernel.attach')" = fentry ]
	else
		[ "$status" -eq 125 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "clocktrace: --attach fentry: this kernel refuses it (fentry on __"*"_sys_clock_gettime: "*"); use --attach auto or tracepoint" ]]
	fi
	[ "$(our_progs)" -eq 0 ]
}

@test "attach: auto with fentry refused is the tracepoints, and doctor says why" {
	CLOCKTRACE_NO_FENTRY=1 "$CT" run --json -o "$T/r.json" -- "$TOOLS/forktree" \
		-D 2 -W 3 -k 7 -o 2 -s CLOCK_PROCESS_CPUTIME_ID:11 2>"$T/err"
	forktree_exact
	[ "$(jqr "$T/r.json" '.kernel.attach')" = tracepoint ]
	run env CLOCKTRACE_NO_FENTRY=1 "$CT" doctor
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok    attach: tracepoint (fentry turned off by CLOCKTRACE_NO_FENTRY): "* ]]
}

@test "attach: a bad --attach is one line and 125 for run, attach and top" {
	for cmd in "run --attach kprobe -- true" "attach --attach kprobe -p 1" \
		   "top --attach kprobe -n 1"; do
		run --separate-stderr "$CT" $cmd
		[ "$status" -eq 125 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == *"--attach is auto, tracepoint or fentry 'kprobe'"* ]]
	done
	"$CT" top --attach tracepoint --json -n 1 -i 0.2 > "$T/top.json"
	jq -e '.processes | type == "array"' "$T/top.json"
	jq -e '.attach == "tracepoint"' "$T/top.json"
}
