#!/usr/bin/env python3
"""Talby et al.'s claims ledger and tables (2, 4, 5, 6 and the sensitivity claims of
sections 5.3 and 7), from sweeps of sweeps/talby.toml and sweeps/talby-sensitivity.toml;
the shaken rows from sweeps/talby-shaken.toml, CTC's machine sizes from
sweeps/talby-sizes.toml, the no-estimate SBH's threshold from sweeps/talby-noest.toml.

    python3 scripts/talby_table.py results/talby results/talby-sensitivity results/talby-shaken results/talby-sizes \
        results/talby-noest

Improvements are per log, then averaged over the four logs, as in the paper. For wait,
bounded slowdown and absolute inaccuracy (lower is better) the improvement over a baseline
B is (B - X) / B; for relative accuracy (higher is better), (X - B) / B.
Uses only the standard library; the ledger rules are in scripts/ledger.py.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ledger import (Ledger, NOT_ATTEMPTED, case_text, cell, compare_each, compare_paired, holds,  # noqa: E402
                    over_cases, over_replications, pct, pcts, pm)

main = sys.argv[1] if len(sys.argv) > 1 else "results/talby"
sensitivity = sys.argv[2] if len(sys.argv) > 2 else "results/talby-sensitivity"
shaken_folder = sys.argv[3] if len(sys.argv) > 3 else "results/talby-shaken"
sizes_folder = sys.argv[4] if len(sys.argv) > 4 else "results/talby-sizes"
noest_folder = sys.argv[5] if len(sys.argv) > 5 else "results/talby-noest"

METRICS = [("mean_wait", -1), ("mean_bsld", -1), ("absolute_inaccuracy", -1), ("relative_accuracy", 1)]
LOG_NAMES = {"SDSC-SP2-1998-4.2": "SDSP2", "CTC-SP2-1996-3.1": "CTC", "KTH-SP2-1996-2.1": "KTH",
             "SDSC-BLUE-2000-4.2": "BLUE"}
EASY = "easy"
RUH = "sjbf + ruh(k=3,stat=median,prop=true)"
RUH_NOPROP = "sjbf + ruh(k=3,stat=median,prop=false)"


def read(folder):
    """{(log, configuration, metric): mean} from summary.csv."""
    import csv
    means = {}
    with open(os.path.join(folder, "summary.csv"), newline="") as f:
        for row in csv.DictReader(f):
            log = os.path.basename(row["trace"]).split("-cln")[0]
            config = EASY if row["scheduler"] == "easy" else f"sjbf + {row['predictor']}"
            means[(log, config, row["metric"])] = float(row["mean"])
    return means


means = read(main)
sens = read(sensitivity)
logs = sorted({k[0] for k in means})


def gain(data, log, config, metric, baseline):
    sign = dict(METRICS).get(metric, -1)
    base, x = data[(log, baseline, metric)], data[(log, config, metric)]
    return sign * (x - base) / base


def average(data, config, metric, baseline=EASY):
    return sum(gain(data, log, config, metric, baseline) for log in logs) / len(logs)


def gains(data, config, baseline=EASY):
    return [average(data, config, m, baseline) for m, _ in METRICS]


def sbh(criteria, search="dfs", depth="unlimited", prop="true", think=None):
    extra = f",think={think}" if think else ""
    return f"sjbf + sbh(criteria={criteria},search={search},depth={depth},prop={prop}{extra})"


# Each log shaken 20 times (results/talby-shaken): one table like `means` per replication,
# every cell of a log replaying the same shaken workload, so that a figure computed on each
# replication's table is paired across configurations and has an interval over the 20.
SHAKEN_METRICS = [m for m, _ in METRICS] + ["backfilled", "jobs", "utilization", "p98_wait"]
# sweeps/talby.toml spells four configurations out, defaults included; talby-shaken does not.
NOEST = "sjbf + sbh-noest(criteria=PX|P|X|*,search=dfs,depth=unlimited,prop=false,think=1200,"
SPELLED_OUT = {sbh("PE|P|E|*"): sbh("PE|P|E|*", think=1200), sbh("E|P|X"): sbh("E|P|X", think=1200),
               "sjbf + sbh-noest(growth=balanced,prop=false)": NOEST + "growth=balanced,cap=100000)",
               "sjbf + sbh-noest(growth=unbalanced,prop=false)": NOEST + "growth=unbalanced)"}


def log_tables(folder, metrics, keep=lambda row: True):
    """runs.csv's rows that `keep` accepts as one table per replication, {(log, configuration,
    metric): value}, keyed like `means` and `sens` both."""
    import csv
    tables = {}
    with open(os.path.join(folder, "runs.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if not keep(row):
                continue
            log = os.path.basename(row["trace"]).split("-cln")[0]
            config = EASY if row.get("scheduler", "sjbf") == "easy" else f"sjbf + {row['predictor']}"
            table = tables.setdefault(int(row["rep"]), {})
            for metric in metrics:
                table[(log, config, metric)] = float(row[metric])
                if config in SPELLED_OUT:
                    table[(log, SPELLED_OUT[config], metric)] = float(row[metric])
    return [tables[r] for r in sorted(tables)]


shaken = log_tables(shaken_folder, SHAKEN_METRICS)
# The no-estimate SBH's growth threshold (results/talby-noest): as recorded, and shaken.
NOEST_METRICS = [m for m, _ in METRICS] + ["p98_wait"]
noest_single = log_tables(noest_folder, NOEST_METRICS, lambda row: row["resample"] == "none")[0]
noest_shaken = log_tables(noest_folder, NOEST_METRICS, lambda row: row["resample"] == "shake")
CAPS = [("10 h", 36000), ("70,000 s", 70000), ("10^5 s", 100000), ("10^6 s", 1000000)]
NOEST_VARIANTS = ([(f"balanced, {label}", f"sjbf + sbh-noest(growth=balanced,cap={cap})") for label, cap in CAPS]
                  + [("unbalanced", "sjbf + sbh-noest(growth=unbalanced)")])


def over_shaken(figure, tables=shaken):
    """`figure` (of one table, a number or a list of them) on every shaken replication's
    table: a (mean, half-width of its 95% interval) per number."""
    return over_replications(figure, tables)


def half_pct(h):
    return f"{100 * h:.1f}%"


def pct_pm(estimates):
    """Gains as "14% ± 0.4%"."""
    return pm(estimates, pct, half_pct)


def beside(single, estimates):
    """The log replayed once as recorded, then the shaken mean with its interval."""
    return f"{single}; shaken {pct_pm(estimates)}"


def significant(estimates):
    """How many of the (mean, half) lie above 0 on the mean, above 0 wholly, below 0 wholly."""
    return (sum(m > 0 for m, _ in estimates), sum(m - h > 0 for m, h in estimates),
            sum(m + h < 0 for m, h in estimates))




# Every claim of sections 3.4 to 7, in the paper's order. Each figure twice: the logs
# replayed once as recorded, and shaken, with its interval; the verdict reads the shaken one.
ledger = Ledger("Each figure is given twice: first on the four logs replayed once as recorded (results/talby and "
                "results/talby-sensitivity), then, after \"shaken\", the mean over 20 shaken replications of each "
                "log (results/talby-shaken) with its 95% interval, every difference paired replication by "
                "replication; the verdict reads the shaken figures. A case counts as significant when the interval "
                "of its paired gap excludes 0. Rows 34-44 re-score rows 2, 5-8 and 10 with CTC at other machine "
                "sizes (results/talby-sizes): variants of those claims, not further claims, counted in the totals "
                "all the same.")
TOL = 0.05  # five percentage points on an improvement averaged over four logs

PAPER_TABLE1 = {"SDSP2": (59725, 0.84), "CTC": (77222, 0.56), "KTH": (28490, 0.69), "BLUE": (243314, 0.76)}
TABLE1_EXPERIMENTS = {
    "SDSP2": ("schedlab trace info ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz",
              "the archive's version 4.2 of the log holds 59,715 jobs, 5,671 of them with an unknown (-1) runtime, "
              "which schedlab skips and counts: the paper read an earlier version"),
    "CTC": ("sweeps/talby-sizes.toml (row 34)",
            "the cleaned log's header declares 338 processors, where the utilisation is 84%; on the machine's 512 it "
            "is the paper's 55%"),
}
for log in sorted(logs, key=lambda lg: list(LOG_NAMES).index(lg)):
    name = LOG_NAMES[log]
    jobs, util = PAPER_TABLE1[name]
    our_jobs, our_util = sens[(log, EASY, "jobs")], sens[(log, EASY, "utilization")]
    [shaken_util] = over_shaken(lambda t: t[(log, EASY, "utilization")])
    ok = abs(our_jobs - jobs) <= 0.05 * jobs and abs(shaken_util[0] - util) <= 0.05
    ledger.claim("Table 1", f"{name}: jobs, utilisation (shaking keeps the jobs)", f"{jobs:,} / {pct(util)}",
                 beside(f"{our_jobs:,.0f} / {pct(our_util)}", [shaken_util]), holds(ok),
                 experiment=TABLE1_EXPERIMENTS.get(name))


def table2_tolerance(paper):
    """Each figure of a Table 2 row its own tolerance: five points on the wait and slowdown
    gains, 10% of the figure (at least five points) on the accuracy gains, as large as
    Perfect's 100% and 176%."""
    return [TOL, TOL] + [max(TOL, 0.1 * abs(p)) for p in paper[2:]]


