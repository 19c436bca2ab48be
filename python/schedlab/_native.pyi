"""Types of the extension module (python/src/lib.rs); the documented API is in __init__.py
and gym.py."""

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

__version__: str
FEATURE_NAMES: List[str]
NODE_FEATURE_NAMES: List[str]
PRIORITY_COLUMNS: List[str]

def run(
    params: Dict[str, Any],
    seed: int,
    jobs: bool = True,
    yes: bool = False,
    priority: Optional[Callable[[npt.NDArray[np.float64]], Any]] = None,
    backfill: str = "easy",
) -> Tuple[str, Optional[Dict[str, np.ndarray]], List[str]]: ...
def read_trace(
    path: str,
    procs: Optional[int] = None,
    jobs: Optional[str] = None,
    first: Optional[int] = None,
    lenient: bool = False,
) -> Tuple[Dict[str, np.ndarray], str, List[str]]: ...
def spec_toml(json: str) -> str: ...
def sweep(
    text: str,
    path: str,
    base_dir: str,
    out: str,
    threads: Optional[int] = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    yes: bool = False,
) -> Tuple[int, int, int, int, float, List[str]]: ...

class Environment:
    def __init__(self, params: Dict[str, Any], window: int, jobs: int, backfill: bool, reward: str) -> None: ...
    def reset(self, seed: int) -> Tuple[npt.NDArray[np.float32], int]: ...
    def step(self, action: int) -> Tuple[npt.NDArray[np.float32], float, bool, bool, int]: ...
    @property
    def steps(self) -> int: ...
    @property
    def feature_names(self) -> List[str]: ...
    @property
    def procs(self) -> int: ...
    def schedule(self) -> Dict[str, np.ndarray]: ...
