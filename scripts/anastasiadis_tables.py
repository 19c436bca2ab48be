#!/usr/bin/env python3
"""Anastasiadis & Sevcik's claims ledger and the tables of Figures 3-6 (per workload, the
response time normalised by DYN-EQUI and the mean partition size of each policy at each
load, "sat." where the policy saturated), from sweeps of sweeps/anastasiadis-sevcik.toml
and sweeps/anastasiadis-sevcik-sensitivity.toml (DIF's reading, DYN-EQUI's own mean).

    python3 scripts/anastasiadis_tables.py results/anastasiadis-sevcik results/anastasiadis-sevcik-sensitivity

Uses only the standard library; the ledger rules are in scripts/ledger.py.
"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ledger import (Estimate, Ledger, case_text, compare, estimate_of, holds, interval, over_cases, pm,  # noqa: E402
                    replications, show)

folder = sys.argv[1] if len(sys.argv) > 1 else "results/anastasiadis-sevcik"
sensitivity_folder = sys.argv[2] if len(sys.argv) > 2 else "results/anastasiadis-sevcik-sensitivity"


def read(path):
    """{(workload, load, policy): {metric: (Estimate, n, target_met)}}, the axes in order."""
    cells, order = {}, ([], [], [])
    with open(os.path.join(path, "summary.csv"), newline="") as f:
        for row in csv.DictReader(f):
            key = (row["workload"], row["load"], row["policy"])
            for values, v in zip(order, key):
                if v not in values:
                    values.append(v)
            cells.setdefault(key, {})[row["metric"]] = (estimate_of(row), int(row["n"]), row["target_met"])
    return cells, order


cells, (workloads, loads, policies) = read(folder)
sens, (_, sens_loads, sens_policies) = read(sensitivity_folder)


def get(w, load, policy, metric="normalized_response", data=None):
    return (data or cells)[(w, load, policy)][metric][0].mean


def saturated(w, load, policy):
    return math.isinf(get(w, load, policy, "mean_response"))


def cell(estimate, digits):
    """A mean with its 95% interval ("sat." for a saturated cell, "-" for none)."""
    if math.isinf(estimate.mean):
        return "sat."
    if math.isnan(estimate.mean):
        return "-"
    return show(estimate, lambda x: f"{x:.{digits}f}")


def table(workload, metric, digits):
    print("| policy | " + " | ".join(f"{float(l):.0%}" for l in loads) + " |")
    print("|---|" + "---|" * len(loads))
    for p in policies:
        values = [cells[(workload, l, p)][metric][0] for l in loads]
        if metric == "mean_partition":
            # Saturated cells have no partition size: mark them like the response times.
            values = [
                Estimate(math.inf, None, None) if math.isinf(cells[(workload, l, p)]["mean_response"][0].mean) else v
                for v, l in zip(values, loads)
            ]
        print(f"| {p.replace('|', '/')} | " + " | ".join(cell(v, digits) for v in values) + " |")
    print()



# One table per replication, {(workload, load, policy, metric): value}: the policies of a
# workload and load replay the same job streams, so a ratio of two cells computed on one
# replication is paired. Cells stop after different numbers of replications (at least 10);
# a figure uses the replications that every cell it reads ran.
METRICS = ["normalized_response", "mean_response", "mean_wait", "mean_partition"]
tables = {folder: replications(folder, ["workload", "load", "policy"], METRICS),
          sensitivity_folder: replications(sensitivity_folder, ["workload", "load", "policy"], METRICS)}


def per_replication(figure, path=folder):
    """`figure(value)`, `value(w, load, policy, metric="normalized_response")` reading one
    replication, on each replication that every cell it reads ran."""
    values = []
    for t in tables[path]:
        try:
            values.append(figure(lambda w, load, p, m="normalized_response": t[(w, load, p, m)]))
        except KeyError:
            pass
    return values


def paired(figure, path=folder):
    """The mean of `figure` over the replications (per_replication) and its 95% half-width."""
    return interval(per_replication(figure, path))


def ratio(numerator, denominator, path=folder):
    """The ratio of two means over the same replications, with the 95% half-width of the
    paired ratio estimator (the interval of numerator - R x denominator, over the mean
    denominator): the tables' ratio of means, not a mean of ratios, which the heavy tails
    at 90% load pull away from it."""
    pairs = per_replication(lambda value: (numerator(value), denominator(value)), path)
    mean_den = sum(d for _, d in pairs) / len(pairs)
    r = sum(n for n, _ in pairs) / len(pairs) / mean_den
    return r, interval([n - r * d for n, d in pairs])[1] / mean_den


def estimate(w, load, policy, metric="normalized_response", digits=2, data=None):
    """A cell's mean with its interval from summary.csv."""
    return show((data or cells)[(w, load, policy)][metric][0], lambda x: f"{x:.{digits}f}")