TABLE2 = [("perfect", "Perfect", [0.22, 0.47, 1.00, 1.76]), ("estimate", "Estimate", [0.11, 0.22, 0, 0]),
          ("ruh(k=3,stat=median,prop=false)", "RUH without propagation", [0.18, 0.32, 0.40, 0.69]),
          ("ruh(k=3,stat=median,prop=true)", "RUH with propagation", [0.17, 0.32, 0.41, 0.71])]


def table2_rows(single, tables, where=""):
    """Table 2's four rows (`where` names the variant)."""
    for predictor, label, paper in TABLE2:
        config = f"sjbf + {predictor}"
        ours = over_shaken(lambda t: gains(t, config), tables)
        ledger.claim("Table 2", f"SJBF + {label} over EASY{where}: wait / bsld / abs. inacc. / rel. acc.",
                     pcts(paper), beside(pcts(gains(single, config)), ours),
                     compare_each(paper, ours, table2_tolerance(paper)))


def propagation_row(single, tables, where="", experiment=None):
    """Row 10: RUH's wait gain with and without propagation, and their paired difference."""
    figures = lambda t: [average(t, RUH, "mean_wait"), average(t, RUH_NOPROP, "mean_wait")]  # noqa: E731
    ours = over_shaken(figures, tables)
    [gap] = over_shaken(lambda t: figures(t)[0] - figures(t)[1], tables)
    ledger.claim("sec. 4", f"RUH almost the same with and without propagation{where} (wait gain; difference)",
                 "17% / 18%", beside(pcts(figures(single)), ours) + f"; {pct_pm([gap])}",
                 compare_paired(0, gap[0], gap[1], 0.02), experiment=experiment)


