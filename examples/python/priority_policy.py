"""A priority policy written in Python: shortest estimate first with ageing (a job's score
falls by one estimated hour per hour of waiting), under EASY backfilling, against the
engine's EASY and SJBF on the same Lublin workload.

    python examples/python/priority_policy.py
"""

import schedlab
from schedlab import Priority

WAIT, ESTIMATE = Priority.COLUMNS.index("wait"), Priority.COLUMNS.index("estimate")


def aged_shortest_first(waiting):
    # waiting: one row per waiting job, columns Priority.COLUMNS; lower scores go first.
    return waiting[:, ESTIMATE] - waiting[:, WAIT]


workload = dict(model="lublin", procs=128, load=0.45, jobs=20_000, estimates="tsafrir", seed=11, job_table=False)
for scheduler in ("easy", "sjbf", Priority(aged_shortest_first, backfill="easy")):
    s = schedlab.run(**workload, scheduler=scheduler).summary
    calls = f", {s['priority_calls']} calls to Python" if "priority_calls" in s else ""
    print(f"{s['scheduler']:26s} mean wait {s['mean_wait']:9.0f} s   mean bsld {s['mean_bsld']:7.2f}{calls}")
