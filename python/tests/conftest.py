"""Shared fixtures: the command-line binary to compare against, and the archive's traces."""

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT.parent / "shared" / "traces"


@pytest.fixture
def cli():
    """The `schedlab` binary scripts/test built (SCHEDLAB_BIN), or one on PATH."""
    binary = os.environ.get("SCHEDLAB_BIN") or shutil.which("schedlab")
    if not binary or not Path(binary).exists():
        pytest.skip("SKIPPED: no schedlab binary (set SCHEDLAB_BIN, as scripts/test does)")
    return binary


@pytest.fixture
def trace():
    """A path in ../shared/traces, or a skip that says it is absent."""

    def find(name):
        path = TRACES / name
        if not path.exists():
            pytest.skip(f"SKIPPED: {path} is absent")
        return path

    return find


@pytest.fixture
def small_swf(tmp_path):
    """A five-job SWF trace on an 8-processor machine, written by hand."""
    path = tmp_path / "small.swf"
    path.write_text(
        "; MaxProcs: 8\n"
        # id submit wait run procs cpu mem req_procs req_time req_mem status user group exe queue part prec think
        "1 0 -1 100 4 -1 -1 4 200 -1 1 7 1 1 1 1 -1 -1\n"
        "2 10 -1 50 8 -1 -1 8 60 -1 1 7 1 1 1 1 -1 -1\n"
        "3 20 -1 30 2 -1 -1 2 100 -1 1 9 1 2 1 1 -1 -1\n"
        "4 30 -1 10 2 -1 -1 2 20 -1 1 9 1 2 1 1 -1 -1\n"
        "5 40 -1 500 1 -1 -1 1 600 -1 1 3 1 3 1 1 -1 -1\n"
    )
    return path
