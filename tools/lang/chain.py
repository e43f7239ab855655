"""Forked workers converting local times through a known chain of calls,
the oracle for --lang-depth (nothing beyond the core library).

    python3 chain.py N WORKERS

Each worker calls time.mktime() exactly N times through
outer() -> middle() -> inner() and N times through direct() -> inner(),
and says so.
"""
import os
import sys
import time


def inner():
    time.mktime(time.localtime())


def middle():
    inner()


def outer(n):
    for _ in range(n):
        middle()


def direct(n):
    for _ in range(n):
        inner()


def worker(n):
    outer(n)
    direct(n)
    say(f"WORKLOAD role=worker pid={os.getpid()} chain_calls={n} "
        f"direct_calls={n}")


def say(line):
    """One write(2) a line: print() to stderr writes the text and its
    newline apart, and forked workers' lines ran together."""
    os.write(2, (line + "\n").encode())


if __name__ == "__main__":
    n = int(sys.argv[1])
    kids = []
    for _ in range(int(sys.argv[2])):
        pid = os.fork()
        if pid == 0:
            worker(n)
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)
