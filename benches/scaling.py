#!/usr/bin/env python3
"""Parallel scaling of sweeps and of the GA: wall time at several thread counts.

For each sweep file, runs `schedlab sweep FILE --threads T` for every T (alternating the
thread counts within each round, so a slow spell of a shared machine hits them all), keeps
the median wall time of the rounds, and prints speedup over one thread and parallel
efficiency (speedup / T), with each run's CPU time and peak resident memory (`wait4`). It
also checks that every thread count wrote the same runs.csv and summary.csv bytes:
scaling that changes results is not scaling.

`--ga SPEC` times one `schedlab run` of the GA (its fitness evaluation is the parallel
part) with RAYON_NUM_THREADS=T, and checks that its JSON summary is the same for every T.

Several `--bin` compare builds side by side: each round runs every build at every thread
count (in alternating order), each build gets its own table, and all must write the same
bytes.

`--processes` also runs, for each thread count T above 1, T processes of one thread at once,
one shard of the sweep each (`--shard K/T`): the same tasks without sharing an address
space. If one process of T threads spends more CPU than T processes, the cost is in the
process (allocator, page faults, locks); if both spend alike, it is the machine's (caches,
memory bandwidth, clock speed with every core busy).

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


# The current table's runs: CPU seconds (user + system) and peak resident memory (KiB) of
# each, by (build, threads).
USAGE = {}


def timed(cmd, env=None, key=None):
    """Runs `cmd`; returns its wall seconds and output, and records its CPU time and peak
    memory under `key` (from `wait4`, the child's own, not the maximum over children)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"scaling: {shlex.join(cmd)} failed ({code}):\n{stderr}")
    if key is not None:
        USAGE.setdefault(key, []).append((usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
    return wall, stdout


def table(title, walls, threads, build):
    base = statistics.median(walls[threads[0]]) * threads[0]
    print(f"\n{title}")
    print("| threads | median wall (s) | rounds (s) | speedup | efficiency | median CPU (s) | peak memory (MiB) |")
    print("|---|---|---|---|---|---|---|")
    for t in threads:
        median = statistics.median(walls[t])
        rounds = ", ".join(f"{w:.2f}" for w in walls[t])
        speedup = base / median
        usage = USAGE.get((build, t), [])
        cpu = statistics.median(u[0] for u in usage) if usage else float("nan")
        peak = max(u[1] for u in usage) / 1024 if usage else float("nan")
        print(f"| {t} | {median:.2f} | {rounds} | {speedup:.2f} | {speedup / t:.1%} | {cpu:.2f} | {peak:.0f} |")


def alternating(items, r):
    return items if r % 2 == 0 else items[::-1]


def shards(binary, path, t, out):
    """Runs `path` as `t` one-thread processes at once, shard k of t each; returns the wall
    seconds until the last ends and the CPU seconds of each."""
    start = time.perf_counter()
    children = [
        subprocess.Popen(
            [binary, "sweep", path, "--threads", "1", "--shard", f"{k}/{t}", "--out", f"{out}-{k}", "--force", "--quiet"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for k in range(t)
    ]
    cpu = []
    for child in children:
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"scaling: shard of {path} failed")
        cpu.append(usage.ru_utime + usage.ru_stime)
    return time.perf_counter() - start, cpu


def sweep(binaries, path, threads, rounds, scratch, processes):
    USAGE.clear()
    runs = [(b, t) for t in threads for b in range(len(binaries))]
    walls = {run: [] for run in runs}
    split = {run: [] for run in runs if processes and run[1] > 1}
    outs = {run: os.path.join(scratch, f"{os.path.basename(path)}-{run[0]}-{run[1]}") for run in runs}
    for r in range(rounds):
        for b, t in alternating(runs, r):
            cmd = [binaries[b], "sweep", path, "--threads", str(t), "--out", outs[b, t], "--force", "--quiet"]
            walls[b, t].append(timed(cmd, key=(b, t))[0])
            if (b, t) in split:
                split[b, t].append(shards(binaries[b], path, t, outs[b, t] + "-shard"))
    for (b, t), measured in split.items():
        print(f"\n{path}, {binaries[b]}: {t} one-thread processes, one shard each")
        print("| round | wall (s) | CPU, all processes (s) | CPU of the busiest (s) |")
        print("|---|---|---|---|")
        for r, (wall, cpu) in enumerate(measured):
            print(f"| {r} | {wall:.2f} | {sum(cpu):.2f} | {max(cpu):.2f} |")
    for run in runs[1:]:
        for name in ("runs.csv", "summary.csv"):
            a, b = os.path.join(outs[runs[0]], name), os.path.join(outs[run], name)
            if not filecmp.cmp(a, b, shallow=False):
                sys.exit(f"scaling: {path}: {name} differs between {runs[0]} and {run} (build, threads)")
    for b, binary in enumerate(binaries):
        per = {t: walls[b, t] for t in threads}
        table(f"{path}, {binary} (outputs identical across thread counts and builds)", per, threads, b)


def ga(binaries, spec, threads, rounds):
    USAGE.clear()
    runs = [(b, t) for t in threads for b in range(len(binaries))]
    walls = {run: [] for run in runs}
    summaries = set()
    for r in range(rounds):
        for b, t in alternating(runs, r):
            env = dict(os.environ, RAYON_NUM_THREADS=str(t))
            wall, out = timed([binaries[b], "run", *shlex.split(spec), "--json"], env, key=(b, t))
            walls[b, t].append(wall)
            summaries.add(out)
    if len(summaries) != 1:
        sys.exit("scaling: the GA's summary depends on the thread count or the build")
    for b, binary in enumerate(binaries):
        per = {t: walls[b, t] for t in threads}
        table(f"schedlab run {spec}, {binary} (summary identical across thread counts)", per, threads, b)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweeps", nargs="*", help="sweep files")
    parser.add_argument("--bin", action="append", help="schedlab binary (repeatable; default target/release/schedlab)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ga", action="append", default=[], help="`schedlab run` arguments of a GA run")
    parser.add_argument(
        "--processes", action="store_true", help="also run each sweep as T one-thread processes, one shard each"
    )
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    binaries = args.bin or ["target/release/schedlab"]
    print(f"cores: {os.cpu_count()}, rounds: {args.rounds}, builds: {', '.join(binaries)}")
    with tempfile.TemporaryDirectory() as scratch:
        for path in args.sweeps:
            sweep(binaries, path, threads, args.rounds, scratch, args.processes)
    for spec in args.ga:
        ga(binaries, spec, threads, args.rounds)


if __name__ == "__main__":
    main()
