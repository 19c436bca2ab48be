#!/usr/bin/env python3
"""Mean turnaround under AVG, and the change under PRED, BIAS with lock-in and risk
aversion, and HEUR, by machine size and Downey's rho (the day-time load), from a sweep of
sweeps/downey-load-size.toml (means over the replications; intervals in summary.md).

    python3 scripts/downey_load_size.py results/downey-load-size

Uses only the standard library.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ledger import read_summary  # noqa: E402

folder = sys.argv[1] if len(sys.argv) > 1 else "results/downey-load-size"
stats = read_summary(folder, ["procs", "rho", "strategy"])
procs = sorted({k[0] for k in stats}, key=int)
loads = sorted({k[1] for k in stats}, key=float)
OTHERS = ["pred", "bias(lock_in=true,risk=0.2)", "heur"]


def turnaround(n, load, strategy):
    return stats[(n, load, strategy, "mean_response")][0]


print("| procs | " + " | ".join(f"rho {load}" for load in loads) + " |")
print("|---|" + "---|" * len(loads))
for n in procs:
    print(f"| {n}: AVG (s) | " + " | ".join(f"{turnaround(n, load, 'avg'):.0f}" for load in loads) + " |")
    cells = []
    for load in loads:
        base = turnaround(n, load, "avg")
        cells.append(" / ".join(f"{100 * (turnaround(n, load, s) / base - 1):+.0f}" for s in OTHERS) + "%")
    print("| PRED / BIAS / HEUR | " + " | ".join(cells) + " |")