def percent_pm(mean_half, sign=""):
    return pm([mean_half], lambda x: f"{100 * x:{sign}.1f}%", lambda h: f"{100 * h:.1f}%")


def cases(gaps, holding=None):
    """`ledger.case_text` of relative gaps, in percent."""
    return case_text(gaps, lambda x: f"{100 * x:+.1f}%", lambda h: f"{100 * h:.1f}%", holding)


EXACT = "no interval: the property holds or fails cell by cell, and saturation is not a quantity"
HIGH, MID = "0.9", "0.5"
SDF = ["sdf-max(max=1)", "sdf-max(max=2)", "sdf-max(max=6)", "sdf"]
ledger = Ledger("Each cell is replicated (at least 10 times) until the 95% interval of the normalised "
                "response is within 5% of its mean; the tables give means with their 95% intervals.")

# 6.1: fixed allocation limits.
never = not any(saturated(w, l, "sdf-max(max=1)") for w in workloads for l in loads)
others = all(any(saturated(w, l, p) for w in workloads for l in loads) for p in SDF[1:])
top = max(((w, l) for w in workloads for l in loads), key=lambda c: get(*c, "sdf-max(max=1)"))
ledger.claim("sec. 6.1", "only SDF-Max 1 never saturates; SDF-Max 2, SDF-Max 6 and SDF saturate somewhere (SDF-Max "
             "1's highest normalised response)", "yes",
             ("yes" if never and others else "no") + f"; {top[0].upper()} at {float(top[1]):.0%}: "
             + estimate(*top, "sdf-max(max=1)"), holds(never and others))
wk1 = [saturated("wk1", HIGH, p) for p in SDF[1:]]
wk1_below = [saturated("wk1", l, p) for p in SDF[1:] for l in loads if float(l) < 0.9]
ledger.claim("sec. 6.1", "WK1: SDF, SDF-Max 2 and SDF-Max 6 saturate at 90% (and only there)",
             "saturated at 90%", f"{sum(wk1)} of 3 at 90%, {sum(wk1_below)} below",
             holds(all(wk1) and not any(wk1_below), all(wk1)), explanation=EXACT)
wk3 = {p: saturated("wk3", MID, p) for p in ("sdf-max(max=6)", "sdf")}
ledger.claim("sec. 6.1", "WK3: SDF-Max 6 and SDF saturate already at 50%", "both",
             "; ".join(f"{p}: " + ("saturated" if v else estimate("wk3", MID, p)) for p, v in wk3.items()),
             over_cases(wk3.values()),
             experiment=("sweeps/anastasiadis-sevcik.toml (the WK3 tables)",
                         "SDF-Max 6 saturates on WK3 from 70% here, so its threshold lies between 50% and 70%; as "
                         "with DYN-EQUI at 90% (rows 19, 23), the detail of the paper's model that moves it is not "
                         "found: the cause is open"))
low_w = min(workloads, key=lambda w: get(w, "0.1", "sdf-max(max=1)"))
low = get(low_w, "0.1", "sdf-max(max=1)")
best_high = all(get(w, HIGH, "sdf-max(max=1)") <= min(get(w, HIGH, p) for p in SDF) + 1e-12 for w in workloads)
ledger.claim("sec. 6.1", "SDF-Max 1 performs badly except at 90% (normalised at 10%, lowest of any workload; best "
             "SDF variant at 90%)", "bad; best",
             f"{estimate(low_w, '0.1', 'sdf-max(max=1)')} ({low_w.upper()}); " + ("best" if best_high else "not best"),
             holds(low >= 1.5 and best_high))
