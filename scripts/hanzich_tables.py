#!/usr/bin/env python3
"""The tables behind Hanzich et al.'s Figures 7, 8, 10 and 11 from a sweep of
sweeps/hanzich.toml: D_v (percent) of turnaround, execution and waiting time, the signed
turnaround bias and the adjusted R^2 per estimator, as means over the replications
(+- the 95% half-width).

    python3 scripts/hanzich_tables.py results/hanzich

Uses only the standard library.
"""
import csv
import os
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "results/hanzich"
AXES = ["mpl", "jsp", "nsp", "local_share", "mode", "estimator"]
stats = {}
with open(os.path.join(folder, "summary.csv"), newline="") as f:
    for row in csv.DictReader(f):
        key = tuple(row[a] for a in AXES)
        stats[(key, row["metric"])] = (float(row["mean"]), float(row["half_width"]))


def cell(key, metric, digits=1):
    mean, hw = stats[(key, metric)]
    if mean != mean:  # NaN
        return "-"
    return f"{mean:.{digits}f} +- {hw:.{digits}f}"


def table(title, rows, columns):
    print(f"### {title}\n")
    print("| " + " | ".join(label for label, _ in rows[0][1]) + " | " + " | ".join(c for c, _, _ in columns) + " |")
    print("|" + "---|" * (len(rows[0][1]) + len(columns)))
    for key, labels in rows:
        print("| " + " | ".join(v for _, v in labels) + " | "
              + " | ".join(cell(key, m, d) for _, m, d in columns) + " |")
    print()


ACCURACY = [("D_v turnaround %", "dv_response", 1), ("D_v execution %", "dv_run", 1),
            ("D_v wait %", "dv_wait", 1), ("bias %", "bias_response", 1)]
FIT = [("R_a turnaround", "ra_response", 3), ("R_a execution", "ra_run", 3), ("R_a wait", "ra_wait", 3)]

fig7 = ["prop-mpl", "prop-cpu", "mpl-mpl", "mpl-cpu", "cpu-mpl", "cpu-cpu", "historical", "hybrid"]
table("Figure 7: Basic policy (FCFS + Normal, MPL 1), 75% of nodes with a local user",
      [(("1", "fcfs", "normal", "0.75", "online", e), [("estimator", e)]) for e in fig7],
      ACCURACY + FIT[:1])

rows = []
for jsp in ["fcfs", "backfilling"]:
    for nsp in ["normal", "uniform"]:
        for e in ["mpl-mpl", "mpl-cpu", "historical", "hybrid"]:
            rows.append((("4", jsp, nsp, "0.75", "online", e), [("policy", f"{jsp} + {nsp}"), ("estimator", e)]))
table("Figure 8: job x node selection, MPL 4, 75% of nodes with a local user", rows, ACCURACY)

table("Figure 10: fit of predicted on observed, backfilling + Uniform, MPL 4",
      [(("4", "backfilling", "uniform", "0.75", "online", e), [("estimator", e)])
       for e in ["mpl-cpu", "historical", "hybrid"]],
      FIT + [("execution: slope", "fit_run_slope", 2), ("intercept (s)", "fit_run_intercept", 0),
             ("wait: slope", "fit_wait_slope", 2), ("intercept (s)", "fit_wait_intercept", 0)])

rows = []
for share in ["0", "0.25", "0.5", "0.75", "1"]:
    for mode in ["online", "offline"]:
        for e in ["mpl-cpu", "hybrid"]:
            rows.append((("4", "fcfs", "uniform", share, mode, e),
                         [("local share", share), ("mode", mode), ("estimator", e)]))
table("Figure 11: on-line against off-line by share of nodes with a local user, FCFS + Uniform, MPL 4",
      rows, ACCURACY[:1] + [("mean queue (jobs)", "mean_queue", 2), ("mean wait (s)", "mean_wait", 0)])
