#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench.sh's report: reads build/bench/tmp, prints the table, the capacity
and untraced-cost checks and the issue-6 targets, writes latest.json and
prints the change from the previous run."""
import argparse, glob, json, os, platform, re, statistics, time

ap = argparse.ArgumentParser()
for a in ("tmp", "out", "previous", "only"):
    ap.add_argument("--" + a)
for a in ("quick", "runs", "n", "m", "ns", "ms", "sysloop-n", "sysloop-k", "seconds", "cap-seconds"):
    ap.add_argument("--" + a, type=int)
A = ap.parse_args()
T = A.tmp

def med(xs): return statistics.median(xs) if xs else None
def mmm(xs): return {"min": min(xs), "median": med(xs), "max": max(xs)} if xs else None
def mm(d, scale=1, fmt="%.3f"):
    return "-" if not d else (fmt % (d["median"] * scale)) + " (" + (fmt % (d["min"] * scale)) + "-" + (fmt % (d["max"] * scale)) + ")"

# ---- section 5: cost to processes that are not traced -------------------------
UNT_TARGET_NS = 30
UNT_KINDS = ("getppid", "clock", "stat")
UNT_DESC = {
    "none": "nothing attached: CPU ns per syscall",
    "clocktrace": "clocktrace run -- sleep 600",
    "floor": "floor (minimal libbpf counter) -- sleep 600",
    "rawtp-empty": "empty BPF on tp_btf/sys_enter + sys_exit",
    "classic-tp": "empty BPF on syscalls/sys_{enter,exit}_clock_gettime",
    "fentry": "empty fentry/fexit on __x64_sys_clock_gettime",
    "kprobe": "empty kprobe on __x64_sys_clock_gettime",
    "lsm": "empty lsm/file_open",
}

def untraced_cost():
    """untraced.tsv (variant, kind, round, ns per syscall of the least
    disturbed slice, of the median slice), mechfloor.tsv (variant, round,
    stop wall ns, detach ns, attach ns) and mechfloor.unavailable.  Added ns
    are paired: in each round, the variant minus `none` of the same round;
    median and min-max over the rounds."""
    per, perm, foreign = {}, {}, {}
    rows = [l.split() for l in open(os.path.join(T, "untraced.tsv"))]
    for f in rows:
        if len(f) > 5 and int(f[2]) > 0:
            foreign[int(f[2])] = max(foreign.get(int(f[2]), 0), int(f[5]))
    # A round during which another tool had raw syscall tracepoints attached
    # measured that tool too, `none` included: left out while clean rounds exist.
    clean = [r for r, n in foreign.items() if n == 0]
    dirty = sorted(r for r, n in foreign.items() if n > 0)
    for f in rows:
        if len(f) < 5 or int(f[2]) == 0: continue  # warm-up or no figure
        if clean and int(f[2]) in dirty: continue
        per.setdefault((f[0], f[1]), {})[int(f[2])] = float(f[3])
        perm.setdefault((f[0], f[1]), {})[int(f[2])] = float(f[4])
    order = list(UNT_DESC)
    U = {}
    for (v, k), byr in sorted(per.items(), key=lambda x: (order.index(x[0][0]) if x[0][0] in order else 99, x[0])):
        d = mmm(list(byr.values()))
        d["rounds"] = len(byr)
        base = per.get(("none", k), {})
        diffs = [x - base[r] for r, x in byr.items() if r in base]
        if v != "none" and diffs:
            d["added"] = mmm(diffs)
            d["added_ns"] = d["added"]["median"]
        bm, xm = perm.get(("none", k), {}), perm.get((v, k), {})
        dm = [x - bm[r] for r, x in xm.items() if r in bm]
        if v != "none" and dm:
            d["added_median_slice"] = mmm(dm)
        U.setdefault(k, {})[v] = d
    stops, failed = {}, {}
    try:
        for line in open(os.path.join(T, "mechfloor.tsv")):
            f = line.rstrip("\n").split("\t")
            if f[2] == "failed":
                failed[f[0]] = failed.get(f[0], 0) + 1; continue
            if int(f[1]) == 0: continue
            s_ = stops.setdefault(f[0], {"stop_ms": [], "detach_ms": [], "attach_ms": []})
            for key, x in zip(("stop_ms", "detach_ms", "attach_ms"), f[2:5]):
                if x.isdigit(): s_[key].append(int(x) / 1e6)
    except OSError:
        pass
    unav = {}
    try:
        for line in open(os.path.join(T, "mechfloor.unavailable")):
            k, _, v = line.rstrip("\n").partition("\t")
            unav[k] = v
    except OSError:
        pass
    variants = []
    for k in UNT_KINDS:
        for v in U.get(k, {}):
            if v not in variants: variants.append(v)
    meets = {}
    for v in variants:
        if v == "none": continue
        a = [U[k][v]["added_ns"] for k in UNT_KINDS if "added_ns" in U.get(k, {}).get(v, {})]
        meets[v] = bool(a) and len(a) == len(UNT_KINDS) and max(a) < UNT_TARGET_NS
    R = {"target_ns": UNT_TARGET_NS, "sysloop_n": A.sysloop_n, "sysloop_slices": A.sysloop_k,
         "method": "sysloop CPU ns per syscall, least disturbed of sysloop_slices slices (added_median_slice: the median slice); "
                   "added = variant minus none in the same round, median (min-max) over rounds; order rotated per round",
         "variants": {v: UNT_DESC.get(v, v) for v in variants},
         "per_kind": U, "meets_target": meets,
         "met_by": [v for v, ok in meets.items() if ok],
         "stop": {v: {k: mmm(x) for k, x in d.items() if x} for v, d in stops.items()},
         "failed_rounds": failed, "unavailable": unav,
         "rounds_with_foreign_syscall_tracepoints": dirty,
         "foreign_rounds_left_out": bool(clean and dirty)}
    return R

def untraced_lines(R):
    U, L = R["per_kind"], []
    rounds = max((d["rounds"] for k in U.values() for d in k.values()), default=0)
    L.append("cost to an untraced process: sysloop getppid|clock|stat x %d in %s slices, CPU ns per syscall of the least disturbed slice; "
             "added ns = variant minus `none` in the same round, median (min-max) over %d rounds (order rotated per round):" % (
                 R["sysloop_n"], R["sysloop_slices"], rounds))
    hdr = "| variant | what is attached | getppid | clock_gettime | newfstatat | < %d ns on all three |" % R["target_ns"]
    L.append(hdr); L.append("|" + "---|" * (hdr.count("|") - 1))
    for v, desc in R["variants"].items():
        cells = []
        for k in UNT_KINDS:
            d = U.get(k, {}).get(v)
            if not d: cells.append("-")
            elif v == "none": cells.append(mm(d, 1, "%.0f"))
            elif "added" in d: cells.append("%+.0f (%+.0f to %+.0f)" % (d["added"]["median"], d["added"]["min"], d["added"]["max"]))
            else: cells.append("-")
        ok = "" if v == "none" else ("yes" if R["meets_target"].get(v) else "no")
        L.append("| %s | %s | %s | %s |" % (v, desc, " | ".join(cells), ok))
    for v, why in R["unavailable"].items():
        L.append("| %s | %s | %s | | | |" % (v, UNT_DESC.get(v, v), why))
    for v, n in R["failed_rounds"].items():
        L.append("(%s failed to attach in %d round(s): those rounds have no figure)" % (v, n))
    ms = []
    for v in R["variants"]:
        c = [U.get(k, {}).get(v, {}).get("added_median_slice") for k in UNT_KINDS]
        if any(c):
            ms.append("%s %s" % (v, "/".join("%+.0f" % x["median"] if x else "-" for x in c)))
    if ms:
        L.append("same from the median slice instead (getppid/clock/stat, median over rounds): " + "; ".join(ms))
    if R["rounds_with_foreign_syscall_tracepoints"]:
        L.append("WARNING: another tool had raw sys_enter/sys_exit links attached in round(s) %s: %s" % (
            ",".join(map(str, R["rounds_with_foreign_syscall_tracepoints"])),
            "those rounds are left out" if R["foreign_rounds_left_out"] else "no clean round, figures include it"))
    met = R["met_by"]
    L.append("target (issue 6): < %d ns added per syscall to untraced processes, on every kind; met by: %s" % (
        R["target_ns"], ", ".join(met) if met else "no variant measured here"))
    st = R["stop"]
    parts = []
    for v in st:
        d = st[v]
        if "detach_ms" in d:
            parts.append("%s %s ms (links and programs destroyed in %s ms)" % (v, mm(d["stop_ms"], 1, "%.1f"), mm(d["detach_ms"], 1, "%.1f")))
        elif "stop_ms" in d:
            parts.append("%s %s ms (from killing the traced sleep)" % (v, mm(d["stop_ms"], 1, "%.1f")))
    if parts:
        L.append("detach, SIGTERM to exit, median (min-max): " + "; ".join(parts))
    return L

if A.only == "untraced":
    R = untraced_cost()
    sb = open(os.path.join(T, "state.before")).read().split()
    sa = open(os.path.join(T, "state.after")).read().split()
    L = ["clocktrace benchmark, section 5 only (ONLY=untraced)  %s  (QUICK=%d, %d rounds after a warm-up; %d s)" % (
             time.strftime("%Y-%m-%d %H:%M"), A.quick, A.runs, A.seconds),
         "machine: Linux %s, %d CPUs; %s -> %s" % (platform.release(), os.cpu_count(), " ".join(sb), " ".join(sa)), ""]
    L += untraced_lines(R)
    text = "\n".join(L)
    print(text)
    json.dump({"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "quick": A.quick, "runs": A.runs,
               "only": "untraced", "machine": {"kernel": platform.release(), "cpus": os.cpu_count(),
               "before": sb, "after": sa}, "untraced_cost": R}, open(A.out, "w"), indent=1)
    open(os.path.splitext(A.out)[0] + ".txt", "w").write(text + "\n")
    raise SystemExit(0)

def expected(n, m):
    # tzloop -n N -c 1 -s CPU:M: parent and child each N x {tzset, localtime}
    # = 2N newfstatat + M clock_gettime; the parent's first tzset opens once.
    return {"events": 2 * (2 * n + m) + 1, "clock_gettime": 2 * m,
            "tz_stat": 4 * n, "tz_open": 1}

EXP = {"ref": expected(A.n, A.m), "small": expected(A.ns, A.ms),
       "startup": {"events": 0, "clock_gettime": 0, "tz_stat": 0, "tz_open": 0}}

unavailable = {}
for line in open(os.path.join(T, "unavailable")):
    k, _, v = line.rstrip("\n").partition("\t")
    unavailable[k] = v

# ---- parse tool outputs -----------------------------------------------------
def parse_clocktrace(path):
    try:
        j = json.load(open(path))
    except Exception as e:
        return {"error": "no report (%s)" % e.__class__.__name__}
    r = {"events": j.get("events"), "lost": j.get("lost_events"),
         "clock_gettime": 0, "tz_stat": 0, "tz_open": 0, "libc_hits": 0,
         "per_proc": []}
    for p in j.get("processes", []):
        c = p.get("clock", {}).get("clock_gettime", {}).get("count", 0)
        st = op = 0
        for path_, d in p.get("tz", {}).get("paths", {}).items():
            st += d.get("stat", 0); op += d.get("open", 0)
        r["clock_gettime"] += c; r["tz_stat"] += st; r["tz_open"] += op
        r["per_proc"].append((c, st, op))
        for fn, d in (p.get("libc") or {}).items():
            if d.get("observable") and isinstance(d.get("count"), int):
                r["libc_hits"] += d["count"]
                if d["count"]:
                    r.setdefault("libc_insn", {})[fn] = d.get("probe_insn", "?")
    return r

def parse_floor(path):
    r = {"events": None, "clock_gettime": 0, "tz_stat": 0, "tz_open": 0}
    try:
        for line in open(path):
            m = re.match(r"tgid=\d+ kind=(\d+) count=(\d+)", line)
            if m:
                k, c = int(m[1]), int(m[2])
                if k == 0: r["clock_gettime"] += c
                if k == 5: r["tz_stat"] += c
                if k == 4: r["tz_open"] += c
            m = re.match(r"events=(\d+)", line)
            if m: r["events"] = int(m[1])
    except OSError:
        r["error"] = "no output"
    return r

def parse_bpftrace(path):
    r = {"events": 0, "clock_gettime": 0, "tz_stat": 0, "tz_open": 0}
    try:
        for line in open(path):
            m = re.match(r"^\[[^)\]]*[)\]]\s+(\d+)\s+\|", line)
            if m: r["clock_gettime"] += int(m[1])
            m = re.match(r"^@tz\[\d+, [^,]*sys_enter_(\w+), .*\]: (\d+)", line)
            if m:
                if m[1] == "openat": r["tz_open"] += int(m[2])
                else: r["tz_stat"] += int(m[2])
    except OSError:
        r["error"] = "no output"
    r["events"] = r["clock_gettime"] + r["tz_stat"] + r["tz_open"]
    return r

def parse_strace(path):
    r = {"events": None}
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 5 and f[-1] == "clock_gettime" and f[3].isdigit():
                r["clock_gettime"] = int(f[3])
    except OSError:
        r["error"] = "no output"
    return r

def parse_perf(path):
    r = {"events": None, "clock_gettime": 0}
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 3 and f[0] == "clock_gettime" and f[1].isdigit():
                r["clock_gettime"] += int(f[1])
    except OSError:
        r["error"] = "no output"
    return r

PARSERS = {"clocktrace": parse_clocktrace, "libc": parse_clocktrace,
           "floor": parse_floor, "bpftrace": parse_bpftrace,
           "strace": parse_strace, "perf": parse_perf}

runs = {}
for line in open(os.path.join(T, "runs.tsv")):
    g, t, r, rs, of = line.rstrip("\n").split("\t")
    wall, user, sys_, rss, rc = (int(x) for x in rs.split())
    cpu = (user + sys_) / 1e6
    if t == "syscount" and os.path.exists(of + ".self"):
        w2, u2, s2, rss2, _ = (int(x) for x in open(of + ".self").read().split())
        cpu += (u2 + s2) / 1e6
        rss = max(rss, rss2)
    if int(r) == 0:
        continue  # warm-up
    d = {"wall": wall / 1e9, "cpu": cpu, "rss_kb": rss, "rc": rc}
    if t in PARSERS and of:
        d["out"] = PARSERS[t](of)
    runs.setdefault((g, t), []).append(d)

NAMES = {"untraced": "untraced", "clocktrace": "clocktrace run",
         "libc": "clocktrace run --libc", "floor": "floor (minimal libbpf)",
         "bpftrace": "bpftrace peer.bt", "strace": "strace -f -c",
         "perf": "perf trace -s", "syscount": "bcc syscount -L"}

def summarize(g, t):
    rs = runs.get((g, t), [])
    if not rs:
        return None
    ok = [x for x in rs if x["rc"] == 0]
    s = {"runs": len(rs), "failed_runs": len(rs) - len(ok)}
    if not ok:
        errs = ""
        for r in range(1, A.runs + 1):
            p = os.path.join(T, "%s.%s.%d.stderr" % (g, t, r))
            if os.path.exists(p):
                lines = [l.strip() for l in open(p) if l.strip() and not l.startswith("WORKLOAD")]
                errs = lines[-1] if lines else ""
                break
        s["failed"] = "exit %d: %s" % (rs[0]["rc"], errs[:120])
        return s
    s["wall_s"] = mmm([x["wall"] for x in ok])
    s["cpu_s"] = mmm([x["cpu"] for x in ok])
    s["rss_kb_max"] = max(x["rss_kb"] for x in ok)
    outs = [x["out"] for x in ok if "out" in x]
    if outs:
        s["counts_last_run"] = {k: v for k, v in outs[-1].items() if k != "per_proc"}
        e = EXP[g]
        def exact(o):
            if "error" in o: return False
            if t in ("clocktrace", "libc"):
                return (o["events"] == e["events"] and o["clock_gettime"] == e["clock_gettime"]
                        and o["tz_stat"] == e["tz_stat"] and o["tz_open"] == e["tz_open"]
                        and o["lost"] == 0)
            if t in ("floor", "bpftrace"):
                return (o["events"] == e["events"] and o["clock_gettime"] == e["clock_gettime"])
            return o.get("clock_gettime") == e["clock_gettime"]
        s["exact_runs"] = sum(1 for o in outs if exact(o))
        s["checked_runs"] = len(outs)
        if t in ("clocktrace", "libc"):
            s["lost_events_max"] = max((o.get("lost") or 0) for o in outs if "error" not in o) if any("error" not in o for o in outs) else None
        if t == "libc":
            s["libc_hits"] = med([o["libc_hits"] for o in outs if "error" not in o])
            s["libc_insn"] = next((o["libc_insn"] for o in outs if "libc_insn" in o), {})
    return s

RES = {}
for g in ("startup", "ref", "small"):
    for t in NAMES:
        s = summarize(g, t)
        if s: RES.setdefault(g, {})[t] = s

def get(g, t, *path):
    x = RES.get(g, {}).get(t)
    for p in path:
        if x is None: return None
        x = x.get(p) if isinstance(x, dict) else None
    return x

def added_ns(g, t):
    c, u = get(g, t, "cpu_s", "median"), get(g, "untraced", "cpu_s", "median")
    if c is None or u is None: return None
    return (c - u) * 1e9 / EXP[g]["events"]

def added_ns_run(g, t):
    """Added CPU per event without the tool's own start-up + tear-down CPU
    (`tool /bin/true` minus `/bin/true`): the per-event (kernel-side) part."""
    a = added_ns(g, t)
    s, su = get("startup", t, "cpu_s", "median"), get("startup", "untraced", "cpu_s", "median")
    if a is None or s is None or su is None: return None
    return a - (s - su) * 1e9 / EXP[g]["events"]

ROWS = []
for t in NAMES:
    if t == "untraced": 
        g = "ref"
    else:
        g = "ref" if (("ref", t) in runs) else ("small" if ("small", t) in runs else None)
    row = {"tool": t, "name": NAMES[t]}
    if g is None:
        row["status"] = unavailable.get(t, "not run")
        ROWS.append(row); continue
    s = RES[g][t]
    row["group"] = g
    row["workload"] = "N=%d M=%d" % ((A.n, A.m) if g == "ref" else (A.ns, A.ms))
    if "failed" in s:
        row["status"] = "failed: " + s["failed"]
        ROWS.append(row); continue
    u = RES[g]["untraced"]
    row.update({
        "wall_s": s["wall_s"], "cpu_s": s["cpu_s"],
        "x_untraced_wall": s["wall_s"]["median"] / u["wall_s"]["median"],
        "x_untraced_cpu": s["cpu_s"]["median"] / u["cpu_s"]["median"],
        "added_ns_per_event": added_ns(g, t) if t != "untraced" else 0.0,
        "added_ns_per_event_run": added_ns_run(g, t) if t != "untraced" else 0.0,
        "events": EXP[g]["events"],
        "rss_kb": s["rss_kb_max"],
        "lost_events": s.get("lost_events_max"),
        "exact": None if "exact_runs" not in s else "%d/%d" % (s["exact_runs"], s["checked_runs"]),
        "counts_last_run": s.get("counts_last_run"),
    })
    st = get("startup", t, "wall_s")
    if st: row["startup_teardown_s"] = st
    elif get("startup", t, "failed"): row["startup_teardown_s"] = "failed"
    ROWS.append(row)
    # clocktrace in the small group too, for a same-N comparison with strace/perf
for t in ("clocktrace",):
    if ("small", t) in runs and "failed" not in RES["small"][t]:
        RES["small"][t]["added_ns_per_event"] = added_ns("small", t)
for t in ("strace", "perf"):
    if ("small", t) in runs and "failed" not in RES["small"][t]:
        RES["small"][t]["added_ns_per_event"] = added_ns("small", t)

ctns = added_ns("ref", "clocktrace")
ctns_small = added_ns("small", "clocktrace")
ctst = get("startup", "clocktrace", "wall_s", "median")
for row in ROWS:
    t = row["tool"]
    if t in ("untraced", "clocktrace") or "added_ns_per_event" not in row:
        continue
    base = added_ns_run("small", "clocktrace") if row.get("group") == "small" else added_ns_run("ref", "clocktrace")
    pn = row.get("added_ns_per_event_run")
    row["ct_over_peer_ns"] = base / pn if base is not None and pn and pn > 0 else None
    ps = row.get("startup_teardown_s")
    row["ct_over_peer_startup"] = ctst / ps["median"] if ctst and isinstance(ps, dict) else None

# ---- capacity and untraced cost ----------------------------------------------
cap = {}
for line in open(os.path.join(T, "capacity")):
    k, _, v = line.strip().partition("=")
    cap[k] = v
capj = parse_clocktrace(os.path.join(T, "cap.json"))
p2k = parse_clocktrace(os.path.join(T, "p2k.json"))
CAPR = {}
try:
    el = int(cap["workload_elapsed_ns"])
    CAPR = {
        "threads": 2, "calls": 2 * int(cap["calls_per_thread"]),
        "seconds": el / 1e9,
        "traced_per_s": (capj.get("events") or 0) / (el / 1e9),
        "untraced_per_s": int(cap["untraced_rate"]),
        "events": capj.get("events"), "lost_events": capj.get("lost"),
        "exact": capj.get("events") == 2 * int(cap["calls_per_thread"]),
        "tracer_cpu_s": int(cap["tracer_cpu_ticks"]) / int(cap["clk_tck"]),
        "tracer_rss_kb": int(cap["tracer_hwm_kb"]),
    }
    CAPR["tracer_cpu_pct_of_one_core"] = 100 * CAPR["tracer_cpu_s"] / CAPR["seconds"]
except (KeyError, ValueError, ZeroDivisionError) as e:
    CAPR = {"error": "capacity run failed (%s)" % e}
try:
    w = cap["procs2000_rusage"].split()
    CAPR["procs2000"] = {"rss_kb": int(w[3]), "rc": int(w[4]),
                         "processes": int(cap.get("procs2000_lines", 0)),
                         "lost_events": p2k.get("lost"), "events": p2k.get("events")}
except (KeyError, IndexError, ValueError):
    CAPR["procs2000"] = {"error": "failed"}

UNTR = untraced_cost()
UNT = UNTR["per_kind"]

# ---- kernel's bpf_stats ---------------------------------------------------------
BPFS = {}
try:
    per = {}
    for line in open(os.path.join(T, "bpfstats.tsv")):
        f = line.rstrip("\n").split("\t")
        if f[0] == "ref":
            g, t, r, rest = f
            name, rt, cnt = rest.split()
            d = per.setdefault(t, {}).setdefault(r, {})
            d[name] = (int(rt), int(cnt))
        elif f[0] == "untraced":
            _, t, mode, rest = f
            a_t, a_c, b_t, b_c = (int(x) for x in rest.split())
            if b_c > a_c:
                BPFS.setdefault("untraced_ns_per_syscall", {}).setdefault(mode, {})[t] = \
                    (b_t - a_t) / ((b_c - a_c) / 2)
    for t, rs in per.items():
        vals = [sum(x[0] for x in d.values()) / EXP["ref"]["events"] for d in rs.values()]
        progs = {}
        for d in rs.values():
            for name, (rt, cnt) in d.items():
                progs.setdefault(name, []).append(rt / cnt if cnt else 0)
        BPFS.setdefault("ref_ns_per_event", {})[t] = mmm(vals)
        BPFS.setdefault("ns_per_run", {})[t] = {k: med(v) for k, v in progs.items()}
except OSError:
    pass

# ---- targets -----------------------------------------------------------------
def pf(b): return "PASS" if b else "FAIL"
TG = []
ctr, btr, flr = added_ns_run("ref", "clocktrace"), added_ns_run("ref", "bpftrace"), added_ns_run("ref", "floor")
bs = BPFS.get("ref_ns_per_event", {})
bs_ratio = (bs["clocktrace"]["median"] / bs["floor"]["median"]) if bs.get("clocktrace") and bs.get("floor") else None
if None not in (ctr, btr, flr) and flr > 0:
    cpu_ok = ctr <= btr and ctr <= 1.2 * flr
    TG.append(("1 kernel-side added CPU/event <= bpftrace and <= 1.2x floor", pf(cpu_ok),
               "CPU per event, start-up excluded: clocktrace %.0f ns, bpftrace %.0f ns, floor %.0f ns = %.2fx floor "
               "(with start-up: %.0f / %.0f / %.0f ns); BPF run time (bpf_stats): %s" % (
                   ctr, btr, flr, ctr / flr, ctns or 0, added_ns("ref", "bpftrace") or 0, added_ns("ref", "floor") or 0,
                   "%.2fx floor" % bs_ratio if bs_ratio else "n/a")))
else:
    TG.append(("1 kernel-side added CPU/event", "FAIL", "not measured"))
bst = get("startup", "bpftrace", "wall_s", "median")
if ctst is not None:
    TG.append(("2 start-up+tear-down <= 50 ms and <= 1/10 bpftrace",
               pf(ctst <= 0.050 and (bst is None or ctst <= bst / 10)),
               "clocktrace %.1f ms, bpftrace %s" % (ctst * 1e3, "%.0f ms" % (bst * 1e3) if bst else "n/a")))
lst = get("startup", "libc", "wall_s", "median")
lhits = get("ref", "libc", "libc_hits")
lcpu, ccpu = get("ref", "libc", "cpu_s", "median"), get("ref", "clocktrace", "cpu_s", "median")
per_hit = (lcpu - ccpu) * 1e9 / lhits if lcpu is not None and ccpu is not None and lhits else None
LIBC = {"startup_teardown_s": lst, "extra_over_run_s": (lst - ctst) if lst is not None and ctst is not None else None,
        "hits": lhits, "per_hit_ns": per_hit,
        "exact": get("ref", "libc", "exact_runs"), "failed": get("ref", "libc", "failed") or get("startup", "libc", "failed")}
if LIBC["failed"] or lst is None:
    TG.append(("3a --libc tear-down <= 100 ms", "FAIL", "--libc failed: %s" % LIBC["failed"]))
    TG.append(("3b --libc per-hit cost ~0.3 us (emulated), exact", "FAIL", "--libc failed"))
else:
    kind = ("emulated-instruction class" if per_hit is not None and per_hit < 2000 else "single-step class")
    TG.append(("3a --libc tear-down <= 100 ms", pf(LIBC["extra_over_run_s"] <= 0.100),
               "run --libc /bin/true %.1f ms, %.1f ms more than run /bin/true: attach + detach of all library probes (tear-down is part of it)"
               % (lst * 1e3, LIBC["extra_over_run_s"] * 1e3)))
    lex = get("ref", "libc", "exact_runs"), get("ref", "libc", "checked_runs")
    insn = get("ref", "libc", "libc_insn") or {}
    where = ", ".join("%s %s" % (f, insn[f]) for f in sorted(insn)) or "placement unknown"
    TG.append(("3b --libc per-hit cost ~0.3 us (emulated), exact", pf(per_hit is not None and per_hit < 1000 and lex[0] == lex[1]),
               "%.0f ns CPU per libc hit (%s) over %d hits; probes: %s; counts exact %s/%s" % (per_hit or -1, kind, lhits or 0, where, lex[0], lex[1])))
if "error" not in CAPR:
    p = CAPR["procs2000"]
    TG.append(("4a 0 lost events at >= 1M traced syscalls/s for 5 s", pf(CAPR["traced_per_s"] >= 1e6 and CAPR["seconds"] >= 5 and CAPR["lost_events"] == 0 and CAPR["exact"]),
               "%.2fM traced/s for %.1f s, lost %s, counts exact %s, tracer's own CPU %.2f s" % (
                   CAPR["traced_per_s"] / 1e6, CAPR["seconds"], CAPR["lost_events"], CAPR["exact"], CAPR["tracer_cpu_s"])))
    TG.append(("4b peak RSS <= 16 MiB with 2,000 traced processes", pf(p.get("rss_kb", 1 << 30) <= 16 * 1024),
               "%.1f MiB (lost %s)" % (p.get("rss_kb", 0) / 1024, p.get("lost_events"))))
else:
    TG.append(("4a capacity", "FAIL", CAPR["error"]))
worst = max((d["clocktrace"]["added_ns"] for d in UNT.values() if "added_ns" in d.get("clocktrace", {})), default=None)
if worst is not None:
    TG.append(("5 cost to untraced processes < 30 ns/syscall", pf(worst < 30),
               ", ".join("%s %+.1f ns" % (m, d["clocktrace"]["added_ns"]) for m, d in UNT.items() if "added_ns" in d.get("clocktrace", {}))
               + "; met by: " + (", ".join(UNTR["met_by"]) or "no variant measured here, mechanism floors included")))

# ---- print --------------------------------------------------------------------
def f3(x): return "-" if x is None else ("%.3f" % x)

state_b = open(os.path.join(T, "state.before")).read().split()
state_a = open(os.path.join(T, "state.after")).read().split()
cpu_model = ""
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu_model = line.split(":", 1)[1].strip(); break
import hashlib, subprocess
BIN = os.path.join(os.path.dirname(A.out), "clocktrace")
def _git(*a):
    try: return subprocess.run(["git"] + list(a), capture_output=True, text=True).stdout.strip()
    except Exception: return ""
BINARY = {"git_head": _git("rev-parse", "--short", "HEAD"),
          "dirty": _git("status", "--porcelain", "--", "bpf", "user").count("\n") + (1 if _git("status", "--porcelain", "--", "bpf", "user") else 0),
          "sha256": hashlib.sha256(open(BIN, "rb").read()).hexdigest()[:12] if os.path.exists(BIN) else None,
          "mtime": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(BIN))) if os.path.exists(BIN) else None}
MACHINE = {"kernel": platform.release(), "cpus": os.cpu_count(), "cpu": cpu_model,
           "before": state_b, "after": state_a}

L = []
L.append("clocktrace benchmark  %s  (QUICK=%d, %d runs each after a warm-up, interleaved; %d s)" %
         (time.strftime("%Y-%m-%d %H:%M"), A.quick, A.runs, A.seconds))
L.append("machine: Linux %s, %d CPUs, %s; %s -> %s" % (MACHINE["kernel"], MACHINE["cpus"], cpu_model, " ".join(state_b), " ".join(state_a)))
L.append("clocktrace binary: built %s from %s%s (sha256 %s)" % (BINARY["mtime"], BINARY["git_head"], " + %d uncommitted files in bpf/ user/" % BINARY["dirty"] if BINARY["dirty"] else "", BINARY["sha256"]))
L.append("workload: tools/tzloop -n N -c 1 -s CLOCK_PROCESS_CPUTIME_ID:M = 2(2N+M)+1 traced events; "
         "N=%d M=%d (%d events); strace/perf: N=%d M=%d (%d events)" % (A.n, A.m, EXP["ref"]["events"], A.ns, A.ms, EXP["small"]["events"]))
L.append("")
hdr = "| tool | N | wall s median (min-max) | CPU s median (min-max) | x untraced wall | x untraced CPU | added ns/event (CPU) | same, start-up CPU excluded | start+teardown ms median (min-max) | peak RSS MiB | lost | counts exact | clocktrace/peer ns | clocktrace/peer start |"
L.append(hdr); L.append("|" + "---|" * (hdr.count("|") - 1))
for row in ROWS:
    if "wall_s" not in row:
        st = row.get("startup_teardown_s")
        L.append("| %s | - | %s | | | | | | %s | | | | | |" % (row["name"], row.get("status"), mm(st, 1e3, "%.1f") if isinstance(st, dict) else "-"))
        continue
    st = row.get("startup_teardown_s")
    L.append("| %s | %s | %s | %s | %.2f | %.2f | %s | %s | %s | %.1f | %s | %s | %s | %s |" % (
        row["name"], "%dk" % ((A.n if row["group"] == "ref" else A.ns) // 1000), mm(row["wall_s"]), mm(row["cpu_s"]),
        row["x_untraced_wall"], row["x_untraced_cpu"],
        "%.0f" % row["added_ns_per_event"] if row["added_ns_per_event"] is not None else "-",
        "%.0f" % row["added_ns_per_event_run"] if row.get("added_ns_per_event_run") is not None else "-",
        mm(st, 1e3, "%.1f") if isinstance(st, dict) else (st or "-"),
        row["rss_kb"] / 1024, "-" if row["lost_events"] is None else row["lost_events"],
        row["exact"] or "-",
        "%.2f" % row["ct_over_peer_ns"] if row.get("ct_over_peer_ns") else "-",
        "%.2f" % row["ct_over_peer_startup"] if row.get("ct_over_peer_startup") else "-"))
sm = RES.get("small", {}).get("clocktrace")
if sm and "cpu_s" in sm:
    L.append("")
    L.append("clocktrace at the strace/perf size (N=%d): CPU %s s, added %.0f ns/event, counts exact %d/%d "
             "(the clocktrace/peer ns ratio of strace and perf uses this row)" % (A.ns, f3(sm["cpu_s"]["median"]), ctns_small or 0, sm.get("exact_runs", 0), sm.get("checked_runs", 0)))
for t in ("strace", "perf", "bpftrace", "floor"):
    for g in ("ref", "small"):
        c = get(g, t, "counts_last_run")
        if c and "clock_gettime" in c and c.get("clock_gettime") != EXP[g]["clock_gettime"]:
            L.append("%s counted %s clock_gettime, expected %d (last run)" % (NAMES[t], c.get("clock_gettime"), EXP[g]["clock_gettime"]))
for t, v in unavailable.items():
    L.append("%s: %s" % (NAMES.get(t, t), v))
L.append("")
if "error" not in CAPR:
    L.append("capacity: clockthreads -t 2 -n %d: %.2fM traced syscalls/s for %.1f s (untraced: %.2fM/s), events %s exact=%s, lost %s; "
             "tracer's own CPU %.2f s (%.1f%% of one core), tracer RSS %.1f MiB" % (
                 CAPR["calls"] // 2, CAPR["traced_per_s"] / 1e6, CAPR["seconds"], CAPR["untraced_per_s"] / 1e6,
                 CAPR["events"], CAPR["exact"], CAPR["lost_events"], CAPR["tracer_cpu_s"], CAPR["tracer_cpu_pct_of_one_core"], CAPR["tracer_rss_kb"] / 1024))
else:
    L.append("capacity: " + CAPR["error"])
p = CAPR.get("procs2000", {})
if "rss_kb" in p:
    L.append("2,000 traced processes (forktree -D 1 -W 2000 -C): peak RSS %.1f MiB, %d process lines, events %s, lost %s, exit %d" % (
        p["rss_kb"] / 1024, p["processes"], p["events"], p["lost_events"], p["rc"]))
L.append("")
L += untraced_lines(UNTR)
if BPFS.get("ref_ns_per_event"):
    L.append("")
    L.append("BPF run time (kernel.bpf_stats_enabled, all programs of the tracer, tracepoint dispatch excluded):")
    for t, d in BPFS["ref_ns_per_event"].items():
        L.append("  %-10s %s ns per traced event; per program run: %s" % (t, mm(d, 1, "%.0f"),
                 ", ".join("%s %.0f ns" % (k, v) for k, v in sorted(BPFS["ns_per_run"][t].items()))))
    a, b = BPFS["ref_ns_per_event"].get("clocktrace"), BPFS["ref_ns_per_event"].get("floor")
    if a and b:
        L.append("  clocktrace/floor = %.2f" % (a["median"] / b["median"]))
for mode, d in BPFS.get("untraced_ns_per_syscall", {}).items():
    L.append("  untraced %-8s BPF ns per syscall (enter+exit): " % mode + ", ".join("%s %.1f" % (k, v) for k, v in d.items()))
if per_hit is not None:
    L.append("--libc: %s libc hits per run, %.0f ns CPU per hit" % (lhits, per_hit))
L.append("")
L.append("targets (issue 6):")
for name, res, why in TG:
    L.append("  %s  %s: %s" % (res, name, why))

OUTJ = {"date": time.strftime("%Y-%m-%dT%H:%M:%S"), "quick": A.quick, "runs": A.runs,
        "params": {"N": A.n, "M": A.m, "N_small": A.ns, "M_small": A.ms, "sysloop_n": A.sysloop_n},
        "expected": EXP, "machine": MACHINE, "groups": RES, "table": ROWS, "capacity": CAPR,
        "untraced_cost": UNTR, "bpf_stats": BPFS, "libc": LIBC, "targets": [{"target": a, "result": b, "detail": c} for a, b, c in TG],
        "unavailable": unavailable, "seconds": A.seconds, "binary": BINARY}

# change from the previous run
if A.previous and os.path.exists(A.previous):
    try:
        P = json.load(open(A.previous))
        L.append("")
        L.append("change from the previous run (%s, QUICK=%s):" % (P.get("date"), P.get("quick")))
        prow = {r["tool"]: r for r in P.get("table", [])}
        for row in ROWS:
            q = prow.get(row["tool"])
            if not q or "cpu_s" not in row or "cpu_s" not in q: continue
            parts = ["CPU %.3f -> %.3f s" % (q["cpu_s"]["median"], row["cpu_s"]["median"])]
            if row.get("added_ns_per_event") is not None and q.get("added_ns_per_event") is not None and row["tool"] != "untraced":
                parts.append("ns/event %.0f -> %.0f" % (q["added_ns_per_event"], row["added_ns_per_event"]))
            a, b = q.get("startup_teardown_s"), row.get("startup_teardown_s")
            if isinstance(a, dict) and isinstance(b, dict):
                parts.append("start+teardown %.1f -> %.1f ms" % (a["median"] * 1e3, b["median"] * 1e3))
            L.append("  %-24s %s" % (row["name"], ", ".join(parts)))
        pt = {x["target"].split()[0]: x["result"] for x in P.get("targets", [])}
        L.append("  targets: " + ", ".join("%s %s -> %s" % (n.split()[0], pt.get(n.split()[0], "?"), r) for n, r, _ in TG))
    except Exception as e:
        L.append("(previous run unreadable: %s)" % e)

text = "\n".join(L)
print(text)
json.dump(OUTJ, open(A.out, "w"), indent=1, default=str)
open(os.path.join(os.path.dirname(A.out), "latest.txt"), "w").write(text + "\n")
