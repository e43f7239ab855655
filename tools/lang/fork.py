"""Forked workers converting local times, with nothing beyond the core
library (a Debian python3.X-minimal root has no multiprocessing).

    python3 fork.py N WORKERS [wait]

Each worker makes exactly N time.mktime(time.localtime()) calls and says
so; with wait, each first says it is ready and waits for SIGUSR1 (for a
tracer attached to running workers).
"""
import os
import signal
import sys
import time


def work(n):
    for _ in range(n):
        time.mktime(time.localtime())
    say(f"WORKLOAD role=worker pid={os.getpid()} "
        f"mktime_calls={n}")


def worker(n, wait):
    if wait:
        say(f"WORKLOAD role=ready "
            f"pid={os.getpid()}")
        signal.sigwait([signal.SIGUSR1])
    work(n)


def say(line):
    """One write(2) a line: print() to stderr writes the text and its
    newline apart, and forked workers' lines ran together."""
    os.write(2, (line + "\n").encode())


if __name__ == "__main__":
    n = int(sys.argv[1])
    wait = sys.argv[3:] == ["wait"]
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    kids = []
    for _ in range(int(sys.argv[2])):
        pid = os.fork()
        if pid == 0:
            worker(n, wait)
            os._exit(0)
        kids.append(pid)
    for pid in kids:
        os.waitpid(pid, 0)
