#!/usr/bin/env python3
"""Lee & Snavely's Table 1 / Table 2 layout and the aggregate utility of each experiment
(Figures 5, 7, 8) with each scheduler's gain over the others, from a sweep of
sweeps/lee-snavely.toml (means over the replications; +- is the 95% half-width).

    python3 scripts/lee_snavely_tables.py results/lee-snavely

Uses only the standard library.
"""
import csv
import os
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "results/lee-snavely"
AXES = ["decay", "load_scale", "deadline_factor", "exact_estimates", "deadline_from"]
DEFAULT = {"decay": "mixed", "load_scale": "1", "deadline_factor": "2",
           "exact_estimates": "false", "deadline_from": "turnaround"}
SCHEDULERS = ["conservative", "easy", "prio", "ga"]
LABEL = {"conservative": "Cons", "easy": "EASY", "prio": "Prio", "ga": "GA"}

stats = {}
with open(os.path.join(folder, "summary.csv"), newline="") as f:
    for row in csv.DictReader(f):
        config = tuple(row[a] for a in AXES)
        stats[(config, row["scheduler"], row["metric"])] = (float(row["mean"]), float(row["half_width"]))


def config(**changes):
    c = dict(DEFAULT)
    c.update({k: str(v) for k, v in changes.items()})
    return tuple(c[a] for a in AXES)


def get(c, s, m):
    return stats[(c, s, m)][0]


def fmt(x, digits=0):
    return f"{x:,.{digits}f}"


def table(c, title):
    print(f"### {title}\n")
    print("| | wait p25 / p50 / p75 / p98 / max (s) | expansion p25 / p50 / p75 / p98 / max "
          "| mean bsld | utilization | makespan (s) | % of start value earned, best first: "
          "p25 / p50 / p75 / p98 / p100 | aggregate utility |")
    print("|---|---|---|---|---|---|---|---|")
    for s in SCHEDULERS:
        wait = " / ".join(fmt(get(c, s, m)) for m in
                          ["p25_wait", "p50_wait", "p75_wait", "p98_wait", "max_wait"])
        exp = " / ".join(fmt(get(c, s, m), 2) for m in
                         ["p25_expansion", "p50_expansion", "p75_expansion", "p98_expansion", "max_expansion"])
        earned = " / ".join(fmt(get(c, s, m), 1) for m in
                            ["earned_p25", "earned_p50", "earned_p75", "earned_p98", "earned_p100"])
        mean, hw = stats[(c, s, "aggregate_utility")]
        print(f"| {LABEL[s]} | {wait} | {exp} | {fmt(get(c, s, 'mean_bsld'), 1)} "
              f"| {get(c, s, 'utilization'):.3f} | {get(c, s, 'makespan'):.3e} | {earned} "
              f"| {mean:.3e} +- {hw:.1e} |")
    print()


def gains(rows, title):
    print(f"### {title}\n")
    print("| experiment | " + " | ".join(f"{LABEL[s]} aggregate utility" for s in SCHEDULERS)
          + " | GA vs Cons | GA vs EASY | GA vs Prio | Prio vs Cons | Prio vs EASY |")
    print("|---|" + "---|" * (len(SCHEDULERS) + 5))
    for label, c in rows:
        u = {s: get(c, s, "aggregate_utility") for s in SCHEDULERS}
        pct = lambda a, b: f"{100 * (u[a] / u[b] - 1):+.1f}%"
        print(f"| {label} | " + " | ".join(f"{u[s]:.3e}" for s in SCHEDULERS)
              + f" | {pct('ga', 'conservative')} | {pct('ga', 'easy')} | {pct('ga', 'prio')}"
              f" | {pct('prio', 'conservative')} | {pct('prio', 'easy')} |")
    print()


table(config(), "Table 1: default augmentation, user-provided requested times")
table(config(exact_estimates="true"), "Table 2: requested time = runtime")
table(config(deadline_from="wait"), "The paper's literal deadline rule: 2 x recorded wait")
gains([("default (Table 1)", config())]
      + [(f"decay {d} (Figure 5)", config(decay=d)) for d in ["linear", "exponential", "step"]]
      + [(f"inter-arrival x {f} (Figure 7)", config(load_scale=f)) for f in ["0.9", "0.8", "0.7"]]
      + [(f"deadline factor {k} (Figure 8)", config(deadline_factor=k)) for k in ["1", "3"]]
      + [("exact requests (Table 2)", config(exact_estimates="true")),
         ("deadline 2 x recorded wait", config(deadline_from="wait"))],
      "Aggregate utility by experiment")
