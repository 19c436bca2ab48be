"""A short training loop: REINFORCE with a linear softmax policy over the waiting jobs'
features, masked to the valid slots, written with numpy alone so that it runs anywhere.
Episodes of 128 Lublin jobs with EASY backfilling; the reward is minus the mean bounded
slowdown. Prints the mean reward of each batch of 8 episodes; `--iterations` sets how many.
Each batch draws new episodes, whose difficulty varies far more than a few iterations of
learning change the policy: the loop shows how to drive the environment, not a result.

For a library agent, sb3-contrib's MaskablePPO reads the environment's action_masks()
(pip install sb3-contrib; not run by the tests):

    from sb3_contrib import MaskablePPO
    from schedlab.gym import JobSchedulingEnv
    model = MaskablePPO("MlpPolicy", JobSchedulingEnv(episode_jobs=128, backfill=True))
    model.learn(50_000)

    python examples/python/train_reinforce.py [--iterations 30]
"""

import argparse

import numpy as np

from schedlab.gym import FEATURE_NAMES, JobSchedulingEnv

parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=30)
args = parser.parse_args()

env = JobSchedulingEnv(episode_jobs=128, window=16, backfill=True)
rng = np.random.default_rng(0)
weights = np.zeros(len(FEATURE_NAMES))
baseline = None
for iteration in range(args.iterations):
    gradient, rewards = np.zeros_like(weights), []
    for episode in range(8):
        obs, info = env.reset(seed=int(rng.integers(1 << 31)))
        steps, done = [], False
        while not done:
            mask = info["action_mask"]
            # Features scaled down so that the scores stay in range.
            x = np.log1p(obs)
            logits = np.where(mask, x @ weights, -np.inf)
            p = np.exp(logits - logits.max())
            p /= p.sum()
            action = rng.choice(len(p), p=p)
            steps.append(x[action] - p @ x)  # gradient of log p(action)
            obs, reward, done, _, info = env.step(action)
        rewards.append(reward)
        baseline = reward if baseline is None else 0.9 * baseline + 0.1 * reward
        gradient += (reward - baseline) * np.sum(steps, axis=0)
    weights += 1e-4 * gradient / 8
    print(f"iteration {iteration:3d}: mean reward {np.mean(rewards):9.2f}")
print("weights:", {name: round(float(w), 3) for name, w in zip(FEATURE_NAMES, weights)})
