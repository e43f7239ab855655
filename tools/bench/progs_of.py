#!/usr/bin/env python3
# progs_of.py PID: "name run_time_ns run_cnt" of each BPF program process
# PID holds (its fdinfo; run_cnt counts every process that reached the
# program, traced or not).  Needs kernel.bpf_stats_enabled=1.
import glob, json, subprocess, sys
ids = {}
for f in glob.glob("/proc/%s/fdinfo/*" % sys.argv[1]):
    try:
        d = dict(l.split(":", 1) for l in open(f) if ":" in l)
    except OSError:
        continue
    if "prog_id" in d and "run_time_ns" in d:
        ids[int(d["prog_id"])] = (int(d["run_time_ns"]), int(d["run_cnt"]))
names = {}
try:
    for p in json.loads(subprocess.run(["bpftool", "prog", "show", "--json"],
                        capture_output=True, text=True).stdout):
        names[p["id"]] = p.get("name", "?")
except Exception:
    pass
for i, (rt, cnt) in sorted(ids.items()):
    print(names.get(i, "id%d" % i), rt, cnt)