table2_rows(means, shaken)
[est] = over_shaken(lambda t: average(t, "sjbf + estimate", "mean_wait"))
ledger.claim("sec. 4", "EASY substantially inferior to SJBF even with the estimate (wait gain)",
             "11%", beside(pct(average(means, "sjbf + estimate", "mean_wait")), [est]),
             holds(est[0] >= TOL and est[0] - est[1] > 0, est[0] - est[1] > 0))
propagation_row(means, shaken, experiment=(
    "sweeps/talby-sizes.toml (rows 39 and 44)",
    "with CTC on 430 or 512 processors, near the paper's load, the difference is within 2 points (rows 39 and 44): "
    "without propagation every job of a burst keeps the prediction it got on arrival, and on the header's 338 "
    "processors (84% load) CTC's bursts wait long enough for that to matter"))
share_of_perfect = lambda t: average(t, RUH, "mean_wait") / average(t, "sjbf + perfect", "mean_wait")  # noqa: E731
[share] = over_shaken(share_of_perfect)
ledger.claim("sec. 4", "RUH reaches about two thirds of Perfect's wait gain (RUH's gain over Perfect's)",
             "17/22 = 77%", beside(pct(share_of_perfect(means)), [share]),
             holds(0.6 <= share[0] <= 0.85, share[0] > 0.4))