MAX = {"sdf-max(max=1)": 1, "sdf-max(max=2)": 2, "sdf-max(max=6)": 6, "sdf": 32}
monotone = True
for w in workloads:
    best = [min((get(w, l, p), MAX[p]) for p in SDF)[1] for l in loads]
    monotone &= all(a >= b for a, b in zip(best, best[1:]))
ledger.claim("sec. 6.1", "the higher the load, the smaller the best Max (each workload)", "yes",
             "yes" if monotone else "no", holds(monotone),
             explanation="no interval: an order of the cells' means (the tables below give each with its interval)")
fixed = all(abs(get(w, l, p, "mean_partition") - m) < 1e-9 for w in workloads for l in loads
            for p, m in (("sdf-max(max=1)", 1), ("sdf-max(max=2)", 2)) if not saturated(w, l, p))
ledger.claim("sec. 6.1", "SDF-Max 1 and 2 keep partitions of exactly 1 and 2", "yes", "yes" if fixed else "no",
             holds(fixed), explanation="no interval: the rule fixes the partition, so every replication gives it exactly")
floor_cell = min(((w, l, p) for w in workloads for l in loads for p in ("sdf", "sdf-max(max=6)")
                  if not saturated(w, l, p)), key=lambda c: get(*c, "mean_partition"))
floor4 = get(*floor_cell, "mean_partition")
ledger.claim("sec. 6.1", "SDF and SDF-Max 6 keep mean partitions not much below 4 (smallest)", "about 4",
             estimate(*floor_cell, "mean_partition", 1), holds(floor4 >= 3.5, floor4 >= 3))

# 6.2: the adaptive policies.


def largest_change(a, b, metric, where):
    """The cell of `where` (workload, load) where `a` differs most from `b` in `metric`, by
    the means: a's mean over b's, less 1, with its paired interval (mean, half)."""
    w, l = max(where, key=lambda c: abs(get(*c, a, metric) / get(*c, b, metric) - 1))
    r, half = ratio(lambda value: value(w, l, a, metric), lambda value: value(w, l, b, metric))
    return (r - 1, half), (w, l)


for metric, text, paper in (("normalized_response", "response time", "almost equal"),
                            ("mean_partition", "partition sizes", "the same")):
    change, (w, l) = largest_change("asp", "ap1", metric, [(w, l) for w in workloads for l in loads])
    gap = abs(change[0])
    ledger.claim("sec. 6.2", f"ASP and AP1 have {'almost ' if paper != 'the same' else ''}the same {text} (largest "
                 "difference, paired)", paper, f"{percent_pm(change, '+')} ({w.upper()}, {float(l):.0%})",
                 holds(gap <= 0.1, gap <= 0.2))


def leads(better, rivals, cells_, metric="normalized_response", path=folder):
    """Per cell, `better`'s paired lead over the lower of `rivals` there (by the means),
    relative: 1 - better / rival, positive when `better` is lower."""
    data = cells if path == folder else sens
    out = []
    for w, l in cells_:
        rival = min(rivals, key=lambda r: get(w, l, r, metric, data))
        r, half = ratio(lambda value: value(w, l, better, metric), lambda value: value(w, l, rival, metric), path)
        out.append((1 - r, half))
    return out


upper = [(w, l) for w in workloads for l in loads[1:]]
aep_leads = leads("aep", ("asp", "ap1"), upper)
wins = [c for c, (m, _) in zip(upper, aep_leads) if m > 0]
ledger.claim("sec. 6.2", "AEP has the advantage over ASP and AP1 (cells at 30-90% where AEP is lowest)",
             "WK4: all", f"WK4: {sum(w == 'wk4' for w, _ in wins)} of {len(loads) - 1}; all: {cases(aep_leads)}",
             holds(sum(w == "wk4" for w, _ in wins) == len(loads) - 1, len(wins) > 0))
smaller = {m: leads("aep", ("asp", "ap1"), upper, m) for m in ("mean_partition", "mean_wait")}
counts = {m: sum(x >= 0 for x, _ in g) for m, g in smaller.items()}
ledger.claim("sec. 6.2, 7", "in almost all cases AEP gives smaller partitions; shorter waits (cells at 30-90%)",
             "almost all", "; ".join(cases(smaller[m], counts[m]) for m in smaller),
             holds(min(counts.values()) >= 14, min(counts.values()) >= 8))

