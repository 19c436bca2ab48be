#!/usr/bin/env python3
"""Talby et al.'s Table 2 and the Table 4 comparison with 95% intervals, from a sweep of
sweeps/talby-resampled.toml: each log resampled by users 10 times, every cell of a log
replaying the same 10 workloads, so improvements are paired by replication.

    python3 scripts/talby_resampled.py results/talby-resampled

An improvement is computed per log and replication ((B - X) / B for wait and bounded
slowdown, B the baseline on the same workload), averaged over the four logs as the paper
does, and its interval taken over the replications. A claim is significant when the
interval excludes 0; the paper's figure is inside or outside the interval.
Uses only the standard library.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ledger import interval, read_runs  # noqa: E402

folder = sys.argv[1] if len(sys.argv) > 1 else "results/talby-resampled"
runs = read_runs(folder, ["trace", "scheduler", "predictor"], ["mean_wait", "mean_bsld"])
logs = sorted({k[0] for k in runs})
RUH = "ruh(k=3,stat=median,prop=true)"


def sbh(criteria):
    return f"sbh(criteria={criteria},search=dfs,depth=unlimited,prop=true,think=1200)"


# (predictor, label, baseline, paper's wait and bsld improvements)
ROWS = [
    ("perfect", "SJBF + Perfect over EASY (Table 2)", "easy", (0.22, 0.47)),
    ("estimate", "SJBF + Estimate over EASY (Table 2)", "easy", (0.11, 0.22)),
    ("ruh(k=3,stat=median,prop=false)", "SJBF + RUH without propagation over EASY (Table 2)", "easy", (0.18, 0.32)),
    (RUH, "SJBF + RUH with propagation over EASY (Table 2)", "easy", (0.17, 0.32)),
    (sbh("PE|P|E|*"), "SBH [PE,P,E,*] over RUH (Table 4)", RUH, (0.05, 0.04)),
    (sbh("E|P|X"), "SBH [E,P,X] over RUH (Table 4)", RUH, (0.04, 0.08)),
]


def cell(log, predictor):
    return runs[(log, "easy", "estimate")] if predictor == "easy" else runs[(log, "sjbf", predictor)]


def improvements(predictor, baseline, metric, only=None):
    """Per replication: the mean over the logs of (B - X) / B."""
    reps = sorted(cell(logs[0], predictor))
    out = []
    for r in reps:
        gains = []
        for log in [only] if only else logs:
            b, x = cell(log, baseline)[r][metric], cell(log, predictor)[r][metric]
            gains.append((b - x) / b)
        out.append(sum(gains) / len(gains))
    return out


def show(values, paper):
    mean, half = interval(values)
    lo, hi = mean - half, mean + half
    significant = "yes" if lo > 0 or hi < 0 else "no"
    inside = "inside" if lo <= paper <= hi else ("above" if paper > hi else "below")
    return f"{100 * mean:+.1f}% [{100 * lo:+.1f}, {100 * hi:+.1f}]", significant, inside


n = len(cell(logs[0], "easy"))
print(f"Improvements averaged over the four logs, mean and 95% interval over {n} resampled")
print("workloads per log; significant: the interval excludes 0; the paper's figure against it.")
print()
print("| claim | metric | paper | schedlab | significant | paper's figure |")
print("|---|---|---|---|---|---|")
for predictor, label, baseline, paper in ROWS:
    for metric, name, p in [("mean_wait", "wait", paper[0]), ("mean_bsld", "bsld", paper[1])]:
        text, significant, inside = show(improvements(predictor, baseline, metric), p)
        print(f"| {label} | {name} | {100 * p:+.0f}% | {text} | {significant} | {inside} |")
print()
print("Per log, the wait improvement with its 95% interval:")
print()
short = [os.path.basename(l).split("-cln")[0] for l in logs]
print("| claim | " + " | ".join(short) + " |")
print("|---|" + "---|" * len(logs))
for predictor, label, baseline, paper in ROWS:
    cells = [show(improvements(predictor, baseline, "mean_wait", log), paper[0])[0] for log in logs]
    print(f"| {label} | " + " | ".join(cells) + " |")
