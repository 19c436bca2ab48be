#!/usr/bin/env bash
# Integration test: Slurm's own accounting, read, converted and replayed. Three jobs (and
# one cancelled before it started) run on a one-node Slurm cluster with accounting
# (slurmdbd on MariaDB); `sacct` writes what Slurm recorded; schedlab reads it (`trace
# info`), converts it to SWF (`trace convert`) and replays it (`run`), and the test checks
# the replay against Slurm's record: the same jobs, sizes, memory and runtimes, the
# cancelled one skipped, and no job starting later in the replay than it did on Slurm.
# Skipped, with a message, where Slurm cannot be installed or started (it needs root and
# Debian's packages).
#
#   scripts/slurm/accounting-test.sh [path/to/schedlab]
set -uo pipefail
cd "$(dirname "$0")/../.."
cluster=$PWD/scripts/slurm/local-cluster.sh
bin=$(realpath "${1:-target/release/schedlab}")
work=$(mktemp -d /tmp/schedlab-sacct-test.XXXXXX)

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "SKIPPED: Slurm accounting test (needs root and apt-get to install slurm-wlm)"
  exit 0
fi
if ! "$cluster" start >"$work/cluster.log" 2>&1; then
  echo "SKIPPED: Slurm accounting test (Slurm could not be installed or started):"
  sed 's/^/  /' "$work/cluster.log"
  exit 0
fi
trap '"$cluster" stop' EXIT
export SLURM_CONF=/tmp/schedlab-slurm/slurm.conf
set -e

cpus=$(scontrol show node -o | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p' | head -n 1)
cd "$work"
# Whole-node jobs, then a one-core one: each must wait for the one before it, under Slurm's
# backfill as under FCFS, so the order of starts is the same in both.
ids=()
ids+=("$(sbatch --parsable -n "$cpus" --mem-per-cpu=100M -t 1 --wrap 'sleep 3')")
ids+=("$(sbatch --parsable -n "$cpus" --mem-per-cpu=200M -t 2 --wrap 'sleep 2')")
ids+=("$(sbatch --parsable -n 1 --mem-per-cpu=300M -t 1 --wrap 'sleep 2')")
cancelled=$(sbatch --parsable -n 1 -t 1 --begin=now+3600 --wrap 'sleep 1')
scancel "$cancelled"
list=$(IFS=,; echo "${ids[*]},$cancelled")

# Until every job has ended in the accounting (slurmdbd records ends a moment later).
for _ in $(seq 1 240); do
  ended=$(sacct -n -X -P --jobs "$list" --format=State | grep -cE '^(COMPLETED|CANCELLED)' || true)
  [ "$ended" = 4 ] && break
  sleep 0.5
done
sacct --allusers --parsable2 --jobs "$list" \
  --format=JobID,User,Partition,Submit,Start,End,Timelimit,NCPUS,NNodes,ReqMem,AllocTRES,State >sacct.txt
if [ "${ended:-0}" != 4 ]; then
  echo "FAILED: the jobs did not all end in 120 s; sacct says:"
  cat sacct.txt
  exit 1
fi

"$bin" trace info sacct.txt >info.txt
"$bin" trace convert sacct.txt --out converted.swf >/dev/null
"$bin" run --trace sacct.txt --procs "$cpus" --scheduler fcfs --jobs-out replay.csv --json >replay.json

python3 - "$cpus" <<'CHECK'
import csv, datetime, json, sys

cpus = int(sys.argv[1])
failures = []

def check(ok, what):
    if not ok:
        failures.append(what)

rows = list(csv.DictReader(open("sacct.txt"), delimiter="|"))
jobs = [r for r in rows if "." not in r["JobID"]]
ran = [r for r in jobs if r["State"] == "COMPLETED"]
check(len(jobs) == 4 and len(ran) == 3, f"sacct: {len(jobs)} jobs, {len(ran)} completed, expected 4 and 3")
seconds = lambda t: datetime.datetime.fromisoformat(t).timestamp()
first = min(seconds(r["Submit"]) for r in jobs)

summary = json.load(open("replay.json"))
check(summary["jobs"] == 3, f"replayed {summary['jobs']} jobs, expected 3")
check(summary["jobs_skipped"] == 1, f"skipped {summary['jobs_skipped']}, expected 1 (the cancelled job)")

replay = list(csv.DictReader(open("replay.csv")))
check([int(r["procs"]) for r in replay] == [cpus, cpus, 1], f"sizes {[r['procs'] for r in replay]}")
order_slurm = sorted(range(3), key=lambda i: seconds(ran[i]["Start"]))
order_replay = sorted(range(3), key=lambda i: int(replay[i]["start"]))
check(order_slurm == order_replay, f"start order: Slurm {order_slurm}, replay {order_replay}")
for s, r in zip(ran, replay):
    runtime = seconds(s["End"]) - seconds(s["Start"])
    check(int(r["runtime"]) == runtime, f"job {s['JobID']}: runtime {r['runtime']}, sacct {runtime}")
    check(int(r["submit"]) == seconds(s["Submit"]) - first, f"job {s['JobID']}: submit {r['submit']}")
    # Slurm adds its own latency to every start; the replay adds none.
    slurm_start = seconds(s["Start"]) - first
    check(int(r["start"]) <= slurm_start, f"job {s['JobID']}: replay starts at {r['start']}, Slurm at {slurm_start}")

# SWF: field 8 requested processors, 9 requested time (the limit), 10 memory per processor in KB.
swf = [l.split() for l in open("converted.swf") if not l.startswith(";") and l.strip()]
check(len(swf) == 3, f"converted {len(swf)} jobs, expected 3")
check([int(f[9]) for f in swf] == [100 * 1024, 200 * 1024, 300 * 1024], f"memory {[f[9] for f in swf]}")
check([int(f[8]) for f in swf] == [60, 120, 60], f"limits {[f[8] for f in swf]}")

for f in failures:
    print("FAILED:", f)
if failures:
    print(open("sacct.txt").read())
    sys.exit(1)
print(f"sacct: replayed {len(ran)} jobs of Slurm's accounting on {cpus} CPUs, as recorded")
CHECK
echo "slurm accounting: 1 passed, 0 failed"
cd / && rm -rf "$work"
