"""schedlab: parallel-job-scheduling simulation on schedlab's Rust engine.

Runs take the parameters of a sweep spec's ``[run]`` table as keyword arguments (one
grammar for the command line, sweep files and Python), and return numpy arrays or, when
pandas is installed, DataFrames. Simulations release the GIL, so Python threads running
them use several cores. Bad input raises ``ValueError`` (a missing file
``FileNotFoundError``) with the library's message.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Union

import numpy as np

from . import _native

__all__ = ["run", "Run", "Priority", "sweep", "Sweep", "read_trace", "Trace", "__version__"]
__version__ = _native.__version__


def _frame(columns: Dict[str, np.ndarray]):
    """A DataFrame of ``columns`` when pandas is installed, else the dict itself."""
    try:
        import pandas as pd
    except ImportError:
        return columns
    return pd.DataFrame(columns, copy=False)


def _read_csv(path: Path):
    """A CSV file as a DataFrame, or without pandas as a dict of numpy arrays (numbers
    where a whole column parses as numbers, strings otherwise)."""
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        return pd.read_csv(path)
    import csv

    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    out: Dict[str, np.ndarray] = {}
    for i, name in enumerate(header):
        values = [r[i] for r in body]
        try:
            out[name] = np.array([float(v) if v != "" else np.nan for v in values])
        except ValueError:
            out[name] = np.array(values, dtype=object)
    return out


def _seed(seed) -> int:
    """The seed as the library takes it: a whole number from 0 to 2**64 - 1."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed = {seed!r}: expected a whole number from 0 to 2**64 - 1")
    return int(seed)


def _warn(messages) -> None:
    for m in messages:
        warnings.warn(f"schedlab: {m}", stacklevel=3)


class Run:
    """One simulated run.

    ``summary`` is a dict with the keys of ``schedlab run --json``; ``jobs`` holds one row per
    job in arrival order (the columns of ``--jobs-out`` but ``predictions``): a DataFrame
    when pandas is installed, otherwise a dict of numpy arrays; ``None`` with
    ``job_table=False``.
    """

    def __init__(self, summary: Dict[str, Any], jobs):
        self.summary = summary
        self.jobs = jobs

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Run({s['workload']!r}, scheduler={s['scheduler']!r}, jobs={s['jobs']}, "
            f"mean_wait={s['mean_wait']:.1f}, mean_bsld={s['mean_bsld']:.3f})"
        )


class Priority:
    """A queue order written in Python, run inside the engine.

    At each scheduling pass where a job could start (jobs wait and a processor is free),
    ``function`` is called with a float64 array of shape (waiting jobs, 7), one row per
    waiting job in arrival order, columns ``Priority.COLUMNS``: ``job`` (its row in
    ``Run.jobs``), ``submit``, ``wait`` (so far) and ``estimate`` in seconds, ``procs``,
    ``user`` (-1 unknown), and ``free`` (the free processors, on every row). It returns one
    score per row (a sequence or array of numbers); jobs are tried in ascending score, ties
    by arrival, a NaN last. The array is a view of a buffer the engine reuses: copy it to
    keep it beyond the call.

    ``backfill``: ``"easy"`` (jobs behind the first blocked one start if they do not delay
    it), ``"conservative"`` (every job gets a reservation in score order, rebuilt at each
    pass) or ``None`` (the first blocked job blocks the rest). Ranking by the ``job`` column
    gives FCFS, EASY and (with exact estimates) conservative backfilling, as tested.

    An exception raised by ``function`` ends the run: the simulation finishes in arrival
    order and ``run`` raises the exception.
    """

    COLUMNS = tuple(_native.PRIORITY_COLUMNS)

    def __init__(self, function, backfill: Optional[str] = "easy"):
        if not callable(function):
            raise TypeError(f"Priority: function must be callable, not {type(function).__name__}")
        if backfill not in ("easy", "conservative", None):
            raise ValueError(f"backfill = {backfill!r}: expected 'easy', 'conservative' or None")
        self.function = function
        self.backfill = backfill

    def __repr__(self) -> str:
        return f"Priority({getattr(self.function, '__name__', self.function)!r}, backfill={self.backfill!r})"


