#!/usr/bin/env python3
"""Improvement of each SJBF predictor over EASY, per log and averaged over the logs, as in
Talby et al.'s Tables 2 and 6, and of the session-based ones over RUH with propagation, as
in Tables 4 and 5, from a sweep of sweeps/talby.toml.

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
per_log = defaultdict(dict)


def cell(text):
    """A Markdown table cell: predictor names such as sbh(criteria=PE|P|E|*) hold pipes."""
    return text.replace("|", "\\|")


def table(baseline, rows):
    print("| configuration | " + " | ".join(m for m, _ in metrics) + " |")
    print("|---|" + "---|" * len(metrics))
    for config in rows:
        cells = []
        for metric, sign in metrics:
            gains = []
            for log in logs:
                base, x = means[(log, baseline, metric)], means[(log, config, metric)]
                gain = sign * (x - base) / base if base else float("nan")
                gains.append(gain)
                if baseline == "easy":
                    per_log[(config, metric)][log] = gain
            cells.append(f"{100 * sum(gains) / len(gains):.0f}%")
        print(f"| {cell(config)} | " + " | ".join(cells) + " |")
    print()


table("easy", configs)
ruh = "sjbf + ruh(k=3,stat=median,prop=true)"
session_based = [c for c in configs if "sbh" in c]
if ruh in configs and session_based:
    print("Session-based predictors against RUH with propagation (Tables 4 and 5):")
    table(ruh, session_based)
print("Per log (wait-time improvement over EASY):")
print("| configuration | " + " | ".join(logs) + " |")
print("|---|" + "---|" * len(logs))
for config in configs:
    print(f"| {cell(config)} | " + " | ".join(f"{100 * per_log[(config, 'mean_wait')][log]:.0f}%" for log in logs) + " |")
