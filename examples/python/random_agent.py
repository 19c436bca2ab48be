"""Agents in the Gymnasium environment: random valid choices, the first waiting job (FCFS),
and the shortest estimate in the window, over the same 20 episodes of 256 Lublin jobs.

    python examples/python/random_agent.py
"""

import gymnasium as gym
import numpy as np

import schedlab.gym  # noqa: F401  (registers schedlab/JobScheduling-v0)
from schedlab.gym import FEATURE_NAMES

ESTIMATE = FEATURE_NAMES.index("estimate_hours")
env = gym.make("schedlab/JobScheduling-v0", episode_jobs=256, window=32, backfill=True)
rng = np.random.default_rng(0)

agents = {
    "random": lambda obs, mask: rng.choice(np.flatnonzero(mask)),
    "first": lambda obs, mask: 0,
    "shortest": lambda obs, mask: int(np.argmin(np.where(mask, obs[:, ESTIMATE], np.inf))),
}
for name, agent in agents.items():
    rewards = []
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(agent(obs, info["action_mask"]))
        rewards.append(reward)
    print(f"{name:9s} mean bounded slowdown over 20 episodes: {-np.mean(rewards):8.2f}")