def run(
    trace: Optional[Union[str, os.PathLike]] = None,
    model: Optional[str] = None,
    scheduler: Union[str, Priority] = "easy",
    predictor: Optional[str] = None,
    procs: Optional[int] = None,
    seed: int = 1,
    job_table: bool = True,
    yes: bool = False,
    **params: Any,
) -> Run:
    """Simulates a trace or a workload model under a scheduler.

    ``scheduler`` is a scheduler's name (as in sweep specs) or a :class:`Priority`.
    ``params`` are the run parameters of a sweep spec (``load``, ``days``, ``resample``,
    ``priorities``, ...; docs/semantics.md). The seed defaults to 1, as on the command line,
    so ``run(model="lublin")`` and ``schedlab run --model lublin`` give the same numbers.
    ``job_table=False`` skips the per-job table (``jobs`` is the model's job count or a
    trace's job range, as in sweep specs); ``yes=True`` allows a replication of more than
    20 million jobs.
    """
    if trace is not None:
        params["trace"] = os.fspath(trace)
    priority = None
    if isinstance(scheduler, Priority):
        if predictor is not None:
            raise ValueError("predictor: a Priority policy reads the user estimates; predictor does not apply")
        priority, scheduler = scheduler, "fcfs"
    params.update(model=model, scheduler=scheduler, predictor=predictor, procs=procs)
    summary, columns, messages = _native.run(
        params,
        _seed(seed),
        jobs=job_table,
        yes=yes,
        priority=None if priority is None else priority.function,
        backfill="none" if priority is None or priority.backfill is None else priority.backfill,
    )
    _warn(messages)
    return Run(json.loads(summary), None if columns is None else _frame(columns))


class Sweep:
    """A finished sweep: ``runs`` (one row per replication, runs.csv) and ``summary`` (one
    row per cell with its interval, summary.csv), DataFrames when pandas is installed.
    ``out`` is the output folder, or ``None`` when the sweep ran in a temporary one."""

    def __init__(self, runs, summary, out: Optional[Path], report: Dict[str, Any]):
        self.runs = runs
        self.summary = summary
        self.out = out
        self.report = report

    def __repr__(self) -> str:
        r = self.report
        return f"Sweep({r['cells']} cells, {r['replications']} replications, {r['seconds']:.2f} s)"


def sweep(
    spec: Union[str, os.PathLike, Mapping[str, Any]],
    threads: Optional[int] = None,
    out: Optional[Union[str, os.PathLike]] = None,
    *,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    yes: bool = False,
) -> Sweep:
    """Runs a sweep spec: a path to a TOML file, TOML text, or a dict with the same tables.

    The outputs are those of ``schedlab sweep``; without ``out`` they are written to a
    temporary folder, read, and removed. Relative trace paths start at the spec file's
    folder, or at the working directory for text and dicts.
    """
    if isinstance(spec, Mapping):
        text, path, base = _native.spec_toml(json.dumps(spec)), Path("<dict>"), Path.cwd()
    elif isinstance(spec, os.PathLike) or (isinstance(spec, str) and "\n" not in spec and spec.endswith(".toml")):
        path = Path(spec)
        try:
            text = path.read_text()
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such sweep spec") from None
        base = path.parent
    elif isinstance(spec, str):
        text, path, base = spec, Path("<text>"), Path.cwd()
    else:
        raise TypeError(f"spec: a path, TOML text or a dict, not {type(spec).__name__}")
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="schedlab-sweep-"))
    try:
        cells, ran, resumed, jobs, seconds, messages = _native.sweep(
            text, str(path), str(base), str(folder), threads, resume, force, progress, yes
        )
        _warn(messages)
        runs = _read_csv(folder / "runs.csv")
        summary = _read_csv(folder / "summary.csv")
    finally:
        if out is None:
            shutil.rmtree(folder, ignore_errors=True)
    report = dict(cells=cells, replications=ran, resumed=resumed, jobs=jobs, seconds=seconds)
    return Sweep(runs, summary, None if out is None else folder, report)


class Trace:
    """An SWF trace read into columns: ``trace["submit"]`` or ``trace.submit`` is a numpy
    array (one entry per job, in submit order); ``info`` holds what ``schedlab trace info``
    reports (jobs, machine size, offered load, users, ...)."""

    def __init__(self, columns: Dict[str, np.ndarray], info: Dict[str, Any]):
        self.columns = columns
        self.info = info

    @property
    def procs(self) -> int:
        """Processors of the machine the trace ran on."""
        return int(self.info["procs"])

    def __len__(self) -> int:
        return len(self.columns["submit"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["columns"][name]
        except KeyError:
            raise AttributeError(name) from None

    def to_pandas(self):
        """The columns as a DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.columns, copy=False)

    def __repr__(self) -> str:
        return f"Trace({self.info['name']!r}, {len(self)} jobs, {self.procs} processors)"


def read_trace(
    path: Union[str, os.PathLike],
    procs: Optional[int] = None,
    jobs: Optional[str] = None,
    first: Optional[int] = None,
    lenient: bool = False,
) -> Trace:
    """Reads an SWF trace (``.swf`` or ``.swf.gz``). ``procs`` overrides the machine size,
    ``jobs`` selects a range of job numbers (``"1000..5000"``), ``first`` the first N jobs,
    and ``lenient`` skips malformed lines (counted in ``info``) instead of failing."""
    columns, info, messages = _native.read_trace(os.fspath(path), procs, jobs, first, lenient)
    _warn(messages)
    return Trace(columns, json.loads(info))
