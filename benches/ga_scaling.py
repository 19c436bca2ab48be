#!/usr/bin/env python3
"""Predicts one GA run's time on P threads from its one-thread counts (docs/performance.md,
"Islands"): its serial part, plus for each decision evolved by a team its rounds of rows and
one hand-over per generation.

    T(P) = S + sum over team decisions of (rounds x c x k + (generations + 1) x h)
    rounds = ceil(seed rows / P) + generations x ceil(bred rows / P)

The counts below were measured on one thread here (2026-11-29, SDSC-BLUE jobs 5000-10000,
a build that timed each decision and counted its generations and rows); k and h are fitted
as the docs say. Usage: python3 benches/ga_scaling.py
"""

import math

# scheduler: (one-thread run s, serial part s, team decisions, row cost us, seed rows,
#             bred rows a generation, generations)
RUNS = {
    "ga": (12.62, 0.47, 3743, 1.69, 20, 19, 100),
    "ga(population=33)": (29.08, 0.39, 3987, 2.23, 33, 32, 100),
    "ga(islands=4,generations=25)": (20.22, 0.09, 4817, 2.11, 80, 76, 25),
    "ga(islands=4)": (64.50, 0.09, 4804, 1.74, 80, 76, 100),
}


def predict(name, threads, k, h_us):
    _, serial, decisions, row_us, seeds, bred, generations = RUNS[name]
    rounds = math.ceil(seeds / threads) + generations * math.ceil(bred / threads)
    return serial + decisions * (rounds * row_us * k + (generations + 1) * h_us) * 1e-6


def fit_h(threads, k, measured):
    """The hand-over that makes the paper's GA take `measured` seconds on `threads`."""
    without = predict("ga", threads, k, 0.0)
    _, _, decisions, _, _, _, generations = RUNS["ga"]
    return (measured - without) / (decisions * (generations + 1) * 1e-6)


def main():
    # The lent machine: the paper's GA took 22.70 s on one thread and 5.28 s on 16; its
    # rows cost 22.70 / 12.62 times this machine's. 16 one-thread runs at once: +10% each.
    scale = 22.70 / RUNS["ga"][0]
    k16 = 1.1
    h16 = fit_h(16, k16, 5.28 / scale)
    # Here: the paper's GA used 14.13 s of CPU on 2 threads against 13.00 s on one.
    k2 = 14.125 / 13.0
    print(f"k at 16 threads {k16}, h {h16:.2f} us; k at 2 threads {k2:.3f}, h 0")
    print(f"{'scheduler':32} {'1 thread':>9} {'2 threads':>14} {'16 threads':>15} {'paper@1 over it':>16}")
    for name, run in RUNS.items():
        two = predict(name, 2, k2, 0.0)
        sixteen = predict(name, 16, k16, h16)
        print(
            f"{name:32} {run[0]:8.2f}s {two:6.2f}s {run[0] / two:5.2f}x "
            f"{sixteen:6.2f}s {run[0] / sixteen:5.1f}x {RUNS['ga'][0] / sixteen:15.1f}x"
        )


if __name__ == "__main__":
    main()