# 6.3: SDF.
w, l, r = min(((w, l, r) for w in workloads for l in loads for r in ("asp", "ap1", "aep")),
              key=lambda c: get(c[0], c[1], f"{c[2]}(1)") / get(*c))
halves = ratio(lambda value: value(w, l, f"{r}(1)"), lambda value: value(w, l, r))
ledger.claim("sec. 6.3", "SDF cuts response at high load, in some cases below half (smallest x(1) / x, paired; "
             "below half if its interval is)",
             "below 0.5", f"{halves[0]:.2f} ± {halves[1]:.2f} ({r.upper()}, {w.upper()}, {float(l):.0%})",
             holds(halves[0] + halves[1] < 0.5, halves[0] < 1))
kept, (w, l, r) = max(((largest_change(f"{r}(1)", r, "mean_partition", [(w, l)])[0], (w, l, r))
                       for w in workloads for l in loads for r in ("asp", "ap1", "aep")), key=lambda x: abs(x[0][0]))
ledger.claim("sec. 6.3", "SDF keeps the partition sizes (largest change, paired)", "unchanged",
             f"{percent_pm(kept, '+')} ({r.upper()}, {w.upper()}, {float(l):.0%})",
             holds(abs(kept[0]) <= 0.1, abs(kept[0]) <= 0.2))


def mean_lead(suffix):
    """AEP's lead over the better of ASP and AP1 (by the means), WK4 at 50-90%, in normalised response."""
    rival = {l: min((f"asp{suffix}", f"ap1{suffix}"), key=lambda r: get("wk4", l, r)) for l in loads[2:]}
    return lambda value: sum(value("wk4", l, rival[l]) - value("wk4", l, f"aep{suffix}") for l in loads[2:]) / 3


before, after = paired(mean_lead("")), paired(mean_lead("(1)"))
ledger.claim("sec. 6.3", "with SDF, AEP's advantage is much reduced (WK4, 50-90%: lead over the better of "
             "ASP, AP1 before; after; paired)", "reduced", "; ".join(f"{m:+.2f} ± {h:.2f}" for m, h in (before, after)),
             holds(after[0] < 0.5 * before[0], after[0] < before[0]))

# 6.4: DIF.
best2 = leads("aep(2)", ("asp(2)", "ap1(2)"), upper)
best_free = leads("aep(2,dif=free)", ("asp(2,dif=free)", "ap1(2,dif=free)"),
                  [(w, l) for w in workloads for l in sens_loads[1:]], "mean_response", sensitivity_folder)
n2 = sum(m >= 0 for m, _ in best2)
ledger.claim("sec. 6.4", "AEP(2) always performs better than ASP(2) and AP1(2) (cells at 30-90% where it does; "
             "with dif=free)", "all 16", "; ".join(cases(g, sum(m >= 0 for m, _ in g)) for g in (best2, best_free)),
             holds(n2 == 16, n2 >= 12))


def dif_changes(policies_, metrics):
    """x(2) against x(1) over every cell, by the means: the mean absolute relative change
    (no interval: an absolute value's mean is pulled up by noise) and the largest, with its
    paired interval."""
    keys = [(w, l, r, m) for w in workloads for l in loads for r in policies_ for m in metrics]
    mean = sum(abs(get(w, l, f"{r}(2)", m) / get(w, l, f"{r}(1)", m) - 1) for w, l, r, m in keys) / len(keys)
    largest = max((largest_change(f"{r}(2)", f"{r}(1)", m, [(w, l)])[0] for w, l, r, m in keys),
                  key=lambda e: abs(e[0]))
    return mean, largest


mean_change, largest = dif_changes(("asp", "ap1"), ("normalized_response",))
ledger.claim("sec. 6.4, 7", "DIF does not change ASP and AP1 (mean; largest change from x(1) to x(2), paired)",
             "negligible", f"{100 * mean_change:.1f}%; {percent_pm(largest, '+')}",
             holds(mean_change <= 0.02 and abs(largest[0]) <= 0.1))


