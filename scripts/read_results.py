#!/usr/bin/env python3
"""Load a sweep's results with pandas and print one table per metric.

    python3 scripts/read_results.py results/quick

summary.csv is tidy: one row per (cell, metric), one column per axis, then
metric, n, mean, sd, ci_low, ci_high, half_width, level, target_met.
runs.csv has one row per replication: the axes, rep, seed, saturated, one column per metric,
and check (a hash of the row that resume and merge verify).
"""
import sys

import pandas as pd

folder = sys.argv[1] if len(sys.argv) > 1 else "results/quick"
summary = pd.read_csv(f"{folder}/summary.csv")
runs = pd.read_csv(f"{folder}/runs.csv")
axes = list(summary.columns[: summary.columns.get_loc("metric")])
print(f"{len(runs)} replications over {len(summary) // summary['metric'].nunique()} cells; axes: {axes}")
for metric, rows in summary.groupby("metric", sort=False):
    table = rows.pivot_table(index=axes[0], columns=axes[1:] or None, values="mean") if len(axes) > 1 else rows.set_index(axes[0])["mean"]
    print(f"\n{metric} (mean; {rows['level'].iloc[0]:.0%} CI half-widths in summary.csv):")
    print(table.to_string())
