"""The examples in examples/python run as written and print what they say."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.parametrize(
    "script, args, expected",
    [
        ("analyse_sweep.py", [], "Mean bounded slowdown"),
        ("priority_policy.py", [], "priority(backfill=easy)"),
        ("random_agent.py", [], "shortest  mean bounded slowdown over 20 episodes"),
        ("train_reinforce.py", ["--iterations", "3"], "iteration   2: mean reward"),
    ],
)
def test_example_runs(script, args, expected):
    done = subprocess.run([sys.executable, EXAMPLES / script, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout, done.stdout


def test_the_readmes_python_example_runs(monkeypatch):
    root = EXAMPLES.parents[1]
    readme = (root / "README.md").read_text()
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(root)
    exec(compile(block, "README.md", "exec"), {})
