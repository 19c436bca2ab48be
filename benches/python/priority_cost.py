"""Cost of a Python priority function per call: the same run (Lublin model, 128
processors, 20,000 jobs, EASY backfilling) with the queue ranked by a Python function that
returns the arrival order, and with the engine's EASY, which gives the same schedule; the
difference divided by the calls. Medians of 7 alternating rounds.

    python benches/python/priority_cost.py
"""

import statistics
import time

import schedlab

RUN = dict(model="lublin", procs=128, jobs=20_000, seed=3, job_table=False)


def timed(scheduler):
    started = time.perf_counter()
    r = schedlab.run(**RUN, scheduler=scheduler)
    return time.perf_counter() - started, r.summary


def main():
    policy = schedlab.Priority(lambda w: w[:, 0], backfill="easy")
    timed(policy), timed("easy")  # warm-up
    python, native = [], []
    for _ in range(7):
        python.append(timed(policy))
        native.append(timed("easy"))
    calls = python[0][1]["priority_calls"]
    assert python[0][1]["mean_wait"] == native[0][1]["mean_wait"], "the same schedule"
    tp, tn = statistics.median(t for t, _ in python), statistics.median(t for t, _ in native)
    print(f"engine's EASY          {tn * 1e3:8.2f} ms")
    print(f"Python priority (EASY) {tp * 1e3:8.2f} ms, {calls} calls")
    print(f"cost per call          {(tp - tn) / calls * 1e6:8.2f} us")


if __name__ == "__main__":
    main()
