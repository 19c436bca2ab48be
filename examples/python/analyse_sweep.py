"""Analysing a sweep with pandas: mean bounded slowdown of four schedulers as the offered
load grows, on the Lublin model, with each cell's 95% interval.

    python examples/python/analyse_sweep.py
"""

import schedlab

spec = {
    "name": "example",
    "seed": 7,
    "metrics": ["mean_wait", "mean_bsld"],
    "run": {"model": "lublin", "procs": 128, "estimates": "tsafrir"},
    "axes": {"load": [0.3, 0.4, 0.5], "scheduler": ["fcfs", "easy", "sjbf", "conservative"]},
    "measure": {"warmup": 1000, "window": 6000, "saturation": 5000},
    "replications": {"count": 4},
}

sweep = schedlab.sweep(spec)
print(sweep)
bsld = sweep.summary[sweep.summary["metric"] == "mean_bsld"]
table = bsld.pivot(index="load", columns="scheduler", values="mean")
print("\nMean bounded slowdown (mean of 4 replications):")
print(table.round(1).to_string())
width = bsld.pivot(index="load", columns="scheduler", values="half_width")
print("\n95% half-widths:")
print(width.round(1).to_string())
# One row per replication: how much does EASY gain over FCFS, workload by workload?
runs = sweep.runs.pivot_table(index=["load", "rep"], columns="scheduler", values="mean_bsld")
print("\nFCFS / EASY mean bounded slowdown, per replication:")
print((runs["fcfs"] / runs["easy"]).round(2).unstack("rep").to_string())