TABLE4 = [("PE|P|E|*", [0.05, 0.04, 0.05, 0.02]), ("E|P|X", [0.04, 0.08, 0.09, 0.03])]
by_depth = [sens[("CTC-SP2-1996-3.1", sbh("E|P|X", depth=d), "mean_wait")] for d in ("1", "3", "10", "30", "unlimited")]
for criteria, paper in TABLE4:
    config = sbh(criteria, think=1200)
    ours = over_shaken(lambda t: gains(t, config, RUH))
    ledger.claim("Table 4", f"SBH unlimited DFS [{criteria}] with propagation over RUH: wait / bsld / abs. / rel.",
                 pcts(paper), beside(pcts(gains(means, config, RUH)), ours), compare_each(paper, ours, TOL),
                 experiment=("sweeps/talby-shaken.toml, sweeps/talby-resampled.toml, sweeps/talby-sensitivity.toml",
                             "SBH's accuracy gains over RUH are the paper's, its wait gains are not: on shaken and on "
                             "user-resampled logs both lists wait significantly longer than RUH, and one replay's mean "
                             f"wait moves by more than the paper's 4-5% with the search depth alone (CTC, E|P|X: "
                             f"{min(by_depth):,.0f} to {max(by_depth):,.0f} s over depths 1 to unlimited); the paper's "
                             "wait gains are of the size of a single replay's chaotic variation"))


def best_sbh(t):
    """The better wait gain over EASY of Table 4's two lists; both absolute inaccuracies."""
    return ([max(average(t, sbh(c, think=1200), "mean_wait") for c, _ in TABLE4)]
            + sorted(average(t, sbh(c, think=1200), "absolute_inaccuracy") for c, _ in TABLE4))


ours = over_shaken(best_sbh)
single = best_sbh(means)
ledger.claim("sec. 5.3", "best SBH over EASY: wait; absolute inaccuracy of the two", "24%; 47% and 53%",
             f"{pct(single[0])}; {pct(single[1])} and {pct(single[2])}; shaken {pct_pm(ours)}",
             compare_each([0.24, 0.47, 0.53], ours, TOL))


def depth_losses(t, depth):
    """The wait of a search `depth` sessions back relative to the unlimited one, per (list, log)."""
    return [(t[(log, sbh(c, depth=depth), "mean_wait")] - t[(log, sbh(c), "mean_wait")])
            / t[(log, sbh(c), "mean_wait")] for c, _ in TABLE4 for log in logs]


mean_loss = lambda t: [sum(depth_losses(t, d)) / len(depth_losses(t, d)) for d in ("1", "3")]  # noqa: E731
short = over_shaken(mean_loss)
ledger.claim("sec. 5.3", "searching fewer than 10 sessions back worsens wait (depth 1; 3, mean loss over lists "
             "and logs)", "worse", beside(pcts(mean_loss(sens)), short),
             holds(all(m - h > 0 for m, h in short), all(m > 0 for m, _ in short)))
thirty = over_shaken(lambda t: depth_losses(t, "30"))
lower, above, below = significant(thirty)
ledger.claim("sec. 5.3", f"30 sessions back: wait 2-3% worse than unlimited, in all logs (range over lists and "
             f"logs; shaken, cases worse of {len(thirty)})", "2% to 3%",
             f"{pct(min(depth_losses(sens, '30')))} to {pct(max(depth_losses(sens, '30')))}; shaken "
             f"{pct(min(m for m, _ in thirty))} to {pct(max(m for m, _ in thirty))}, "
             + case_text(thirty, pct, half_pct),
             holds(all(0.01 <= m <= 0.04 for m, _ in thirty) and below == 0, lower > len(thirty) / 2 and above > below))

LISTS = ["PE|P|E|*", "E|P|X", "PEX|PX|EX", "PEX|PE|P|*", "PX|P|X|*"]


