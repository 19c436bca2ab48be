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
from ledger import Estimate, Ledger, compare, estimate_of, holds, over_cases, show, worst  # noqa: E402

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



HIGH, MID = "0.9", "0.5"
SDF = ["sdf-max(max=1)", "sdf-max(max=2)", "sdf-max(max=6)", "sdf"]
ledger = Ledger("Each cell is replicated (at least 10 times) until the 95% interval of the normalised "
                "response is within 5% of its mean; the tables give means with their 95% intervals.")

# 6.1: fixed allocation limits.
never = not any(saturated(w, l, "sdf-max(max=1)") for w in workloads for l in loads)
others = all(any(saturated(w, l, p) for w in workloads for l in loads) for p in SDF[1:])
ledger.claim("sec. 6.1", "only SDF-Max 1 never saturates; SDF-Max 2, SDF-Max 6 and SDF saturate somewhere",
             "yes", "yes" if never and others else "no", holds(never and others))
wk1 = [saturated("wk1", HIGH, p) for p in SDF[1:]]
wk1_below = [saturated("wk1", l, p) for p in SDF[1:] for l in loads if float(l) < 0.9]
ledger.claim("sec. 6.1", "WK1: SDF, SDF-Max 2 and SDF-Max 6 saturate at 90% (and only there)",
             "saturated at 90%", f"{sum(wk1)} of 3 at 90%, {sum(wk1_below)} below",
             holds(all(wk1) and not any(wk1_below), all(wk1)))
wk3 = {p: saturated("wk3", MID, p) for p in ("sdf-max(max=6)", "sdf")}
ledger.claim("sec. 6.1", "WK3: SDF-Max 6 and SDF saturate already at 50%", "both",
             "; ".join(f"{p}: " + ("saturated" if v else f"{get('wk3', MID, p):.2f}") for p, v in wk3.items()),
             over_cases(wk3.values()))
low = min(get(w, "0.1", "sdf-max(max=1)") for w in workloads)
best_high = all(get(w, HIGH, "sdf-max(max=1)") <= min(get(w, HIGH, p) for p in SDF) + 1e-12 for w in workloads)
ledger.claim("sec. 6.1", "SDF-Max 1 performs badly except at 90% (normalised at 10%, lowest of any workload; best "
             "SDF variant at 90%)", "bad; best", f"{low:.2f}; " + ("best" if best_high else "not best"),
             holds(low >= 1.5 and best_high))
MAX = {"sdf-max(max=1)": 1, "sdf-max(max=2)": 2, "sdf-max(max=6)": 6, "sdf": 32}
monotone = True
for w in workloads:
    best = [min((get(w, l, p), MAX[p]) for p in SDF)[1] for l in loads]
    monotone &= all(a >= b for a, b in zip(best, best[1:]))
ledger.claim("sec. 6.1", "the higher the load, the smaller the best Max (each workload)", "yes",
             "yes" if monotone else "no", holds(monotone))
fixed = all(abs(get(w, l, p, "mean_partition") - m) < 1e-9 for w in workloads for l in loads
            for p, m in (("sdf-max(max=1)", 1), ("sdf-max(max=2)", 2)) if not saturated(w, l, p))
ledger.claim("sec. 6.1", "SDF-Max 1 and 2 keep partitions of exactly 1 and 2", "yes", "yes" if fixed else "no", holds(fixed))
floor4 = min(get(w, l, p, "mean_partition") for w in workloads for l in loads for p in ("sdf", "sdf-max(max=6)")
             if not saturated(w, l, p))
ledger.claim("sec. 6.1", "SDF and SDF-Max 6 keep mean partitions not much below 4 (smallest)", "about 4",
             f"{floor4:.1f}", holds(floor4 >= 3.5, floor4 >= 3))

# 6.2: the adaptive policies.
gap = max(abs(get(w, l, "asp") / get(w, l, "ap1") - 1) for w in workloads for l in loads)
ledger.claim("sec. 6.2", "ASP and AP1 have almost the same response time (largest difference)", "almost equal",
             f"{100 * gap:.0f}%", holds(gap <= 0.1, gap <= 0.2))
gap = max(abs(get(w, l, "asp", "mean_partition") / get(w, l, "ap1", "mean_partition") - 1)
          for w in workloads for l in loads)
ledger.claim("sec. 6.2", "ASP and AP1 have the same partition sizes (largest difference)", "the same",
             f"{100 * gap:.0f}%", holds(gap <= 0.1, gap <= 0.2))
wins = [(w, l) for w in workloads for l in loads[1:] if get(w, l, "aep") < min(get(w, l, "asp"), get(w, l, "ap1"))]
ledger.claim("sec. 6.2", "AEP has the advantage over ASP and AP1 (cells at 30-90% where AEP is lowest)",
             "WK4: all", f"WK4: {sum(w == 'wk4' for w, _ in wins)} of {len(loads) - 1}; all: {len(wins)} of "
             f"{4 * (len(loads) - 1)}", holds(sum(w == "wk4" for w, _ in wins) == len(loads) - 1, len(wins) > 0))
smaller = {m: sum(get(w, l, "aep", m) <= min(get(w, l, "asp", m), get(w, l, "ap1", m))
                 for w in workloads for l in loads[1:]) for m in ("mean_partition", "mean_wait")}
ledger.claim("sec. 6.2, 7", "in almost all cases AEP gives smaller partitions; shorter waits (cells at 30-90%)",
             "almost all", f"{smaller['mean_partition']} of 16; {smaller['mean_wait']} of 16",
             holds(min(smaller.values()) >= 14, min(smaller.values()) >= 8))

