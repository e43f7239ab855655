"""Threads that open a named zone while another thread holds the GIL.

    python3 zone_threads.py N THREADS [convert|idle]

Each of THREADS threads loads Europe/Paris from its file N times
(ZoneInfo.no_cache: a stat and an open, the GIL released in each) while
the main thread converts local times (or, idle, only waits): the oracle
for --lang's lines of threads that do not hold the GIL.
"""
import sys
import threading
import time
import zoneinfo


def load(n):
    for _ in range(n):
        zoneinfo.ZoneInfo.no_cache("Europe/Paris")


def convert(stop):
    calls = 0
    while True:  # once at least: the loads may be done before it starts
        time.mktime(time.localtime())
        calls += 1
        if stop.is_set():
            return calls


def idle(stop):
    stop.wait()
    return 0


if __name__ == "__main__":
    n = int(sys.argv[1])
    threads = [threading.Thread(target=load, args=(n,))
               for _ in range(int(sys.argv[2]))]
    stop = threading.Event()
    for t in threads:
        t.start()
    timer = threading.Thread(target=lambda: ([t.join() for t in threads],
                                             stop.set()))
    timer.start()
    main = idle if sys.argv[3:] == ["idle"] else convert
    calls = main(stop)
    timer.join()
    print(f"WORKLOAD loads={n * len(threads)} mktime_calls={calls}",
          file=sys.stderr)
