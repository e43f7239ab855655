"""Pure-Python lines, or clock syscalls, timed by the workload itself.

    python3 spin.py lines N     N iterations of a loop of plain Python lines
    python3 spin.py clocks N    N time.process_time() calls (one syscall each)

Prints the loop's own duration, wall and CPU (a trap's kernel time is the
process's), so a tracer's start-up is not in it.
"""
import sys
import time


def lines(n):
    total = 0
    for i in range(n):
        total += i
        total ^= 1
    return total


def clocks(n):
    for _ in range(n):
        time.process_time()


if __name__ == "__main__":
    what, n = sys.argv[1], int(sys.argv[2])
    start = time.perf_counter_ns()
    cpu_start = time.process_time_ns()
    {"lines": lines, "clocks": clocks}[what](n)
    cpu = time.process_time_ns() - cpu_start
    ns = time.perf_counter_ns() - start
    print(f"WORKLOAD what={what} n={n} ns={ns} ns_per={ns / n:.1f} "
          f"cpu_ns={cpu} cpu_ns_per={cpu / n:.1f}", file=sys.stderr)
