"""A multiprocessing pool whose workers convert local times, as servers do.

    python3 pool.py N WORKERS

Each task makes exactly N time.mktime(time.localtime()) calls and says
which worker ran it: the oracle --lang's counts are checked against (a
worker may run several tasks).
"""
import multiprocessing
import os
import sys
import time


def task(n):
    for _ in range(n):
        time.mktime(time.localtime())
    say(f"WORKLOAD role=worker pid={os.getpid()} "
        f"mktime_calls={n}")
    return n


def say(line):
    """One write(2) a line: print() to stderr writes the text and its
    newline apart, and forked workers' lines ran together."""
    os.write(2, (line + "\n").encode())


if __name__ == "__main__":
    n = int(sys.argv[1])
    workers = int(sys.argv[2])
    with multiprocessing.Pool(workers) as pool:
        done = pool.map(task, [n] * workers)
    print(f"WORKLOAD role=parent mktime_calls={sum(done)}", file=sys.stderr)
