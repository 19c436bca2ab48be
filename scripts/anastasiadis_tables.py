#!/usr/bin/env python3
"""Tables of a sweeps/anastasiadis-sevcik.toml run, as the paper's Figures 3-6: per
workload, the response time normalised by DYN-EQUI and the mean partition size of each
policy at each load ("sat." where the policy saturated), and the replications each cell
needed.

    python3 scripts/anastasiadis_tables.py results/anastasiadis-sevcik

Uses only the standard library.
"""
import csv
import math
import os
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "results/anastasiadis-sevcik"
cells = {}
policies, loads, workloads = [], [], []
with open(os.path.join(folder, "summary.csv"), newline="") as f:
    for row in csv.DictReader(f):
        key = (row["workload"], row["load"], row["policy"])
        for values, v in ((workloads, row["workload"]), (loads, row["load"]), (policies, row["policy"])):
            if v not in values:
                values.append(v)
        cells.setdefault(key, {})[row["metric"]] = (
            float(row["mean"]) if row["mean"] else math.nan,
            int(row["n"]),
            row["target_met"],
        )


def cell(value, digits):
    if math.isinf(value):
        return "sat."
    if math.isnan(value):
        return "-"
    return f"{value:.{digits}f}"


def table(workload, metric, digits):
    print("| policy | " + " | ".join(f"{float(l):.0%}" for l in loads) + " |")
    print("|---|" + "---|" * len(loads))
    for p in policies:
        values = [cells[(workload, l, p)][metric][0] for l in loads]
        if metric == "mean_partition":
            # Saturated cells have no partition size: mark them like the response times.
            values = [
                math.inf if math.isinf(cells[(workload, l, p)]["mean_response"][0]) else v
                for v, l in zip(values, loads)
            ]
        print(f"| {p.replace('|', '/')} | " + " | ".join(cell(v, digits) for v in values) + " |")
    print()


for w in workloads:
    print(f"### {w.upper()}: response time normalised by DYN-EQUI\n")
    table(w, "normalized_response", 2)
    print(f"### {w.upper()}: mean partition size (processors)\n")
    table(w, "mean_partition", 1)
counts = [v["mean_response"][1] for v in cells.values()]
saturated = sum(1 for v in cells.values() if math.isinf(v["mean_response"][0]))
missed = sum(1 for v in cells.values()
             if v["mean_response"][2] == "false" and not math.isinf(v["mean_response"][0]))
print(f"Replications per cell: {min(counts)} to {max(counts)}, {sum(counts)} in all; "
      f"{saturated} cells saturated (they stop at their first round), "
      f"{missed} stopped at the maximum without reaching the 5% target.")
