"""A sweep run from Python against the same sweep from the command line: sweeps/quick.toml
with --threads 2, medians of 3 alternating rounds. Needs the release binary
(cargo build --release) and the package (pip install ./python).

    python benches/python/sweep_overhead.py
"""

import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import schedlab

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "sweeps" / "quick.toml"
BINARY = ROOT / "target" / "release" / "schedlab"


def main():
    cli, py = [], []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(3):
            started = time.perf_counter()
            subprocess.run(
                [BINARY, "sweep", SPEC, "--threads", "2", "--quiet", "--force", "--out", f"{out}/cli"],
                check=True,
                capture_output=True,
            )
            cli.append(time.perf_counter() - started)
            started = time.perf_counter()
            schedlab.sweep(SPEC, threads=2, out=f"{out}/py", force=True)
            py.append(time.perf_counter() - started)
        same = all(
            (Path(out) / "cli" / f).read_bytes() == (Path(out) / "py" / f).read_bytes()
            for f in ("runs.csv", "summary.csv")
        )
    c, p = statistics.median(cli), statistics.median(py)
    print(f"command line {c:.2f} s, Python {p:.2f} s: {100 * (p / c - 1):+.1f}% (same outputs: {same})")


if __name__ == "__main__":
    main()
