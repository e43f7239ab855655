#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The process-event section of make bench: tools/bench/procs.sh's runs in,
build/bench/procs.{json,txt} out (issue 14, target 1)."""
import argparse, json, os, statistics

ap = argparse.ArgumentParser()
for a in ("tmp", "out"):
    ap.add_argument("--" + a, required=True)
for a in ("procs-n", "prefork-n", "prefork-k", "runs", "quick"):
    ap.add_argument("--" + a, type=int, required=True)
A = ap.parse_args()
T = A.tmp
NPROC = {"loop": A.procs_n, "prefork": A.prefork_n}
TOOLS = ("untraced", "floor", "clocktrace", "bpftrace")
PROC_PROGS = ("sched_fork", "sched_exec", "sched_exec_bounded", "sched_exit")

def med(xs):
    return statistics.median(xs) if xs else None

# ---- timed runs: workload tool round wall_ns user_us sys_us rss status --------
runs = {}
for line in open(os.path.join(T, "runs.tsv")):
    f = line.split()
    if len(f) < 8 or f[2] == "0":
        continue
    w, t, r = f[0], f[1], int(f[2])
    wall, cpu = int(f[3]) / 1e9, (int(f[4]) + int(f[5])) / 1e6
    runs.setdefault((w, t), {})[r] = (wall, cpu, int(f[7]))

def cost(w, t, i):
    """Median over rounds of what t adds to w (wall i=0, CPU i=1), in the
    same round as the untraced run: drift cancels out."""
    a, u = runs.get((w, t), {}), runs.get((w, "untraced"), {})
    return med([a[r][i] - u[r][i] for r in a if r in u and not a[r][2]])

def cost_no_startup(w, t, i):
    c, s = cost(w, t, i), cost("startup", t, i)
    return None if c is None or s is None else c - s

# ---- exactness of clocktrace's counts ----------------------------------------
def exact(w, r):
    try:
        j = json.load(open(os.path.join(T, "%s.clocktrace.%d.out" % (w, r))))
    except Exception:
        return False
    ps = j.get("processes", [])
    stats = sum(p.get("tz", {}).get("accesses", 0) for p in ps)
    exited = sum(1 for p in ps if p.get("exit_ns") is not None)
    want_stats = 3 * NPROC[w] if w == "prefork" else 0
    return (j.get("lost_events") == 0 and len(ps) == NPROC[w] + 1 and
            exited == NPROC[w] + 1 and stats == want_stats)

# ---- bpf_stats: workload tool round name run_time_ns run_cnt -----------------
bs = {}
if os.path.exists(os.path.join(T, "bpfstats.tsv")):
    for line in open(os.path.join(T, "bpfstats.tsv")):
        f = line.split()
        if len(f) == 6:
            d = bs.setdefault((f[0], f[1]), {}).setdefault(f[3], [])
            d.append((int(f[4]), int(f[5])))

def per_run(w, t, name):
    v = bs.get((w, t), {}).get(name)
    return med([rt / c for rt, c in v if c]) if v else None

def per_proc(w, t, names):
    """Run time of these programs per traced process: every run on the
    machine, traced or not, charged to the traced ones."""
    d = bs.get((w, t), {})
    tot = [sum(d[n][i][0] for n in names if n in d and len(d[n]) > i)
           for i in range(max((len(v) for v in d.values()), default=0))]
    return med([x / NPROC[w] for x in tot]) if tot else None

R = {"workloads": {}, "params": vars(A)}
L = ["PROCESS EVENTS (issue 14): loop = %d x /bin/true from a shell loop; prefork = %d workers, %d alive at once (fork+exec of forktree, 3 tz stats each); medians of %d interleaved rounds"
     % (A.procs_n, A.prefork_n, A.prefork_k, A.runs),
     "| workload | tool | wall s | CPU s | added wall us/proc | added CPU us/proc | same, start-up excluded (wall, CPU) | x floor's added (wall, CPU; start-up excl.) | counts exact |",
     "|---|---|---|---|---|---|---|---|---|"]
TG = []
def f1(x, fmt="%.1f"):
    return "-" if x is None else fmt % x

for w in ("loop", "prefork"):
    n = NPROC[w]
    W = R["workloads"][w] = {"processes": n, "tools": {}}
    for t in TOOLS:
        rs = runs.get((w, t))
        if not rs:
            continue
        ok = [r for r in rs if not rs[r][2]]
        if not ok:
            W["tools"][t] = {"failed_runs": len(rs)}
            L.append("| %s | %s | failed (%d runs) | | | | | | |" % (w, t, len(rs)))
            continue
        row = {"wall_s": med([rs[r][0] for r in ok]), "cpu_s": med([rs[r][1] for r in ok]),
               "failed_runs": len(rs) - len(ok)}
        if t != "untraced":
            for i, k in ((0, "wall"), (1, "cpu")):
                row["added_%s_s" % k] = cost(w, t, i)
                row["added_%s_s_no_startup" % k] = cost_no_startup(w, t, i)
        if t == "clocktrace":
            row["exact"] = "%d/%d" % (sum(exact(w, r) for r in rs), len(rs))
        W["tools"][t] = row
    fl = W["tools"].get("floor", {})
    for t, row in W["tools"].items():
        if "wall_s" not in row:
            continue
        if t == "untraced":
            L.append("| %s | %s | %.3f | %.3f | - | - | - | - | - |" % (w, t, row["wall_s"], row["cpu_s"]))
            continue
        x = []
        for k in ("wall", "cpu"):
            a, b = row.get("added_%s_s_no_startup" % k), fl.get("added_%s_s_no_startup" % k)
            row["x_floor_%s" % k] = a / b if a is not None and b and b > 0 else None
            x.append(f1(row["x_floor_%s" % k], "%.2fx"))
        us = lambda v: None if v is None else v * 1e6 / n
        L.append("| %s | %s | %.3f | %.3f | %s | %s | %s, %s | %s | %s |" % (
            w, t, row["wall_s"], row["cpu_s"], f1(us(row["added_wall_s"])), f1(us(row["added_cpu_s"])),
            f1(us(row["added_wall_s_no_startup"])), f1(us(row["added_cpu_s_no_startup"])),
            ", ".join(x), row.get("exact", "-")))
    ct = W["tools"].get("clocktrace", {})
    xs = [ct.get("x_floor_wall"), ct.get("x_floor_cpu")]
    TG.append(("1a %s: clocktrace's added wall and CPU <= 1.5x the floor's" % w,
               all(v is not None and v <= 1.5 for v in xs),
               "wall %s, CPU %s (start-up excluded)" % tuple(f1(v, "%.2fx") for v in xs)))

L.append("")
L.append("BPF run time (kernel.bpf_stats_enabled), medians of %d runs: ns per program run (all processes of the machine that reached it), and per traced process" % A.runs)
L.append("| workload | tool | sched_fork | sched_exec | sched_exit | sys_enter | sys_exit | fork+exec+exit programs per traced process |")
L.append("|---|---|---|---|---|---|---|---|")
worst = None
for w in ("loop", "prefork"):
    R["workloads"][w]["bpf_stats"] = {}
    for t in ("clocktrace", "floor"):
        if (w, t) not in bs:
            continue
        ex = per_run(w, t, "sched_exec")
        if ex is None:
            ex = per_run(w, t, "sched_exec_bounded")
        d = {"sched_fork_ns": per_run(w, t, "sched_fork"), "sched_exec_ns": ex,
             "sched_exit_ns": per_run(w, t, "sched_exit"),
             "sys_enter_ns": per_run(w, t, "sys_enter"),
             "sys_exit_ns": per_run(w, t, "sys_exit"),
             "proc_progs_ns_per_proc": per_proc(w, t, PROC_PROGS)}
        R["workloads"][w]["bpf_stats"][t] = d
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (w, t, *(f1(d[k], "%.0f") for k in (
            "sched_fork_ns", "sched_exec_ns", "sched_exit_ns", "sys_enter_ns", "sys_exit_ns", "proc_progs_ns_per_proc"))))
        if t == "clocktrace":
            for k in ("sched_fork_ns", "sched_exec_ns", "sched_exit_ns"):
                if d[k] is not None and (worst is None or d[k] > worst[0]):
                    worst = (d[k], w, k[:-3])
if worst:
    TG.append(("1b <= 3 us BPF run time per process event", worst[0] <= 3000,
               "worst program: %s %.0f ns per run (%s)" % (worst[2], worst[0], worst[1])))
else:
    TG.append(("1b <= 3 us BPF run time per process event", False, "no bpf_stats"))
L.append("")
for name, ok, why in TG:
    L.append("%s %s: %s" % ("PASS" if ok else "FAIL", name, why))
R["targets"] = [{"target": n, "pass": ok, "detail": why} for n, ok, why in TG]
text = "\n".join(L)
print(text)
json.dump(R, open(A.out, "w"), indent=1)
open(os.path.splitext(A.out)[0] + ".txt", "w").write(text + "\n")