def gaps(better, worse, combos, metric):
    """Per (combination, log) case, (worse - better) / worse in `metric`: positive when
    `better` is lower."""
    def figure(t):
        return [(t[(log, worse(*args), metric)] - t[(log, better(*args), metric)]) / t[(log, worse(*args), metric)]
                for args in combos for log in logs]
    return figure


def case_rows(name, better, worse, combos, paper_share, share_rule, paper_gaps, experiment=None):
    """Two claims on `better` against `worse` over cases: the share of cases it has the
    lower wait, and its mean gaps in wait and in absolute inaccuracy."""
    wait = gaps(better, worse, combos, "mean_wait")
    single = wait(sens)
    cases = over_shaken(wait)
    lower, above, below = significant(cases)
    n = len(cases)
    ledger.claim("sec. 5.3", f"{name}: share of {n} cases (wait)", paper_share,
                 f"{pct(sum(x > 0 for x in single) / n)}; shaken {pct(lower / n)}, "
                 + case_text(cases, pct, half_pct), share_rule(lower / n, above, below), experiment=experiment)
    mean_gaps = lambda t: [sum(f(t)) / n for f in (wait, gaps(better, worse, combos, "absolute_inaccuracy"))]  # noqa
    ours = over_shaken(mean_gaps)
    ledger.claim("sec. 5.3", f"{name}: mean gap in wait; in absolute inaccuracy", pcts(paper_gaps).replace(" /", ";"),
                 f"{pct(mean_gaps(sens)[0])}; {pct(mean_gaps(sens)[1])}; shaken {pct_pm(ours)}",
                 compare_each(paper_gaps, ours, TOL), experiment=experiment)


case_rows("DFS beats BFS", lambda c, p: sbh(c, "dfs", prop=p), lambda c, p: sbh(c, "bfs", prop=p),
          [(c, p) for c in LISTS for p in ("true", "false")], "over 90%",
          lambda share, above, below: holds(share >= 0.85, share > 0.5 and above > below), [0.05, 0.17],
          ("sweeps/talby-shaken.toml (this row's shaken cases)",
           "over 20 shaken workloads per log the search order changes the mean wait significantly both ways (the "
           "shaken cases of this row), and DFS's accuracy gain is far below the paper's (the next row): the order "
           "matters little here; why it mattered in the paper's runs is not found"))
loose = lambda t: [average(t, sbh(c), "mean_wait", RUH) for c in ("*", "PEX|*")]  # noqa: E731
ours = over_shaken(loose)
ledger.claim("sec. 5.3", "proximity alone ([*]; [PEX,*]) is worse than RUH (wait gain over RUH)", "below 0",
             beside(pcts(loose(sens)), ours), holds(all(m + h < 0 for m, h in ours), all(m < 0 for m, _ in ours)),
             experiment=("sweeps/talby-shaken.toml, sweeps/talby-sensitivity.toml",
                         "[PEX,*] waits significantly longer than RUH, as the paper says; [*] alone is the median of "
                         "the user's most recent session, close to RUH's median of the last three jobs, and a little "
                         "more accurate than RUH here (the sensitivity table), which is why it does not lose"))
case_rows("propagation preferable", lambda c, x: sbh(c, x, prop="true"), lambda c, x: sbh(c, x, prop="false"),
          [(c, x) for c in LISTS for x in ("dfs", "bfs")], "75%",
          lambda share, above, below: holds(abs(share - 0.75) <= 0.1, share > 0.5 and above > below), [0.10, 0.06])
thinks = lambda t: [average(t, sbh(c, think=x), "mean_wait", RUH) - average(t, sbh(c), "mean_wait", RUH)  # noqa
                    for c, _ in TABLE4 for x in (300, 4800)]
ours = over_shaken(thinks)
ledger.claim("sec. 5.2", "other think-time thresholds (5, 80 min) are not consistently better than 20 min "
             "(wait gain over RUH, change from 20 min)", "not consistently better", beside(pcts(thinks(sens)), ours),
             holds(not all(m > 0 for m, _ in ours), not all(m - h > 0 for m, h in ours)))

# The balanced variant's wait gain over RUH at each growth threshold (results/talby-noest).
by_cap = {label: over_replications(lambda t: average(t, config, "mean_wait", RUH), noest_shaken)[0]
          for label, config in NOEST_VARIANTS}
