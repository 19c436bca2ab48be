"""The claims ledger that heads each results/<paper>/README.md: one row per claim of the
paper, the paper's figure, schedlab's and a verdict reached by a stated rule, so that the
ledger is regenerated from the committed results and never copied by hand.

Verdicts:
  reproduced      every figure within its tolerance of the paper's (or the ordinal claim holds);
  shape only      same direction as the paper (every difference has the paper's sign, every
                  ordering holds) but some figure outside its tolerance; for a claim over
                  cases, more than half of the cases hold (`over_cases`);
  not reproduced  some direction differs from the paper's (a gain against a loss, however
                  small both are; `compare`);
  not attempted   schedlab cannot measure it (the row says why).

Imported by the scripts/*_tables.py scripts; uses only the standard library.
"""
import csv
import math
import os
from collections import namedtuple

REPRODUCED = "reproduced"
SHAPE = "shape only"
NOT_REPRODUCED = "not reproduced"
NOT_ATTEMPTED = "not attempted"


# A mean and its confidence interval as summary.csv gives it (low and high None where there
# is none): inside the metric's range, so not always symmetric (docs/sweeps.md).
Estimate = namedtuple("Estimate", "mean low high")


def read_summary(folder, axes):
    """summary.csv as {(axis values..., metric): Estimate}, axis values as written."""
    stats = {}
    with open(os.path.join(folder, "summary.csv"), newline="") as f:
        for row in csv.DictReader(f):
            key = tuple(row[a] for a in axes) + (row["metric"],)
            low, high = (float(row[c]) if row[c] else math.nan for c in ("ci_low", "ci_high"))
            bounded = math.isfinite(low) and math.isfinite(high)
            stats[key] = Estimate(float(row["mean"]), low if bounded else None, high if bounded else None)
    return stats


def show(estimate, write):
    """An Estimate as summary.md writes one, its numbers by `write`: "mean ± half" where the
    interval is symmetric as written, "mean [low, high]" where not, the mean alone without one."""
    mean, low, high = estimate
    if low is None:
        return write(mean)
    below, above = write(mean - low), write(high - mean)
    if below == above:
        return f"{write(mean)} ± {above}"
    return f"{write(mean)} [{write(low)}, {write(high)}]"


def compare(paper, ours, tolerance):
    """The verdict on figures that should match: `paper` and `ours` are equal-length lists,
    `tolerance` an absolute difference allowed per figure. A gain against a loss is never
    the same direction, however small both are; none against either is the same direction
    only within the tolerance."""
    def same_direction(p, o):
        if p * o < 0:
            return False
        if p == 0 or o == 0:
            return abs(p - o) <= tolerance
        return True

    if not all(same_direction(p, o) for p, o in zip(paper, ours)):
        return NOT_REPRODUCED
    if all(abs(p - o) <= tolerance for p, o in zip(paper, ours)):
        return REPRODUCED
    return SHAPE


def holds(condition, near=None):
    """The verdict on an ordinal claim: reproduced if it holds; shape only if `near` (a
    weaker form of it) holds; else not reproduced."""
    if condition:
        return REPRODUCED
    return SHAPE if near else NOT_REPRODUCED


# Student's t quantile at 97.5% by degrees of freedom (the normal's beyond 30).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
         2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
         2.048, 2.045, 2.042]


def interval(values):
    """Mean and 95% Student-t half-width of `values` (half-width NaN for fewer than 2)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    t = _T975[n - 2] if n - 1 <= len(_T975) else 1.96
    return mean, t * sd / math.sqrt(n)


def read_runs(folder, axes, metrics):
    """runs.csv as {(axis values...): {rep: {metric: value}}}."""
    runs = {}
    with open(os.path.join(folder, "runs.csv"), newline="") as f:
        for row in csv.DictReader(f):
            key = tuple(row[a] for a in axes)
            runs.setdefault(key, {})[int(row["rep"])] = {m: float(row[m]) for m in metrics}
    return runs


def over_cases(flags):
    """The verdict on a claim over several cases: reproduced if it holds in every case;
    shape only if it holds in most of them (more than half); else not reproduced."""
    flags = list(flags)
    return holds(all(flags), 2 * sum(flags) > len(flags))


def worst(*verdicts):
    """The verdict on a claim of several parts: its weakest part's."""
    order = [REPRODUCED, SHAPE, NOT_REPRODUCED, NOT_ATTEMPTED]
    return max(verdicts, key=order.index)


def pct(x):
    """A fraction as a whole percentage, -0 written 0."""
    value = round(100 * x)
    return f"{value + 0}%"


def pcts(xs):
    return " / ".join(pct(x) for x in xs)


def cell(text):
    """A Markdown table cell: predictor names such as sbh(criteria=PE|P|E|*) hold pipes."""
    return str(text).replace("|", "\\|")


class Ledger:
    """Rows of `| # | claim | paper | schedlab | verdict |`, printed as one Markdown table."""

    def __init__(self, interval_note):
        self.rows = []
        self.interval_note = interval_note

    def claim(self, where, text, paper, ours, verdict):
        self.rows.append((where, text, paper, ours, verdict))

    def print(self):
        print("| # | claim (where) | paper | schedlab | verdict |")
        print("|---|---|---|---|---|")
        for i, (where, text, paper, ours, verdict) in enumerate(self.rows, 1):
            print(f"| {i} | {cell(text)} ({where}) | {cell(paper)} | {cell(ours)} | {verdict} |")
        counts = {}
        for row in self.rows:
            verdict = row[4].split(":")[0]  # "not attempted: why"
            counts[verdict] = counts.get(verdict, 0) + 1
        order = [REPRODUCED, SHAPE, NOT_REPRODUCED, NOT_ATTEMPTED]
        print()
        print(f"{len(self.rows)} claims: " + ", ".join(f"{counts[v]} {v}" for v in order if v in counts) + ". "
              + self.interval_note)
        print()
