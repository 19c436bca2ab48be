"""The package's run, sweep and trace API: hand-computed schedules, agreement with the
command line, dtypes, determinism, errors, and simulations that release the GIL."""

import json
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import schedlab

ROOT = Path(__file__).resolve().parents[2]


def test_easy_schedule_of_a_small_trace_by_hand(small_swf):
    # EASY on 8 processors: job 2 (8 procs) waits for job 1; jobs 3 and 4 backfill before
    # job 1's estimated end (200); job 5 (estimate 600) would delay job 2, so it waits.
    r = schedlab.run(trace=small_swf, scheduler="easy")
    assert list(r.jobs["start"]) == [0, 100, 20, 30, 150]
    assert list(r.jobs["wait"]) == [0, 90, 0, 0, 110]
    assert r.summary["mean_wait"] == 40.0
    fcfs = schedlab.run(trace=small_swf, scheduler="fcfs")
    assert list(fcfs.jobs["start"]) == [0, 100, 150, 150, 150]
    assert fcfs.summary["mean_wait"] == 90.0


def test_a_machine_of_two_partitions_keeps_their_jobs_apart(small_swf, tmp_path):
    # Partition 1 (4 processors) runs jobs 1 and 3-5 of small_swf moved there, partition 2
    # (8 processors) job 2: job 2 starts at once though job 1 is running.
    lines = small_swf.read_text().splitlines()
    fields = lines[2].split()
    fields[15] = "2"
    lines[2] = " ".join(fields)
    trace = tmp_path / "two.swf"
    trace.write_text("\n".join(lines) + "\n")
    machine = tmp_path / "machine.toml"
    machine.write_text(
        '[[partition]]\nname = "small"\n[[partition.nodes]]\ncount = 1\ncores = 4\n'
        '[[partition]]\nname = "wide"\n[[partition.nodes]]\ncount = 2\ncores = 4\n'
    )
    r = schedlab.run(trace=trace, scheduler="fcfs", machine=str(machine))
    assert list(r.jobs["start"]) == [0, 10, 100, 100, 110]
    assert [p["partition"] for p in r.summary["partitions"]] == ["small", "wide"]
    assert [p["jobs"] for p in r.summary["partitions"]] == [4, 1]
    assert r.summary["procs"] == 12


def test_a_model_on_a_machine_of_nodes_with_drawn_memory_is_the_command_lines(cli, tmp_path):
    # 8 nodes of 4 cores and 16 GB: the model's size is their 32 cores.
    machine = tmp_path / "nodes.toml"
    machine.write_text(
        '[[partition]]\nname = "all"\ndefault = true\n'
        "[[partition.nodes]]\ncount = 8\ncores = 4\nmemory_gb = 16\n"
    )
    common = dict(model="lublin", scheduler="easy", jobs=2000, seed=3)
    r = schedlab.run(machine=str(machine), memory_pressure=0.5, **common)
    assert r.summary["procs"] == 32
    assert 0 < r.summary["memory_utilization"] < 1 and r.summary["fragmentation"] > 0
    args = ["run", "--model", "lublin", "--param", "jobs=2000", "--scheduler", "easy", "--seed", "3"]
    args += ["--machine", str(machine), "--memory-pressure", "0.5", "--json"]
    out = subprocess.run([cli, *args], check=True, capture_output=True)
    assert json.loads(out.stdout)["mean_wait"] == r.summary["mean_wait"]
    # No memory asked: the model on a pool of the 32 cores; memory that binds waits longer.
    plain = schedlab.run(procs=32, **common)
    assert schedlab.run(machine=str(machine), memory_pressure=0.0, **common).summary["mean_wait"] == (
        plain.summary["mean_wait"]
    )
    assert r.summary["mean_wait"] > plain.summary["mean_wait"]