# 6.3: SDF.
halves = min(get(w, l, f"{r}(1)") / get(w, l, r) for w in workloads for l in loads for r in ("asp", "ap1", "aep"))
ledger.claim("sec. 6.3", "SDF cuts response at high load, in some cases below half (smallest x(1) / x)", "below 0.5",
             f"{halves:.2f}", holds(halves < 0.5, halves < 1))
kept = max(abs(get(w, l, f"{r}(1)", "mean_partition") / get(w, l, r, "mean_partition") - 1)
           for w in workloads for l in loads for r in ("asp", "ap1", "aep"))
ledger.claim("sec. 6.3", "SDF keeps the partition sizes (largest change)", "unchanged", f"{100 * kept:.0f}%",
             holds(kept <= 0.1, kept <= 0.2))
before = [min(get("wk4", l, "asp"), get("wk4", l, "ap1")) - get("wk4", l, "aep") for l in loads[2:]]
after = [min(get("wk4", l, "asp(1)"), get("wk4", l, "ap1(1)")) - get("wk4", l, "aep(1)") for l in loads[2:]]
ledger.claim("sec. 6.3", "with SDF, AEP's advantage is much reduced (WK4, 50-90%: lead over the better of "
             "ASP, AP1 before; after)", "reduced", "; ".join(f"{sum(x) / len(x):+.2f}" for x in (before, after)),
             holds(sum(after) < 0.5 * sum(before), sum(after) < sum(before)))

# 6.4: DIF.
best2 = [(w, l) for w in workloads for l in loads[1:]
         if get(w, l, "aep(2)") <= min(get(w, l, "asp(2)"), get(w, l, "ap1(2)"))]
best_free = [(w, l) for w in workloads for l in sens_loads[1:]
             if get(w, l, "aep(2,dif=free)", "mean_response", sens)
             <= min(get(w, l, f"{r}(2,dif=free)", "mean_response", sens) for r in ("asp", "ap1"))]
ledger.claim("sec. 6.4", "AEP(2) always performs better than ASP(2) and AP1(2) (cells at 30-90% where it does; "
             "with dif=free)", "all 16", f"{len(best2)} of 16; {len(best_free)} of 16",
             holds(len(best2) == 16, len(best2) >= 12))
changes = [abs(get(w, l, f"{r}(2)") / get(w, l, f"{r}(1)") - 1) for w in workloads for l in loads for r in ("asp", "ap1")]
mean_change = sum(changes) / len(changes)
ledger.claim("sec. 6.4, 7", "DIF does not change ASP and AP1 (mean; largest change from x(1) to x(2))", "negligible",
             f"{100 * mean_change:.1f}%; {100 * max(changes):.1f}%", holds(mean_change <= 0.02 and max(changes) <= 0.1))
gain = [1 - get(w, l, "aep(2)") / get(w, l, "aep(1)") for w in workloads for l in ("0.7", HIGH)]
free = [1 - get(w, l, "aep(2,dif=free)", "mean_response", sens) / get(w, l, "aep(1)", "mean_response", sens)
        for w in workloads for l in ("0.7", HIGH)]
ledger.claim("sec. 6.4, 7", "DIF gives AEP a considerable gain at high load (AEP(2) against AEP(1) at 70-90%, "
             "range; with dif=free)", "considerable",
             f"{100 * min(gain):.1f}% to {100 * max(gain):.1f}%; {100 * min(free):.0f}% to {100 * max(free):.0f}%",
             holds(min(gain) >= 0.05, max(gain) >= 0.05))
same = [abs(get(w, l, "aep(2)", m) / get(w, l, "aep(1)", m) - 1) for w in workloads for l in loads
        for m in ("mean_partition", "mean_wait")]
ledger.claim("sec. 6.4", "with DIF, AEP's partition size and waiting time stay the same (mean; largest change)",
             "the same", f"{100 * sum(same) / len(same):.1f}%; {100 * max(same):.1f}%",
             holds(sum(same) / len(same) <= 0.02 and max(same) <= 0.1))

# 6.5: against DYN-EQUI.
at90 = {w: [get(w, HIGH, p) for p in ("asp(2)", "ap1(2)", "aep(2)")] for w in workloads}
ledger.claim("sec. 6.5, 7", "at 90% the (2) policies beat DYN-EQUI (normalised ASP(2) / AP1(2) / AEP(2))",
             "below 1", "; ".join(f"{w.upper()} " + " / ".join(f"{x:.2f}" for x in xs) for w, xs in at90.items()),
             holds(all(x < 1 for xs in at90.values() for x in xs), sum(x < 1 for xs in at90.values() for x in xs) >= 6))
below = [get(w, l, p) for w in workloads for l in loads[:-1] for p in ("asp(2)", "ap1(2)", "aep(2)")]
ledger.claim("sec. 6.5, 7", "at 10-70% DYN-EQUI is better (smallest normalised (2) value)", "above 1",
             f"{min(below):.2f}", holds(min(below) > 1))
aep, asp = get("wk4", MID, "aep(2)"), get("wk4", MID, "asp(2)")
ledger.claim("sec. 6.5, 7", "WK4 at 50%: AEP(2) about 30% above DYN-EQUI", "1.30", f"{aep:.2f}",
             compare([0.30], [aep - 1], 0.1))
ledger.claim("sec. 6.5, 7", "WK4 at 50%: ASP(2) more than 75% above DYN-EQUI", "above 1.75", f"{asp:.2f}",
             holds(asp > 1.75, asp > aep))
close = max(abs(get(w, HIGH, p, "mean_partition") - get(w, HIGH, "dyn-equi", "mean_partition"))
            for w in workloads for p in ("asp(2)", "ap1(2)", "aep(2)"))
ledger.claim("sec. 6.5", "at 90% the (2) policies' mean partition is very close to DYN-EQUI's (largest gap, "
             "processors)", "very close", f"{close:.1f}", holds(close <= 0.5, close <= 1))

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
