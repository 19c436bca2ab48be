#!/usr/bin/env python3
"""Parallel scaling of sweeps and of the GA: wall time at several thread counts.

For each sweep file, runs `schedlab sweep FILE --threads T` for every T (alternating the
thread counts within each round, so a slow spell of a shared machine hits them all), keeps
the median wall time of the rounds, and prints speedup over one thread and parallel
efficiency (speedup / T). It also checks that every thread count wrote the same
runs.csv and summary.csv bytes: scaling that changes results is not scaling.

`--ga SPEC` times one `schedlab run` of the GA (its fitness evaluation is the parallel
part) with RAYON_NUM_THREADS=T, and checks that its JSON summary is the same for every T.

    python3 benches/scaling.py --bin target/release/schedlab --threads 1,2 \
        --rounds 3 sweeps/quick.toml
"""

import argparse
import filecmp
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env=None):
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"scaling: {shlex.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return wall, done.stdout


def table(title, walls, threads):
    base = statistics.median(walls[threads[0]]) * threads[0]
    print(f"\n{title}")
    print("| threads | median wall (s) | rounds (s) | speedup | efficiency |")
    print("|---|---|---|---|---|")
    for t in threads:
        median = statistics.median(walls[t])
        rounds = ", ".join(f"{w:.2f}" for w in walls[t])
        speedup = base / median
        print(f"| {t} | {median:.2f} | {rounds} | {speedup:.2f} | {speedup / t:.1%} |")


def sweep(binary, path, threads, rounds, scratch):
    walls = {t: [] for t in threads}
    outs = {t: os.path.join(scratch, f"{os.path.basename(path)}-{t}") for t in threads}
    for r in range(rounds):
        order = threads if r % 2 == 0 else threads[::-1]
        for t in order:
            cmd = [binary, "sweep", path, "--threads", str(t), "--out", outs[t], "--force", "--quiet"]
            walls[t].append(timed(cmd)[0])
    for t in threads[1:]:
        for name in ("runs.csv", "summary.csv"):
            a, b = os.path.join(outs[threads[0]], name), os.path.join(outs[t], name)
            if not filecmp.cmp(a, b, shallow=False):
                sys.exit(f"scaling: {path}: {name} differs between {threads[0]} and {t} threads")
    table(f"{path} (outputs identical across thread counts)", walls, threads)


def ga(binary, spec, threads, rounds):
    walls = {t: [] for t in threads}
    summaries = {}
    cmd = [binary, "run", *shlex.split(spec), "--json"]
    for r in range(rounds):
        order = threads if r % 2 == 0 else threads[::-1]
        for t in order:
            env = dict(os.environ, RAYON_NUM_THREADS=str(t))
            wall, out = timed(cmd, env)
            walls[t].append(wall)
            summaries.setdefault(t, out)
    if len(set(summaries.values())) != 1:
        sys.exit("scaling: the GA's summary depends on the thread count")
    table(f"schedlab run {spec} (summary identical across thread counts)", walls, threads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweeps", nargs="*", help="sweep files")
    parser.add_argument("--bin", default="target/release/schedlab")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ga", action="append", default=[], help="`schedlab run` arguments of a GA run")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    print(f"cores: {os.cpu_count()}, rounds: {args.rounds}, binary: {args.bin}")
    with tempfile.TemporaryDirectory() as scratch:
        for path in args.sweeps:
            sweep(args.bin, path, threads, args.rounds, scratch)
    for spec in args.ga:
        ga(args.bin, spec, threads, args.rounds)


if __name__ == "__main__":
    main()