cap_text = ", ".join(f"{label.replace('balanced, ', '')} {pct_pm([e])}" for label, e in by_cap.items())
nearest = min(by_cap, key=lambda label: abs(by_cap[label][0] + 0.05))
THRESHOLD = ("sweeps/talby-noest.toml",
             "the balanced variant's wait gain over RUH, shaken, moves with the growth threshold the paper leaves "
             f"unstated ({cap_text}): a missed prediction grows tenfold, and where it stops decides when SJBF may "
             f"start a job predicted short; no threshold tried gives the paper's -5% (the nearest: {nearest})")
UNBALANCED_CONFIG = "sjbf + sbh-noest(growth=unbalanced)"
relative = over_replications(lambda t: [gain(t, log, UNBALANCED_CONFIG, "relative_accuracy", RUH) for log in logs],
                             noest_shaken)
UNBALANCED = ("sweeps/talby-noest.toml; python3 scripts/talby_weighting.py 'ruh(k=3,stat=median,prop=true)' "
              "'sbh-noest(growth=unbalanced)'",
              "the unbalanced variant's wait is the balanced one's at the highest threshold, and its relative "
              "accuracy against RUH per log, shaken, is " + ", ".join(f"{LOG_NAMES[log]} {pct_pm([e])}"
                                                                      for log, e in zip(logs, relative))
              + "; weighting each prediction from the job's start instead of its submission does not remove the "
              "loss; the cause is open")
ledger.claim("sec. 6", "no-estimate SBH falls back to 1 s for slightly less than 1% of jobs", "< 1%", "-",
             NOT_ATTEMPTED + ": predictors do not count their fallbacks")
TABLE5 = [("growth=balanced,cap=100000", "Balanced", [-0.05, -0.04, -0.13, 0.01]),
          ("growth=unbalanced", "Unbalanced", [-0.08, -0.11, None, 0.01])]
noest = {}
for growth, label, paper in TABLE5:
    config = NOEST + growth + ")"
    noest[label] = config
    keep = [i for i, p in enumerate(paper) if p is not None]
    ours = over_shaken(lambda t: gains(t, config, RUH))
    shown = " / ".join("out of bounds" if p is None else pct(p) for p in paper)
    ledger.claim("Table 5", f"no-estimate SBH, {label}, DFS [PX,P,X,*] over RUH: wait / bsld / abs. / rel.",
                 shown, beside(pcts(gains(means, config, RUH)), ours),
                 compare_each([paper[i] for i in keep], [ours[i] for i in keep], TOL),
                 experiment=THRESHOLD if label == "Balanced" else UNBALANCED)
prop_effect = lambda t: [average(t, f"sjbf + sbh-noest(growth={g},prop=true)", "mean_wait", RUH)  # noqa: E731
                         - average(t, f"sjbf + sbh-noest(growth={g},prop=false)", "mean_wait", RUH)
                         for g in ("balanced", "unbalanced")]
ours = over_shaken(prop_effect)
ledger.claim("sec. 6", "propagation has a negligible effect on no-estimate SBH (change in wait gain: balanced; "
             "unbalanced)", "negligible", beside(pcts(prop_effect(sens)), ours), compare_each([0, 0], ours, 0.02),
             experiment=("sweeps/talby-noest.toml",
                         "the no-estimate variants' mean wait depends on when running jobs are predicted to end: the "
                         f"growth threshold moves the balanced one's wait gain ({cap_text}); propagation, which "
                         "re-predicts running jobs at every termination, changes when they are predicted to end too "
                         f"({pct_pm(ours[:1])} on the balanced variant, {pct_pm(ours[1:])} on the unbalanced one): why the "
                         "paper found it negligible for both is open"))
unbalanced_gap = gaps(lambda: noest["Unbalanced"], lambda: noest["Balanced"], [()], "mean_wait")
single = sum(x > 0 for x in unbalanced_gap(means))
per_log = over_shaken(unbalanced_gap)
lower, above, below = significant(per_log)
ledger.claim("sec. 6", "unbalanced beats balanced in wait in three of the four logs", "3 of 4",
             f"{single} of 4; shaken " + case_text(per_log, pct, half_pct), holds(lower == 3, lower >= 2))
