"""Priority policies written in Python: the engine's schedulers when ranked by arrival, a
schedule worked out by hand, what the function sees, and its errors."""

import numpy as np
import pytest

import schedlab
from schedlab import Priority

MODEL = dict(model="lublin", procs=64, jobs=3000, seed=4)


def by_arrival(w):
    return w[:, 0]


@pytest.mark.parametrize(
    "backfill, scheduler, estimates",
    [(None, "fcfs", "tsafrir"), ("easy", "easy", "tsafrir"), ("conservative", "conservative", "exact")],
)
def test_arrival_order_is_the_engines_scheduler(backfill, scheduler, estimates):
    ranked = schedlab.run(**MODEL, estimates=estimates, scheduler=Priority(by_arrival, backfill=backfill))
    native = schedlab.run(**MODEL, estimates=estimates, scheduler=scheduler)
    assert np.array_equal(ranked.jobs["start"], native.jobs["start"])
    assert ranked.summary["mean_wait"] == native.summary["mean_wait"]
    assert ranked.summary["scheduler"] == f"priority(backfill={backfill or 'none'})"
    assert ranked.summary["priority_calls"] > 0


def test_shortest_estimate_first_by_hand(small_swf):
    # 8 processors. Job 1 (4 procs) runs 0-100; job 2 (8 procs, estimate 60) waits for
    # it; jobs 3 and 4 (2 procs each, estimates 100 and 20) and 5 (1 proc, estimate 600)
    # arrive meanwhile. Without backfilling, by estimate: at 20 job 2 (60) ranks before job
    # 3 (100) and blocks it; at 30 job 4 (20) ranks first and fits (30-40); at 100 job 2
    # starts (100-150); at 150 jobs 3 and 5. EASY would have started job 3 at 20.
    r = schedlab.run(trace=small_swf, scheduler=Priority(lambda w: w[:, 3], backfill=None))
    assert list(r.jobs["start"]) == [0, 100, 150, 30, 150]


def test_what_the_function_sees(small_swf):
    seen = []

    def record(w):
        seen.append(w.copy())
        return np.zeros(len(w))

    schedlab.run(trace=small_swf, scheduler=Priority(record, backfill=None))
    assert all(w.dtype == np.float64 and w.shape[1] == len(Priority.COLUMNS) for w in seen)
    assert Priority.COLUMNS == ("job", "submit", "wait", "estimate", "procs", "user", "free")
    # At 10 job 2 (row 1) waits alone with 4 processors free: it has waited 0 s.
    first_wait = next(w for w in seen if w[0, 0] == 1)
    assert list(first_wait[0]) == [1, 10, 0, 60, 8, 7, 4]


def test_scores_may_be_a_list_and_nan_ranks_last(small_swf):
    r = schedlab.run(trace=small_swf, scheduler=Priority(lambda w: [float("nan")] * len(w), backfill=None))
    fifo = schedlab.run(trace=small_swf, scheduler="fcfs")
    assert list(r.jobs["start"]) == list(fifo.jobs["start"])


def test_errors():
    def boom(w):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        schedlab.run(**MODEL, scheduler=Priority(boom))
    with pytest.raises(ValueError, match="returned 1 scores for"):
        schedlab.run(**MODEL, scheduler=Priority(lambda w: [0.0]))
    with pytest.raises(ValueError, match="one number per waiting job"):
        schedlab.run(**MODEL, scheduler=Priority(lambda w: "x"))
    with pytest.raises(TypeError, match="callable"):
        Priority(3)
    with pytest.raises(ValueError, match="backfill = 'eazy'"):
        Priority(by_arrival, backfill="eazy")
    with pytest.raises(ValueError, match="predictor does not apply"):
        schedlab.run(**MODEL, scheduler=Priority(by_arrival), predictor="perfect")
