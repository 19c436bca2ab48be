"""Batsim's ecosystem: evalys reads and plots the jobs schedlab writes as Batsim's
_jobs.csv, and a Batsim workload (JSON) runs as its SWF trace does."""

import json
import subprocess

import pytest

import schedlab

evalys_jobset = pytest.importorskip("evalys.jobset", reason="SKIPPED: evalys is not installed")


def test_evalys_reads_and_plots_a_schedlab_run(cli, small_swf, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from evalys.visu import core, gantt

    jobs_csv = tmp_path / "jobs.csv"
    subprocess.run(
        [cli, "run", "--trace", str(small_swf), "--scheduler", "easy", "--batsim-jobs-out", str(jobs_csv)],
        check=True,
        capture_output=True,
    )
    js = evalys_jobset.JobSet.from_csv(str(jobs_csv))
    # evalys renames job_id to jobID and reads allocated_resources as processor sets.
    df = js.df.sort_values("jobID")
    # The schedule by hand in test_api: EASY on 8 processors.
    assert list(df["starting_time"]) == [0, 100, 20, 30, 150]
    assert list(df["waiting_time"]) == [0, 90, 0, 0, 110]
    # evalys parses the interval sets: each job holds as many processors as it asked for,
    # all within the machine, and evalys' utilisation never exceeds it.
    assert [len(r) for r in df["allocated_resources"]] == list(df["requested_number_of_resources"])
    assert max(r.max for r in df["allocated_resources"]) == 7
    assert js.utilisation["load"].max() == 8
    layout = core.SimpleLayout(wtitle="schedlab EASY")
    layout.inject(gantt.GanttVisualization, spskey="all", title="EASY").build(js)
    png = tmp_path / "gantt.png"
    layout.fig.savefig(png)
    assert png.stat().st_size > 1000


def test_a_batsim_workload_runs_as_its_swf_trace(cli, small_swf, tmp_path):
    workload = tmp_path / "w.json"
    subprocess.run([cli, "trace", "convert", str(small_swf), "--out", str(workload)], check=True, capture_output=True)
    read = json.loads(workload.read_text())
    assert read["nb_res"] == 8 and len(read["jobs"]) == 5
    swf = schedlab.run(trace=small_swf, scheduler="easy")
    batsim = schedlab.run(trace=workload, scheduler="easy")
    assert list(batsim.jobs["start"]) == list(swf.jobs["start"]) == [0, 100, 20, 30, 150]