def test_each_jobs_energy_and_carbon_are_the_command_lines(cli, small_swf, tmp_path):
    machine = tmp_path / "power.toml"
    machine.write_text(
        '[[partition]]\nname = "p"\ndefault = true\n[[partition.nodes]]\ncount = 8\ncores = 1\n'
        "idle_w = 100\nbusy_w = 300\n"
    )
    series = tmp_path / "i.csv"
    series.write_text("time,gco2_per_kwh\n0,500\n60,100\n")
    r = schedlab.run(trace=small_swf, scheduler="easy", machine=str(machine), carbon=str(series))
    # A job's cores at 300 W while it ran; the jobs' energies sum to the run's jobs_kwh.
    jobs = r.jobs
    assert list(jobs["energy_j"]) == list(300.0 * jobs["procs"] * (jobs["end"] - jobs["start"]))
    assert jobs["energy_j"].sum() / 3.6e6 == pytest.approx(r.summary["energy"]["jobs_kwh"], rel=1e-12)
    assert (jobs["carbon_g"] > 0).all()
    out = tmp_path / "jobs.csv"
    args = ["run", "--trace", str(small_swf), "--scheduler", "easy", "--machine", str(machine)]
    subprocess.run([cli, *args, "--carbon", str(series), "--jobs-out", str(out)], check=True, capture_output=True)
    written = pd.read_csv(out)
    for column in ["energy_j", "carbon_g"]:
        assert np.allclose(written[column], jobs[column], rtol=0, atol=1e-6), column
    assert "energy_j" not in schedlab.run(trace=small_swf, scheduler="easy").jobs


def test_jobs_table_columns_dtypes_and_invariants():
    r = schedlab.run(model="lublin", scheduler="easy", procs=64, jobs=3000, seed=5)
    j = r.jobs
    assert isinstance(j, pd.DataFrame)
    assert list(j.columns) == [
        "job_id", "submit", "start", "end", "wait", "response", "bsld", "procs", "runtime",
        "estimate", "prediction", "deadline_misses", "absolute_inaccuracy",
        "relative_accuracy", "user",
    ]
    assert j["submit"].dtype == np.int64 and j["procs"].dtype == np.uint32
    assert j["bsld"].dtype == np.float64 and j["user"].dtype == np.int32
    assert len(j) == r.summary["jobs"] == 3000
    assert (j["start"] >= j["submit"]).all()
    assert (j["end"] - j["start"] == j["runtime"]).all()
    assert (j["wait"] == j["start"] - j["submit"]).all()
    assert (j["procs"] <= 64).all()
    assert j["wait"].mean() == pytest.approx(r.summary["mean_wait"], rel=1e-12)
    assert j["bsld"].mean() == pytest.approx(r.summary["mean_bsld"], rel=1e-12)


def test_summary_equals_the_command_lines_json(cli):
    args = ["--model", "lublin", "--scheduler", "sjbf", "--param", "procs=64", "--param", "jobs=2000"]
    out = subprocess.run([cli, "run", *args, "--seed", "9", "--json"], check=True, capture_output=True, text=True)
    expected = json.loads(out.stdout)
    got = schedlab.run(model="lublin", scheduler="sjbf", procs=64, jobs=2000, seed=9).summary
    assert got == expected


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = schedlab.run(model="lublin", procs=32, jobs=1000, seed=3)
    b = schedlab.run(model="lublin", procs=32, jobs=1000, seed=3)
    c = schedlab.run(model="lublin", procs=32, jobs=1000, seed=4)
    assert a.summary == b.summary
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    assert a.summary["mean_wait"] != c.summary["mean_wait"]


