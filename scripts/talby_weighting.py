#!/usr/bin/env python3
"""Relative accuracy of SJBF + Constant 1 s against EASY when each job's predictions are
weighted from its submission (Talby et al.'s Equation 2, and schedlab's metric) or only
from its start, on the four logs: the experiment behind the ledger's Table 6 row. Given a
baseline predictor and a predictor, SJBF with the one against SJBF with the other (the
experiment behind the ledger's row on the unbalanced no-estimate SBH).

    cargo build --release && python3 scripts/talby_weighting.py
    python3 scripts/talby_weighting.py 'ruh(k=3,stat=median,prop=true)' 'sbh-noest(growth=unbalanced)'

Runs target/release/schedlab with --jobs-out into a temporary folder; standard library only.
"""
import csv
import os
import subprocess
import sys
import tempfile

LOGS = ["CTC-SP2-1996-3.1", "SDSC-SP2-1998-4.2", "KTH-SP2-1996-2.1", "SDSC-BLUE-2000-4.2"]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
schedlab = os.path.join(root, "target", "release", "schedlab")


def accuracy(runtime, prediction):
    if runtime == prediction:
        return 1.0
    return runtime / prediction if runtime < prediction else prediction / runtime


def relative_accuracy(path, from_start):
    """Mean over jobs of the time-weighted accuracy, from submit or from start to end."""
    total, n = 0.0, 0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            runtime, end = int(row["runtime"]), int(row["end"])
            begin = int(row["start"] if from_start else row["submit"])
            if end <= begin:  # a job that ran for 0 s: schedlab's own figure
                total, n = total + float(row["relative_accuracy"]), n + 1
                continue
            held = [tuple(map(int, p.split(":"))) for p in row["predictions"].split(";") if p]
            weighted = 0.0
            for i, (since, prediction) in enumerate(held):
                until = held[i + 1][0] if i + 1 < len(held) else end
                span = until - max(since, begin)
                if span > 0:
                    weighted += accuracy(runtime, prediction) * span
            total, n = total + weighted / (end - begin), n + 1
    return total / n


if not os.path.exists(schedlab):
    sys.exit(f"{schedlab} not found: run cargo build --release first")
if len(sys.argv) == 3:
    RUNS = (("baseline", ["--scheduler", "sjbf", "--predictor", sys.argv[1]]),
            ("predictor", ["--scheduler", "sjbf", "--predictor", sys.argv[2]]))
    names = (f"SJBF + {sys.argv[1]}", f"SJBF + {sys.argv[2]}")
elif len(sys.argv) == 1:
    RUNS = (("baseline", ["--scheduler", "easy"]), ("predictor", ["--scheduler", "sjbf", "--predictor", "constant(c=1)"]))
    names = ("EASY", "Constant 1 s")
else:
    sys.exit("usage: talby_weighting.py [BASELINE_PREDICTOR PREDICTOR]")
print(f"| log | {names[0]} | {names[1]}, from submit | gain | {names[1]}, from start | gain |")
print("|---|---|---|---|---|---|")
gains = {False: [], True: []}
with tempfile.TemporaryDirectory() as tmp:
    for log in LOGS:
        trace = os.path.join(root, "..", "shared", "traces", f"{log}-cln.swf.gz")
        if not os.path.exists(trace):
            sys.exit(f"{trace} not found: this experiment needs the logs in ../shared/traces")
        out = {}
        for name, args in RUNS:
            out[name] = os.path.join(tmp, f"{log}-{name}.csv")
            subprocess.run([schedlab, "run", "--trace", trace, *args, "--jobs-out", out[name]],
                           check=True, stdout=subprocess.DEVNULL)
        base = relative_accuracy(out["baseline"], False)
        cells = [f"{base:.3f}"]
        for from_start in (False, True):
            x = relative_accuracy(out["predictor"], from_start)
            gains[from_start].append((x - base) / base)
            cells += [f"{x:.3f}", f"{100 * gains[from_start][-1]:.0f}%"]
        print(f"| {log} | " + " | ".join(cells) + " |")
mean = {k: f"{100 * sum(v) / len(v):.0f}%" for k, v in gains.items()}
print(f"| mean gain | | | {mean[False]} | | {mean[True]} |")
