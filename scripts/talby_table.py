#!/usr/bin/env python3
"""Improvement of each SJBF predictor over EASY, per log and averaged over the logs, as in
Talby et al.'s Tables 2 and 4-6, from a sweep of sweeps/talby.toml.

    python3 scripts/talby_table.py results/talby

For wait, bounded slowdown and absolute inaccuracy (lower is better) the improvement is
(EASY - X) / EASY; for relative accuracy (higher is better), (X - EASY) / EASY.
Uses only the standard library.
"""
import csv
import os
import sys
from collections import defaultdict

folder = sys.argv[1] if len(sys.argv) > 1 else "results/talby"
means = {}
with open(os.path.join(folder, "summary.csv"), newline="") as f:
    for row in csv.DictReader(f):
        log = os.path.basename(row["trace"]).split("-cln")[0]
        config = row["scheduler"] if row["scheduler"] == "easy" else f"sjbf + {row['predictor']}"
        means[(log, config, row["metric"])] = float(row["mean"])

metrics = [("mean_wait", -1), ("mean_bsld", -1), ("absolute_inaccuracy", -1), ("relative_accuracy", 1)]
logs = sorted({k[0] for k in means})
configs = [c for c in dict.fromkeys(k[1] for k in means) if c != "easy"]
print("| configuration | " + " | ".join(m for m, _ in metrics) + " |")
print("|---|" + "---|" * len(metrics))
per_log = defaultdict(dict)
for config in configs:
    cells = []
    for metric, sign in metrics:
        gains = []
        for log in logs:
            easy, x = means[(log, "easy", metric)], means[(log, config, metric)]
            gain = sign * (x - easy) / easy if easy else float("nan")
            gains.append(gain)
            per_log[(config, metric)][log] = gain
        cells.append(f"{100 * sum(gains) / len(gains):.0f}%")
    print(f"| {config} | " + " | ".join(cells) + " |")
print()
print("Per log (wait-time improvement over EASY):")
print("| configuration | " + " | ".join(logs) + " |")
print("|---|" + "---|" * len(logs))
for config in configs:
    print(f"| {config} | " + " | ".join(f"{100 * per_log[(config, 'mean_wait')][log]:.0f}%" for log in logs) + " |")