# The best no-estimate variant in each metric: the paper's 22% cannot be the unbalanced
# variant's absolute inaccuracy, which it calls out of bounds.
loss = lambda t: [min(-average(t, c, m, sbh("E|P|X", think=1200)) for c in noest.values())  # noqa: E731
                  for m in ("mean_wait", "absolute_inaccuracy")]
ours = over_shaken(loss)
ledger.claim("sec. 6", "best no-estimate against best SBH ([E,P,X]): wait worse by; absolute inaccuracy higher by",
             "about 10%; 22%", f"{pct(loss(means)[0])}; {pct(loss(means)[1])}; shaken {pct_pm(ours)}",
             compare_each([0.10, 0.22], ours, TOL))

CONSTANT = [0.16, 0.13, 0.41, 0.37]
ours = over_shaken(lambda t: gains(t, "sjbf + constant(c=1)"))
ledger.claim("Table 6", "SJBF + Constant 1 s over EASY: wait / bsld / abs. / rel.", pcts(CONSTANT),
             beside(pcts(gains(means, "sjbf + constant(c=1)")), ours), compare_each(CONSTANT, ours, TOL))
more = lambda t: -average(t, "sjbf + constant(c=1)", "backfilled")  # noqa: E731
ours = over_shaken(more)
ledger.claim("sec. 7", "Constant 1 s backfills more jobs than EASY (mean over logs)", "22% more",
             beside(pct(more(sens)), ours), compare_each([0.22], ours, TOL))
waits = lambda t: [average(t, f"sjbf + constant(c={c})", "mean_wait") for c in (1, 10, 60, 600, 3600)]  # noqa
ours = over_shaken(waits)
[drop] = over_shaken(lambda t: waits(t)[0] - waits(t)[-1])
# Falling: no larger constant has a significantly higher gain than the next smaller one.
steps = over_shaken(lambda t: [a - b for a, b in zip(waits(t), waits(t)[1:])])
falling = all(m + h >= 0 for m, h in steps)
ledger.claim("sec. 7", "constants above 1 s are worse, far worse as the constant grows (wait gain, c = 1, 10, 60, "
             "600, 3600 s; the drop from 1 s to 1 h)", "falling", beside(pcts(waits(sens)), ours) + f"; {pct_pm([drop])}",
             holds(falling and drop[0] > TOL and drop[0] - drop[1] > 0, drop[0] - drop[1] > 0))

# Fairness (sec. 6 and 7), read as the 98th-percentile wait: the jobs that wait longest,
# which under SJBF are those predicted long (the paper names no metric).
p98_gap = lambda better, worse: gaps(lambda: better, lambda: worse, [()], "p98_wait")  # noqa: E731
costlier = {label: sum(m > 0 for m, _ in over_replications(p98_gap(config, UNBALANCED_CONFIG), noest_shaken))
            for label, config in NOEST_VARIANTS[:-1]}
FAIRNESS = ("sweeps/talby-noest.toml",
            "logs where the unbalanced variant's 98th-percentile wait is higher than the balanced one's, shaken, by "
            "the balanced one's threshold: " + ", ".join(f"{label.replace('balanced, ', '')} {n} of 4"
                                                         for label, n in costlier.items())
            + f": at most {max(costlier.values())} of 4 at any threshold, so the unstated threshold does not explain "
            "the difference; its cause is open")
for text, better, worse, paper in [
        ("Constant 1 s backfills more, but not at the expense of long jobs (logs where its 98th-percentile wait is "
         "no higher than EASY's)", "sjbf + constant(c=1)", EASY, "not at their expense"),
        ("unbalanced no-estimate SBH costs fairness: long jobs wait longer than under balanced (logs where its "
         "98th-percentile wait is higher)", noest["Balanced"], noest["Unbalanced"], "some cost")]:
    single = [x >= 0 for x in p98_gap(better, worse)(means)]
    cases = over_shaken(p98_gap(better, worse))
    lower, above, below = significant(cases)
    ledger.claim("sec. 7" if "Constant" in text else "sec. 6", text, paper,
                 f"{sum(single)} of 4; shaken " + case_text(cases, pct, half_pct, sum(m >= 0 for m, _ in cases)),
                 over_cases(m >= 0 for m, _ in cases), experiment=None if "Constant" in text else FAIRNESS)

