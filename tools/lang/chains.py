"""One line reached through CHAINS different chains of calls, N times
each, in one process: more chains than a small --max-procs keeps.

    python3 chains.py N CHAINS
"""
import sys
import time


def inner():
    time.mktime(time.localtime())


def make_caller(i):
    src = f"def caller_{i}(n):\n    for _ in range(n):\n        inner()\n"
    scope = {"inner": inner}
    exec(compile(src, f"chain_{i}.py", "exec"), scope)
    return scope[f"caller_{i}"]


if __name__ == "__main__":
    n, chains = int(sys.argv[1]), int(sys.argv[2])
    for i in range(chains):
        make_caller(i)(n)
    print(f"WORKLOAD role=main inner_calls={n * chains}", file=sys.stderr)
