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

Every claim not reproduced names an experiment (`experiment=`): the sweep or command whose
output shows why, and what it shows, or that the cause is still open. A ledger with a
claim not reproduced and no experiment is refused (the script exits), so a result that
turns a verdict makes its author say why.

A paired difference with its 95% interval (`compare_paired`) is judged by the interval:
its direction is the paper's only when the interval lies wholly on the paper's side of 0,
the other one only when it lies wholly on the other side. An interval across 0 does not
tell the direction; there the size decides: reproduced within the tolerance, not
reproduced beyond it.

Imported by the scripts/*_tables.py scripts; uses only the standard library.

With `--claims-csv` among its arguments, a ledger script prints its ledger as CSV instead
of its README block: results/<paper>/claims.csv (scripts/refresh_ledgers.py writes it,
tests/it/ledgers.rs checks it), one row per claim:

  id, claim, where (in the paper), paper (its figure), schedlab (ours, as in the README),
  interval (the intervals written in ours, empty where it has none), verdict, evidence
  (the command and the sweep files behind it, then the experiment's), explanation (why a
  claim is not attempted, what the row adds, or what the experiment shows; the README's
  prose holds the longer reasons).
"""
import csv
import io
import math
import os
import re
import sys
from collections import namedtuple

# `--claims-csv`: the ledger goes to stdout as CSV and the script's other output nowhere.
CLAIMS_CSV = "--claims-csv" in sys.argv
if CLAIMS_CSV:
    sys.argv.remove("--claims-csv")
    _stdout, sys.stdout = sys.stdout, io.StringIO()

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
            stats[tuple(row[a] for a in axes) + (row["metric"],)] = estimate_of(row)
    return stats


def estimate_of(row):
    """A summary.csv row's mean and interval."""
    mean, low, high = (float(row[c]) if row[c] else math.nan for c in ("mean", "ci_low", "ci_high"))
    bounded = math.isfinite(low) and math.isfinite(high)
    return Estimate(mean, low if bounded else None, high if bounded else None)


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
    `tolerance` the absolute difference allowed, one for all figures or a list with one per
    figure. A gain against a loss is never the same direction, however small both are; none
    against either is the same direction only within the figure's tolerance."""
    tolerances = tolerance if isinstance(tolerance, list) else [tolerance] * len(paper)

    def same_direction(p, o, tol):
        if p * o < 0:
            return False
        if p == 0 or o == 0:
            return abs(p - o) <= tol
        return True

    figures = list(zip(paper, ours, tolerances))
    if not all(same_direction(p, o, tol) for p, o, tol in figures):
        return NOT_REPRODUCED
    if all(abs(p - o) <= tol for p, o, tol in figures):
        return REPRODUCED
    return SHAPE


def compare_paired(paper, mean, half, tolerance):
    """The verdict on one paired difference with its interval (mean ± half, half NaN without
    one): reproduced if the mean is within `tolerance` of the paper's figure and the
    interval does not lie wholly on the other side of 0; shape only if the interval lies
    wholly on the paper's side of 0 but the mean is farther off; else not reproduced (the
    interval lies on the other side, or it cannot tell the direction and the paper's figure
    is out of tolerance)."""
    if half != half:  # no interval: the rule for a bare figure
        return compare([paper], [mean], tolerance)
    low, high = mean - half, mean + half
    opposite = (paper > 0 and high < 0) or (paper < 0 and low > 0)
    if abs(mean - paper) <= tolerance and not opposite:
        return REPRODUCED
    if (paper > 0 and low > 0) or (paper < 0 and high < 0):
        return SHAPE
    return NOT_REPRODUCED


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


def replications(folder, axes, metrics):
    """runs.csv as one table per replication, {(axis values..., metric): value}: the cells
    of a sweep replay the same workloads in a replication (docs/sweeps.md), so a figure
    computed from one table (a ratio, a difference, a best of several) is paired across
    cells, and `over_replications` gives it an interval."""
    tables = {}
    for key, reps in read_runs(folder, axes, metrics).items():
        for rep, values in reps.items():
            table = tables.setdefault(rep, {})
            for metric, value in values.items():
                table[key + (metric,)] = value
    return [tables[r] for r in sorted(tables)]


def over_replications(figure, tables):
    """`figure` (of one table: a number or a list of them) on every replication's table:
    one (mean, 95% Student-t half-width) per number."""
    values = [figure(t) for t in tables]
    values = [v if isinstance(v, list) else [v] for v in values]
    return [interval([v[i] for v in values]) for i in range(len(values[0]))]


def pm(estimates, write, write_half=None):
    """(mean, half) pairs as "mean ± half", " / " between: the mean written by `write`, the
    half by `write_half` (by `write` without one)."""
    write_half = write_half or write
    return " / ".join(f"{write(m)} ± {write_half(h)}" for m, h in estimates)


def compare_each(paper, estimates, tolerance):
    """Paired figures, each (mean, half), against the paper's, each by `compare_paired`
    (`tolerance` one for all or a list, one per figure): the weakest verdict."""
    tolerances = tolerance if isinstance(tolerance, list) else [tolerance] * len(paper)
    return worst(*(compare_paired(p, m, h, t) for p, (m, h), t in zip(paper, estimates, tolerances)))


def case_text(gaps, write, write_half=None, holding=None):
    """A claim over cases, from each case's paired gap (mean, half; positive where the claim
    holds): how many cases hold (`holding`, else those whose mean is positive), how many
    significantly either way, and the weakest case's gap."""
    holding = sum(m > 0 for m, _ in gaps) if holding is None else holding
    return (f"{holding} of {len(gaps)} ({sum(m - h > 0 for m, h in gaps)} significantly, "
            f"{sum(m + h < 0 for m, h in gaps)} significantly the other way; weakest "
            f"{pm([min(gaps)], write, write_half)})")


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


# An interval as the ledgers write one: "± 2.1%" or "[5,762, 5,891]".
_INTERVAL = re.compile(r"± [^ ;|)]+|\[[^\]]+\]")


def _evidence():
    """The command that made the ledger and the sweep files of the result folders it read."""
    script = os.path.relpath(sys.argv[0])
    folders = [a for a in sys.argv[1:] if a.startswith("results/")]
    sweeps = [f"sweeps/{os.path.basename(a.rstrip('/'))}.toml" for a in folders]
    return " ".join(["python3", script] + sys.argv[1:]) + (" (from " + ", ".join(sweeps) + ")" if sweeps else "")


class Ledger:
    """Rows of `| # | claim | paper | schedlab | verdict |`, printed as one Markdown table
    (or, with `--claims-csv`, as claims.csv)."""

    def __init__(self, interval_note):
        self.rows = []
        self.interval_note = interval_note

    def claim(self, where, text, paper, ours, verdict, evidence=None, explanation="", experiment=None):
        """A claim; `evidence` defaults to the ledger's command and sweep files;
        `experiment`, (its sweep files or command, what its output shows), is required of a
        claim not reproduced."""
        evidence = evidence or _evidence()
        if experiment:
            evidence = f"{evidence}; experiment: {experiment[0]}"
            explanation = "; ".join(x for x in (explanation, experiment[1]) if x)
        elif verdict == NOT_REPRODUCED:
            sys.exit(f"{os.path.relpath(sys.argv[0])}: claim {len(self.rows) + 1} ({text}) is not reproduced "
                     "and names no experiment that shows why")
        self.rows.append((where, text, paper, ours, verdict, evidence, explanation))

    def print(self):
        if CLAIMS_CSV:
            self._print_csv()
            return
        print("| # | claim (where) | paper | schedlab | verdict |")
        print("|---|---|---|---|---|")
        for i, (where, text, paper, ours, verdict, _, _) in enumerate(self.rows, 1):
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

    def _print_csv(self):
        """claims.csv on the real stdout, then the end of the script: nothing else it prints
        belongs in the file."""
        out = csv.writer(_stdout, lineterminator="\n")
        out.writerow(["id", "claim", "where", "paper", "schedlab", "interval", "verdict", "evidence", "explanation"])
        for i, (where, text, paper, ours, verdict, evidence, explanation) in enumerate(self.rows, 1):
            verdict, _, why = verdict.partition(": ")
            intervals = "; ".join(_INTERVAL.findall(str(ours)))
            out.writerow([i, text, where, paper, ours, intervals, verdict, evidence,
                          "; ".join(x for x in (why, explanation) if x)])
        _stdout.flush()
        sys.exit(0)
