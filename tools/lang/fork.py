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
    print(f"WORKLOAD role=worker pid={os.getpid()} mktime_calls={n}",
          file=sys.stderr)


def worker(n, wait):
    if wait:
        print(f"WORKLOAD role=ready pid={os.getpid()}", file=sys.stderr,
              flush=True)
        signal.sigwait([signal.SIGUSR1])
    work(n)


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
