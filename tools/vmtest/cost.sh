#!/bin/sh
# The cost of each attach mode to syscalls clocktrace does not count, from
# the last make vmtest (build/vmtest/results): per kernel, the least wall
# time per getppid of an untraced loop with no tracer, with clocktrace on
# the raw syscall tracepoints, and on fentry (tests/vm/guest-tests.sh,
# unrelated_cost), how often clocktrace's syscall programs ran during the
# 400,000 getppids in each mode (bpf_stats), and what `clocktrace run --
# true` took in each mode.
# The guests run under TCG, which emulates every instruction: absolute
# nanoseconds are many times a real machine's; the ratios carry.
#   cost.sh        prints the table (make vmtest-cost)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
results=${VMTEST_DIR:-$top/build/vmtest}/results

ls "$results"/*.info > /dev/null 2>&1 || {
	echo "cost.sh: no results in $results: run make vmtest first" >&2
	exit 1
}

echo "getppid in an untraced process while clocktrace traces another (qemu TCG: emulated ns)"
printf '%-30s %-7s %8s %16s %16s %16s %16s\n' KERNEL ARCH "BARE ns" "TRACEPOINT ns" \
	"FENTRY ns" "PROG RUNS TP/FE" "RUN true TP/FE"
for info in "$results"/*.info; do
	awk -v id="$(basename "$info" .info)" '
	$1 == "release" { rel = $2 }
	$1 == "machine" { mach = $2 }
	$1 == "run_true_ms" { run[$2] = $3 }
	$1 == "unrelated_runs" {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			runs[kv[1]] = kv[2]
		}
	}
	$1 == "unrelated_cost" {
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] = kv[2]
		}
		have = 1
	}
	END {
		if (!have) {
			printf "%-30s %-7s %s\n", rel, mach, "(not measured)"
			exit
		}
		b = v["bare_ns"]; t = v["tracepoint_ns"]; f = v["fentry_ns"]
		printf "%-30s %-7s %8.1f %7.1f (%+5.1f%%) %7.1f (%+5.1f%%) %9s/%-6s %9s/%s ms\n",
			rel, mach, b, t, (t / b - 1) * 100, f, (f / b - 1) * 100,
			runs["tracepoint"], runs["fentry"],
			run["tracepoint"], run["fentry"]
	}' "$info"
done