def test_without_the_jobs_table():
    r = schedlab.run(model="lublin", procs=32, jobs=500, job_table=False)
    assert r.jobs is None and r.summary["jobs"] == 500


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(model="nope"), "model = 'nope': unknown; allowed: downey, lublin"),
        (dict(model="lublin", bogus=1), "bogus: not a parameter of model lublin"),
        (dict(model="lublin", load=[0.5]), "load: a list is not a parameter value"),
        (dict(model="lublin", scheduler="easy2"), "easy2"),
        (dict(), "run needs a workload"),
        (dict(model="lublin", trace="x.swf"), "both model and trace"),
    ],
)
def test_bad_parameters_are_value_errors_with_the_librarys_message(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        schedlab.run(**kwargs)


def test_trace_errors_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 8\n1 0 -1 100 4 -1 -1 4 200 -1 1 7 1 1 1 1 -1 -1\n2 10 -1 x 8\n")
    with pytest.raises(ValueError, match=r"bad.swf:3"):
        schedlab.read_trace(bad)
    with pytest.raises(ValueError, match=r"bad.swf:3"):
        schedlab.run(trace=bad)
    lenient = schedlab.read_trace(bad, lenient=True)
    assert len(lenient) == 1 and lenient.info["skipped"]["malformed"] == 1
    with pytest.raises(FileNotFoundError, match="missing.swf"):
        schedlab.read_trace(tmp_path / "missing.swf")
    # A trace with nothing left to simulate can be read, not run.
    assert len(schedlab.read_trace(bad, lenient=True, jobs="2..")) == 0
    with pytest.raises(ValueError, match="no job to simulate: 1 skipped .malformed 1., 1 outside the selection"):
        schedlab.run(trace=bad, lenient=True, jobs="2..")


def test_read_trace_columns(small_swf):
    t = schedlab.read_trace(small_swf)
    assert len(t) == 5 and t.procs == 8
    assert list(t.submit) == [0, 10, 20, 30, 40]
    assert list(t["runtime"]) == [100, 50, 30, 10, 500]
    assert list(t.estimate) == [200, 60, 100, 20, 600]
    assert list(t.user) == [7, 7, 9, 9, 3]
    assert t.submit.dtype == np.int64 and t.status.dtype == np.int8
    assert t.info["users"] == 3 and t.info["jobs"] == 5
    assert list(t.to_pandas().columns)[:4] == ["job_id", "submit", "recorded_wait", "runtime"]
    assert list(schedlab.read_trace(small_swf, first=2).submit) == [0, 10]
    assert list(schedlab.read_trace(small_swf, jobs="2..4").job_id) == [2, 3]
    with pytest.raises(AttributeError):
        t.no_such_column


def test_read_a_real_trace(trace):
    t = schedlab.read_trace(trace("CTC-SP2-1996-3.1-cln.swf.gz"))
    assert len(t) == 77222 and t.procs == 338
    assert np.all(np.diff(t.submit) >= 0)


SPEC = {
    "name": "py",
    "seed": 3,
    "metrics": ["mean_wait", "mean_bsld"],
    "run": {"model": "lublin", "procs": 64, "jobs": 2000},
    "axes": {"scheduler": ["easy", "fcfs"]},
    "replications": {"count": 2},
}

SPEC_TOML = """
name = "py"
seed = 3
metrics = ["mean_wait", "mean_bsld"]
[run]
model = "lublin"
procs = 64
jobs = 2000
[axes]
scheduler = ["easy", "fcfs"]
[replications]
count = 2
"""


def test_a_sweep_from_a_dict_text_or_file_gives_the_same_results(tmp_path):
    from_dict = schedlab.sweep(SPEC)
    from_text = schedlab.sweep(SPEC_TOML)
    spec = tmp_path / "py.toml"
    spec.write_text(SPEC_TOML)
    from_file = schedlab.sweep(spec, threads=1, out=tmp_path / "out")
    for other in (from_text, from_file):
        pd.testing.assert_frame_equal(from_dict.summary, other.summary)
        pd.testing.assert_frame_equal(from_dict.runs, other.runs)
    assert from_dict.out is None and from_file.out == tmp_path / "out"
    assert (tmp_path / "out" / "summary.csv").exists()
    assert len(from_dict.runs) == 4 and from_dict.report["replications"] == 4
    assert set(from_dict.summary["scheduler"]) == {"easy", "fcfs"}


def test_a_sweep_writes_what_the_command_line_writes(cli, tmp_path):
    spec = tmp_path / "py.toml"
    spec.write_text(SPEC_TOML)
    subprocess.run([cli, "sweep", str(spec), "--out", str(tmp_path / "cli"), "--quiet"], check=True, capture_output=True)
    schedlab.sweep(spec, out=tmp_path / "py")
    for name in ("runs.csv", "summary.csv", "summary.md", "spec.toml"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name


def test_sweep_errors():
    with pytest.raises(ValueError, match="no `metrics`: the spec must give it"):
        schedlab.sweep({"run": {"model": "lublin"}})
    with pytest.raises(ValueError, match="threads = 0"):
        schedlab.sweep(SPEC, threads=0)
    with pytest.raises(FileNotFoundError, match="no_such.toml"):
        schedlab.sweep("no_such.toml")
    with pytest.raises(TypeError):
        schedlab.sweep(42)


def test_sizes_past_the_machine_are_exceptions_not_aborts():
    # A failed allocation would abort the interpreter: the run is refused first, --yes or not.
    with pytest.raises(ValueError, match="--yes cannot lift this"):
        schedlab.run(model="lublin", jobs=10**12, yes=True)
    with pytest.raises(ValueError, match="pass --yes"):
        schedlab.run(model="lublin", jobs=10**8)


def test_sweep_threads_are_capped_as_on_the_command_line():
    with pytest.warns(UserWarning, match=r"threads 100000 capped at \d+ \(8 per core"):
        result = schedlab.sweep(SPEC, threads=100000)
    assert len(result.runs) == 4


def test_a_saturated_run_says_so():
    with pytest.warns(UserWarning, match="a saturated run"):
        schedlab.run(model="lublin", jobs=3000, load=1.5, scheduler="easy")


def test_simulations_in_two_threads_run_at_the_same_time():
    # Each thread notes when its simulation starts and ends. With the GIL held, the second
    # could only start once the first has returned; released, the two overlap for most of
    # their length (on one core too: the OS shares it between the threads).
    spans = {}

    def simulate(name):
        t0 = time.perf_counter()
        schedlab.run(model="lublin", procs=128, jobs=200_000, seed=2, job_table=False)
        spans[name] = (t0, time.perf_counter())

    threads = [threading.Thread(target=simulate, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a0, a1), (b0, b1) = spans["a"], spans["b"]
    overlap = min(a1, b1) - max(a0, b0)
    assert overlap > 0.5 * min(a1 - a0, b1 - b0), spans


def test_ctrl_c_stops_a_sweep_and_resume_finishes_it(tmp_path):
    import _thread

    spec = dict(SPEC, run={"model": "lublin", "procs": 64, "jobs": 30000}, replications={"count": 30})
    started = time.perf_counter()
    schedlab.sweep(spec, out=tmp_path / "whole", threads=1)
    whole = time.perf_counter() - started
    # Ctrl-C a quarter of the way through: the tasks under way finish into the journal.
    timer = threading.Timer(whole / 4, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        schedlab.sweep(spec, out=tmp_path / "cut", threads=1)
    timer.join()
    rows = (tmp_path / "cut" / "runs.csv").read_text().count("\n") - 1
    assert 0 < rows < 60, rows
    again = schedlab.sweep(spec, out=tmp_path / "cut", threads=1, resume=True)
    assert again.report["resumed"] == rows and again.report["replications"] == 60 - rows
    for name in ("runs.csv", "summary.csv", "summary.md"):
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "cut" / name).read_bytes(), name


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "1", True])
def test_a_seed_outside_64_bits_is_a_value_error(seed):
    with pytest.raises(ValueError, match="seed = "):
        schedlab.run(model="lublin", jobs=100, seed=seed)


def test_first_zero_is_refused(small_swf):
    with pytest.raises(ValueError, match="first=0: keep at least 1 job"):
        schedlab.read_trace(small_swf, first=0)
