# Shared by the bats files.  Tests run as root against the real binary.
ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
CT="$ROOT/clocktrace"
CT=${CLOCKTRACE_BIN:-$CT}
TOOLS="$ROOT/tools"

# Sum of field NAME over the WORKLOAD lines in FILE (the workloads' own counts).
workload_sum() {
	grep -o "^WORKLOAD .*" "$1" | grep -o " $2=[0-9-]*" | cut -d= -f2 |
		awk '{s += $1} END {print s + 0}'
}

# Our BPF programs still in the kernel (should be none after any run).
our_progs() {
	bpftool prog show 2>/dev/null | grep -cE 'name (sys_enter|sys_exit|sched_fork|sched_exec|sched_exit|libc_entry|libc_return|libc_count) ' || true
}

# jq over the JSON report in FILE.
jqr() {
	jq -r "$2" "$1"
}
