#!/usr/bin/env python3
"""Tables for results/resampling/README.md from a sweep of sweeps/resampling.toml: the
original log's EASY mean wait (from results/talby, the log replayed as recorded) against
the resampled workloads', and each scheduler's paired difference against EASY by load of
users.

    python3 scripts/resampling_table.py results/resampling results/talby

Uses only the standard library.
"""
import csv
import os
import sys

from ledger import read_runs, read_summary, show

folder = sys.argv[1] if len(sys.argv) > 1 else "results/resampling"
original = sys.argv[2] if len(sys.argv) > 2 else "results/talby"
LOGS = ["CTC-SP2-1996-3.1-cln", "SDSC-SP2-1998-4.2-cln", "KTH-SP2-1996-2.1-cln", "SDSC-BLUE-2000-4.2-cln"]
SCALES = ["0.8", "1", "1.2"]


def trace(log):
    return f"../../shared/traces/{log}.swf.gz"


runs = read_runs(folder, ["trace", "users_scale", "scheduler"], ["mean_wait", "utilization", "jobs"])
stats = read_summary(folder, ["trace", "users_scale", "scheduler"])
recorded = read_summary(original, ["trace", "scheduler", "predictor"])

print("EASY's mean wait on each log as recorded (`results/talby`) and on its 10 resampled")
print("workloads at the log's load of users (users_scale 1): the mean with its 95% interval, and")
print("the range over the replications.")
print()
print("| log | as recorded (s) | resampled: mean, 95% interval (s) | resampled: range (s) | where the log falls |")
print("|---|---|---|---|---|")
for log in LOGS:
    as_recorded = recorded[(trace(log), "easy", "estimate", "mean_wait")][0]
    wait = stats[(trace(log), "1", "easy", "mean_wait")]
    waits = [r["mean_wait"] for r in runs[(trace(log), "1", "easy")].values()]
    lo, hi = min(waits), max(waits)
    below = sum(w < as_recorded for w in waits)
    if lo <= as_recorded <= hi:
        where = f"inside the range ({below} of {len(waits)} below it)"
    else:
        where = f"{'below' if as_recorded < lo else 'above'} every resampled workload"
    print(f"| {log} | {as_recorded:.0f} | {show(wait, lambda x: f'{x:.0f}')} | {lo:.0f} - {hi:.0f} | {where} |")
print()
print("Load by users: utilisation and EASY's mean wait by `users_scale` (mean and 95% interval).")
print()
print("| log | " + " | ".join(f"users_scale {s}: utilisation / wait (s)" for s in SCALES) + " |")
print("|---|" + "---|" * len(SCALES))
for log in LOGS:
    cells = []
    for s in SCALES:
        u = show(stats[(trace(log), s, "easy", "utilization")], lambda x: f"{x:.3f}")
        w = show(stats[(trace(log), s, "easy", "mean_wait")], lambda x: f"{x:.0f}")
        cells.append(f"{u} / {w}")
    print(f"| {log} | " + " | ".join(cells) + " |")
print()
print("Paired differences against EASY (the same workloads): relative difference of the mean")
print("bounded slowdown with its 95% interval; * where the interval excludes 0.")
print()
diffs = {}
with open(os.path.join(folder, "differences.csv"), newline="") as f:
    for row in csv.DictReader(f):
        if row["metric"] == "mean_bsld":
            diffs[(row["trace"], row["users_scale"], row["scheduler"])] = row
print("| log | users_scale | FCFS | SJBF | conservative |")
print("|---|---|---|---|---|")
for log in LOGS:
    for s in SCALES:
        cells = []
        for sched in ["fcfs", "sjbf", "conservative"]:
            d = diffs[(trace(log), s, sched)]
            rel, lo, hi = (float(d[k]) for k in ["relative", "relative_ci_low", "relative_ci_high"])
            star = "*" if lo > 0 or hi < 0 else ""
            cells.append(f"{100 * rel:+.0f}% [{100 * lo:+.0f}, {100 * hi:+.0f}]{star}")
        print(f"| {log} | {s} | " + " | ".join(cells) + " |")