def aep_gains(data, path, metric, dif=""):
    """AEP(2) against AEP(1) at 70-90%, each cell paired: (mean, half) per cell."""
    def gain_at(w, l):
        r, half = ratio(lambda value: value(w, l, f"aep(2{dif})", metric), lambda value: value(w, l, "aep(1)", metric),
                        path)
        return 1 - r, half
    return [gain_at(w, l) for w in workloads for l in ("0.7", HIGH)]


gain = aep_gains(cells, folder, "normalized_response")
free = aep_gains(sens, sensitivity_folder, "mean_response", ",dif=free")
ledger.claim("sec. 6.4, 7", "DIF gives AEP a considerable gain at high load (AEP(2) against AEP(1) at 70-90%, "
             "range of the cells, paired; with dif=free)", "considerable",
             "; ".join(f"{percent_pm(min(g))} to {percent_pm(max(g))}" for g in (gain, free)),
             holds(min(gain)[0] >= 0.05, max(gain)[0] >= 0.05),
             experiment=("sweeps/anastasiadis-sevcik-sensitivity.toml (dif=free)",
                         "neither reading of DIF gives it: with the default, DIF redistributes the processors the "
                         "rule hands out, and AEP's targets at 70-90% are one processor per job, so it has nothing "
                         "to move; DIF over every free processor turns AEP into ASP, a gain at WK1 70% and a loss "
                         "elsewhere (the range after the semicolon)"))
mean_same, largest = dif_changes(("aep",), ("mean_partition", "mean_wait"))
ledger.claim("sec. 6.4", "with DIF, AEP's partition size and waiting time stay the same (mean; largest change, "
             "paired)", "the same", f"{100 * mean_same:.1f}%; {percent_pm(largest, '+')}",
             holds(mean_same <= 0.02 and abs(largest[0]) <= 0.1))

# 6.5: against DYN-EQUI.
at90 = {w: [get(w, HIGH, p) for p in ("asp(2)", "ap1(2)", "aep(2)")] for w in workloads}
ledger.claim("sec. 6.5, 7", "at 90% the (2) policies beat DYN-EQUI (normalised ASP(2) / AP1(2) / AEP(2))",
             "below 1", "; ".join(f"{w.upper()} " + " / ".join(estimate(w, HIGH, p) for p in ("asp(2)", "ap1(2)", "aep(2)"))
                                  for w in workloads),
             holds(all(x < 1 for xs in at90.values() for x in xs), sum(x < 1 for xs in at90.values() for x in xs) >= 6))
low_cell = min(((w, l, p) for w in workloads for l in loads[:-1] for p in ("asp(2)", "ap1(2)", "aep(2)")),
               key=lambda c: get(*c))
ledger.claim("sec. 6.5, 7", "at 10-70% DYN-EQUI is better (smallest normalised (2) value)", "above 1",
             f"{estimate(*low_cell)} ({low_cell[2].upper()}, {low_cell[0].upper()}, {float(low_cell[1]):.0%})",
             holds(get(*low_cell) > 1))
aep, asp = get("wk4", MID, "aep(2)"), get("wk4", MID, "asp(2)")
ledger.claim("sec. 6.5, 7", "WK4 at 50%: AEP(2) about 30% above DYN-EQUI", "1.30", estimate("wk4", MID, "aep(2)"),
             compare([0.30], [aep - 1], 0.1))
ledger.claim("sec. 6.5, 7", "WK4 at 50%: ASP(2) more than 75% above DYN-EQUI", "above 1.75",
             estimate("wk4", MID, "asp(2)"), holds(asp > 1.75, asp > aep))
w, p = max(((w, p) for w in workloads for p in ("asp(2)", "ap1(2)", "aep(2)")),
           key=lambda c: abs(get(c[0], HIGH, c[1], "mean_partition") - get(c[0], HIGH, "dyn-equi", "mean_partition")))