# CTC on the machine size that gives it Table 1's utilisation (results/talby-sizes): the
# cleaned log's header says 338 processors; the machine had 512 nodes, 430 for batch jobs.
# Each size replayed as recorded (its 20 replications are identical) and shaken 20 times.
CTC = "CTC-SP2-1996-3.1"
SIZE_METRICS = [m for m, _ in METRICS] + ["utilization"]


def at_size(size, resample):
    """CTC on `size` processors in place of the header's, with the other three logs as
    replayed in `means` (resample "none") or in each shaken replication."""
    ctc = log_tables(sizes_folder, SIZE_METRICS, lambda row: row["procs"] == size and row["resample"] == resample)
    others = [means] * len(ctc) if resample == "none" else shaken
    return [{**other, **table} for other, table in zip(others, ctc)]


util = {size: over_shaken(lambda t: t[(CTC, EASY, "utilization")], at_size(size, "shake"))[0]
        for size in ("338", "430", "512")}
ledger.claim("Table 1", "row 2 again: CTC's utilisation on 338 (the header), 430 (batch partition) and 512 (the "
             "machine) processors; reproduced if 512's matches", "56%",
             beside(" / ".join(pct(at_size(p, "none")[0][(CTC, EASY, "utilization")]) for p in util),
                    list(util.values())),
             holds(abs(util["512"][0] - 0.56) <= TOL, min(abs(u - 0.56) for u, _ in util.values()) <= TOL))
for size in ("430", "512"):
    single, tables = at_size(size, "none")[0], at_size(size, "shake")
    table2_rows(single, tables, f", CTC on {size} processors (a variant of rows 5-8)")
    propagation_row(single, tables, f", CTC on {size} processors (a variant of row 10)")

print("## Claims ledger\n")
ledger.print()


def table(data, baseline, rows):
    print("| configuration | " + " | ".join(m for m, _ in METRICS) + " |")
    print("|---|" + "---|" * len(METRICS))
    for config in rows:
        print(f"| {cell(config)} | " + " | ".join(pct(g) for g in gains(data, config, baseline)) + " |")
    print()


configs = [c for c in dict.fromkeys(k[1] for k in means) if c != EASY]
print("## Tables\n")
print("Improvement over EASY (user estimates, arrival-order backfilling), averaged over the four logs "
      "(Tables 2 and 6):\n")
table(means, EASY, configs)
print("Session-based predictors against RUH with propagation (Tables 4 and 5):\n")
table(means, RUH, [c for c in configs if "sbh" in c])
print("Per log (wait-time improvement over EASY):\n")
print("| configuration | " + " | ".join(logs) + " |")
print("|---|" + "---|" * len(logs))
for config in configs:
    print(f"| {cell(config)} | " + " | ".join(pct(gain(means, log, config, 'mean_wait', EASY)) for log in logs) + " |")
print()
print("Sensitivity (results/talby-sensitivity), improvement over RUH with propagation:\n")
table(sens, RUH, [c for c in dict.fromkeys(k[1] for k in sens) if c not in (EASY, RUH)])
print()
print("No-estimate SBH by its growth threshold (results/talby-noest), improvement over RUH with propagation, "
      "averaged over the four logs: as recorded; shaken, the mean over 10 replications with its 95% interval:\n")
NOEST_COLUMNS = [m for m, _ in METRICS] + ["p98_wait"]
print("| variant | " + " | ".join(NOEST_COLUMNS) + " |")
print("|---|" + "---|" * len(NOEST_COLUMNS))
for label, config in NOEST_VARIANTS:
    single = [average(noest_single, config, m, RUH) for m in NOEST_COLUMNS]
    ours = over_replications(lambda t: [average(t, config, m, RUH) for m in NOEST_COLUMNS], noest_shaken)
    print(f"| {label} | " + " | ".join(f"{pct(x)}; {pct_pm([e])}" for x, e in zip(single, ours)) + " |")
