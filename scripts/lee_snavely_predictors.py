#!/usr/bin/env python3
"""The table of results/lee-snavely-predictors/README.md, from a sweep of
sweeps/lee-snavely-predictors.toml: the GA projecting with requested times or a runtime
predictor, against EASY and Priority-FIFO, with the GA's gain over Priority-FIFO paired by
replication (each replication has its own utility functions).

    python3 scripts/lee_snavely_predictors.py results/lee-snavely-predictors

Uses only the standard library.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ledger import read_runs  # noqa: E402

folder = sys.argv[1] if len(sys.argv) > 1 else "results/lee-snavely-predictors"
METRICS = ["aggregate_utility", "earned_p25", "earned_p50", "earned_p75", "mean_wait", "max_wait"]
runs = read_runs(folder, ["scheduler", "predictor"], METRICS)
ROWS = [
    (("easy", "estimate"), "EASY"),
    (("prio", "estimate"), "Prio"),
    (("ga", "estimate"), "GA, requested times"),
    (("ga", "ruh(k=3,stat=median,prop=true)"), "GA, RUH (k = 3, propagation)"),
    (("ga", "sbh(criteria=E|P|X)"), "GA, SBH (E\\|P\\|X)"),
    (("ga", "perfect"), "GA, perfect"),
]


def mean(key, metric):
    values = [r[metric] for r in runs[key].values()]
    return sum(values) / len(values)


def gains(key, baseline):
    reps = sorted(runs[key])
    return [runs[key][r]["aggregate_utility"] / runs[baseline][r]["aggregate_utility"] - 1 for r in reps]


print("| scheduler | aggregate utility | GA vs Prio, per replication | GA vs EASY (mean) | "
      "% of start value earned, best first, p25 / p50 / p75 | mean wait (s) | max wait (s) |")
print("|---|---|---|---|---|---|---|")
for key, label in ROWS:
    versus = ""
    if key[0] == "ga":
        g = gains(key, ("prio", "estimate"))
        e = gains(key, ("easy", "estimate"))
        versus = (", ".join(f"{100 * x:+.1f}" for x in g) + f"% (mean {100 * sum(g) / len(g):+.1f}%)",
                  f"{100 * sum(e) / len(e):+.1f}%")
    earned = " / ".join(f"{mean(key, m):.1f}" for m in ["earned_p25", "earned_p50", "earned_p75"])
    utility = f"{mean(key, 'aggregate_utility'):.2e}".replace("e+0", "e").replace("e+", "e")
    cells = [utility, *(versus or ("", "")), earned,
             f"{mean(key, 'mean_wait'):.0f}", f"{mean(key, 'max_wait'):,.0f}"]
    print(f"| {label} | " + " | ".join(cells) + " |")
