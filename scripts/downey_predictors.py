#!/usr/bin/env python3
"""PRED and BIAS with each queue-time predictor against OPT, from a sweep of
sweeps/downey1997-predictors.toml: turnaround and prediction quality from the
system-centric cells, rebels and savings from the application-centric ones (means over
the replications; intervals in summary.md).

    python3 scripts/downey_predictors.py results/downey1997-predictors

Uses only the standard library.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ledger import read_summary  # noqa: E402

folder = sys.argv[1] if len(sys.argv) > 1 else "results/downey1997-predictors"
stats = read_summary(folder, ["evaluation", "strategy"])


def get(evaluation, strategy, metric):
    return stats[(evaluation, strategy, metric)][0]


def label(strategy):
    if strategy == "opt":
        return "OPT"
    name, _, predictor = strategy.partition("(predictor=")
    return f"{name.upper()}, {predictor.rstrip(')')}"


print("| strategy | turnaround (s) | saving per job vs AVG (s) | rebels (application) | rebels who lose "
      "| correlation / slope (system) |")
print("|---|---|---|---|---|---|")
for strategy in dict.fromkeys(k[1] for k in stats):
    quality = "-" if strategy == "opt" else \
        f"{get('system', strategy, 'prediction_correlation'):.2f} / {get('system', strategy, 'prediction_slope'):.2f}"
    print(f"| {label(strategy)} | {get('system', strategy, 'mean_response'):.0f} "
          f"| {get('application', strategy, 'savings_per_job'):.0f} "
          f"| {100 * get('application', strategy, 'rebel_fraction'):.1f}% "
          f"| {100 * get('application', strategy, 'losing_rebel_fraction'):.1f}% | {quality} |")
