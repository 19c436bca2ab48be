#!/usr/bin/env python3
"""The table of results/memory/README.md from a sweep of sweeps/memory.toml: SJBF against
EASY at each memory pressure, paired replication by replication (the two schedulers replay
the same jobs with the same drawn memory), over the replications where neither saturated.

    python3 scripts/memory_table.py results/memory

Uses only the standard library.
"""
import csv
import os
import sys

from ledger import interval

folder = sys.argv[1] if len(sys.argv) > 1 else "results/memory"
METRICS = ["mean_wait", "mean_bsld", "p98_wait"]

cells = {}
with open(os.path.join(folder, "runs.csv"), newline="") as f:
    for row in csv.DictReader(f):
        cells.setdefault((row["memory_pressure"], row["rep"]), {})[row["scheduler"]] = row

print("| memory pressure | replications (neither saturated) | " + " | ".join(f"SJBF against EASY: {m}" for m in METRICS) + " |")
print("|---|---|" + "---|" * len(METRICS))
for pressure in sorted({p for p, _ in cells}, key=float):
    pairs = [v for (p, _), v in sorted(cells.items()) if p == pressure]
    kept = [v for v in pairs if v["easy"]["saturated"] == "false" and v["sjbf"]["saturated"] == "false"]
    figures = []
    for metric in METRICS:
        mean, half = interval([float(v["sjbf"][metric]) / float(v["easy"][metric]) - 1 for v in kept])
        figures.append(f"{100 * mean:+.1f}% ± {100 * half:.1f}%")
    print(f"| {pressure} | {len(kept)} of {len(pairs)} | " + " | ".join(figures) + " |")