close = paired(lambda value: value(w, HIGH, p, "mean_partition") - value(w, HIGH, "dyn-equi", "mean_partition"))
ledger.claim("sec. 6.5", "at 90% the (2) policies' mean partition is very close to DYN-EQUI's (largest gap, "
             "processors, paired)", "very close", f"{close[0]:+.1f} ± {close[1]:.1f} ({p.upper()}, {w.upper()})",
             holds(abs(close[0]) <= 0.5, abs(close[0]) <= 1),
             experiment=("cargo test --release --test it dyn_equi:: -- --ignored --nocapture",
                         "DYN-EQUI gives WK1's jobs about twice AEP(2)'s processors at 90%; a second DYN-EQUI, "
                         "time-stepped, agrees with the simulator within 2e-3, and of three readings of its rule none "
                         "reproduces the independent implementation's four figures: the rule behind the paper's "
                         "DYN-EQUI is not found, so the cause is open"))

print("## Claims ledger\n")
ledger.print()

print("## Figures 3-6 as tables\n")
for w in workloads:
    print(f"### {w.upper()}: response time normalised by DYN-EQUI\n")
    table(w, "normalized_response", 2)
    print(f"### {w.upper()}: mean partition size (processors)\n")
    table(w, "mean_partition", 1)
counts = [v["normalized_response"][1] for v in cells.values()]
n_saturated = sum(1 for k in cells if saturated(*k))
missed = sum(1 for k, v in cells.items() if v["normalized_response"][2] == "false" and not saturated(*k))
print(f"Replications per cell: {min(counts)} to {max(counts)}, {sum(counts)} in all; "
      f"{n_saturated} cells saturated (they stop at their first round), "
      f"{missed} stopped at the maximum without reaching the 5% target.\n")

print("## DIF's two readings and DYN-EQUI's own mean (results/anastasiadis-sevcik-sensitivity)\n")
print("Mean response time (thousands of seconds) of AEP and ASP with SDF (1), with DIF over the processors the "
      "rule hands out (2), and with DIF over every free processor (2, dif=free):\n")
shown = ["aep(1)", "aep(2)", "aep(2,dif=free)", "asp(1)", "asp(2)", "asp(2,dif=free)"]
print("| workload | load | " + " | ".join(shown) + " |")
print("|---|---|" + "---|" * len(shown))
for w in workloads:
    for l in sens_loads[2:]:
        print(f"| {w.upper()} | {float(l):.0%} | " + " | ".join(f"{get(w, l, p, 'mean_response', sens):.2f}" for p in shown) + " |")
print()


def tail_probability(values, threshold, k=10, draws=20000):
    """Share of k-replication means (drawn without replacement by a fixed xorshift, so
    the figure is the same on any Python) that reach `threshold`."""
    state, hits = 88172645463325252, 0
    for _ in range(draws):
        pool = list(values)
        total = 0.0
        for i in range(k):
            state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
            state ^= state >> 7
            state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
            j = i + state % (len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
            total += pool[i]
        hits += total / k >= threshold
    return hits / draws


runs = {}
with open(os.path.join(sensitivity_folder, "runs.csv"), newline="") as f:
    for row in csv.DictReader(f):
        if row["policy"] == "dyn-equi" and row["load"] == HIGH:
            runs.setdefault(row["workload"], []).append(float(row["mean_response"]))
INDEPENDENT = {"wk1": 17.3, "wk2": 26.6, "wk3": 35.5, "wk4": 22.1}
print("DYN-EQUI at 90% load (thousands of seconds): schedlab's mean with its 95% interval and replications, "
      "an independent implementation's mean of 10 replications (issue #20), and how often 10 of schedlab's "
      "replications average that much or more:\n")
print("| workload | schedlab | replications | spread of one replication (sd) | independent, 10 replications "
      "| P(10-replication mean >= it) |")
print("|---|---|---|---|---|---|")
joint = 1.0
for w in workloads:
    estimate, n, _ = sens[(w, HIGH, "dyn-equi")]["mean_response"]
    mean = estimate.mean
    xs = runs[w]
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))
    p = tail_probability(xs, INDEPENDENT[w])
    joint *= p
    print(f"| {w.upper()} | {show(estimate, lambda x: f'{x:.1f}')} | {n} | {sd:.1f} | {INDEPENDENT[w]} | {p:.3f} |")
print(f"\nAll four at once, were the replications independent: {joint:.1e}.")
