"""A Gymnasium environment in which an agent chooses which waiting job starts next.

``JobSchedulingEnv`` is registered as ``schedlab/JobScheduling-v0`` when this module is
imported (``gymnasium.make("schedlab.gym:schedlab/JobScheduling-v0")`` imports it). The
simulation runs in schedlab's Rust engine; the episode rules and the observation's columns
are documented in ``docs/python.md`` and in the library's ``agent`` module.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import _native

__all__ = ["JobSchedulingEnv", "FEATURE_NAMES", "NODE_FEATURE_NAMES"]

#: The observation's columns, one row per slot of the window of waiting jobs.
FEATURE_NAMES = tuple(_native.FEATURE_NAMES)
NODE_FEATURE_NAMES = tuple(_native.NODE_FEATURE_NAMES)


class JobSchedulingEnv(gym.Env):
    """Episodes of ``episode_jobs`` consecutive jobs of a trace, a resampled trace or a
    workload model, each drawn by ``reset(seed=...)``, on an empty machine.

    At each step the agent picks one of the first ``window`` waiting jobs (in arrival
    order). A job that fits starts at once; one that does not is reserved, and time moves
    on until it starts; with ``backfill=True`` other jobs start ahead of it by EASY's rule.

    - action: ``Discrete(window)``; the valid ones are a prefix, given by ``action_masks()``
      (as sb3-contrib's MaskablePPO reads it) and ``info["action_mask"]``. An invalid
      action starts the first waiting job, and ``info["invalid_action"]`` says so.
    - observation: ``float32`` array of shape ``(window, 8)``, columns ``FEATURE_NAMES``:
      present, wait so far (hours), estimate (hours), processors / machine size, fits now,
      share of the window's jobs of the same user, free processors / machine size, waiting
      jobs / window. Empty slots are zeros. On a ``machine=`` of one partition whose nodes
      describe memory or GPUs (or are whole-node), jobs are placed on its nodes, "fits now"
      asks whether its nodes hold the job's request, and the observation has
      ``NODE_FEATURE_NAMES``: four more columns, the job's memory and GPUs and the memory
      and GPUs free, each a share of the partition's (0 where its nodes describe none);
      ``feature_names`` names the columns of this environment.
    - reward: 0 until the last job ends, then ``-mean bounded slowdown`` (``reward="bsld"``),
      ``-mean wait in hours`` (``"wait"``), the utilisation (``"utilization"``), ``-kWh``
      from the first arrival to the last end (``"energy"``, with ``machine=`` a file whose
      nodes give their power) or ``-kg of CO2`` (``"carbon"``, with ``carbon=`` a series
      too).

    The workload is given as for ``schedlab.run``: ``trace=...`` (with ``resample``,
    ``load``, ... ) or ``model=...`` with its parameters; the default is the Lublin model on
    256 processors.
    """

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        trace: Optional[Union[str, os.PathLike]] = None,
        model: Optional[str] = None,
        window: int = 32,
        episode_jobs: int = 256,
        backfill: bool = False,
        reward: str = "bsld",
        **params: Any,
    ):
        if trace is None and model is None:
            model = "lublin"
            params.setdefault("procs", 256)
        if trace is not None:
            params["trace"] = os.fspath(trace)
        params["model"] = model
        self._env = _native.Environment(params, int(window), int(episode_jobs), bool(backfill), reward)
        self.window = int(window)
        self.feature_names: Tuple[str, ...] = tuple(self._env.feature_names)
        self.observation_space = spaces.Box(
            0.0, np.inf, shape=(self.window, len(self.feature_names)), dtype=np.float32
        )
        self.action_space = spaces.Discrete(self.window)
        self._valid = 0

    @property
    def valid_actions(self) -> int:
        """How many actions are valid: slots ``0 .. valid_actions - 1`` hold waiting jobs."""
        return self._valid

    def action_masks(self) -> np.ndarray:
        """Which actions name a waiting job (a prefix of the window)."""
        mask = np.zeros(self.window, dtype=bool)
        mask[: self._valid] = True
        return mask

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        episode = int(self.np_random.integers(0, 2**63 - 1))
        observation, self._valid = self._env.reset(episode)
        return observation, {"action_mask": self.action_masks()}

    def step(self, action) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        action = int(action)
        # Outside the action space: an invalid action like an empty slot.
        if not 0 <= action < self.window:
            action = self.window
        observation, reward, terminated, invalid, self._valid = self._env.step(action)
        info = {"action_mask": self.action_masks(), "invalid_action": invalid}
        return observation, float(reward), terminated, False, info

    @property
    def procs(self) -> int:
        """Processors of the episode's machine."""
        return self._env.procs

    def schedule(self) -> Dict[str, np.ndarray]:
        """The episode's jobs and their start and end times so far (the smallest int64
        until known): for analysing what the agent did."""
        return self._env.schedule()


def _register() -> None:
    if "schedlab/JobScheduling-v0" not in gym.registry:
        gym.register(id="schedlab/JobScheduling-v0", entry_point="schedlab.gym:JobSchedulingEnv")


_register()
