"""Environment steps per second of schedlab.gym.JobSchedulingEnv on one core, with random
valid actions (resets included): the Lublin model on 256 processors, and the SDSC SP2 log
(128 processors) when ../shared/traces holds it, each with and without backfilling; and the
first through gymnasium.make. Prints the median of 5 rounds of 200,000 steps.

    python benches/python/gym_steps.py      # with the package installed (pip install ./python)
"""

import random
import statistics
import time
from pathlib import Path

import gymnasium as gym

from schedlab.gym import JobSchedulingEnv

TRACE = Path(__file__).resolve().parents[3] / "shared" / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"


def steps_per_second(env, steps=200_000):
    rng = random.Random(1)
    done, episode, taken = True, 0, 0
    started = time.perf_counter()
    while taken < steps:
        if done:
            env.reset(seed=episode)
            episode += 1
        # The valid actions are a prefix of the window: any index below their count.
        _, _, done, _, _ = env.step(rng.randrange(env.unwrapped.valid_actions))
        taken += 1
    return taken / (time.perf_counter() - started)


def main():
    setups = [("lublin-256", dict())]
    if TRACE.exists():
        setups.append(("sdsc-sp2", dict(trace=TRACE)))
    else:
        print(f"SKIPPED sdsc-sp2: {TRACE} is absent")
    envs = [
        (f"{name} backfill={backfill}", JobSchedulingEnv(episode_jobs=256, window=32, backfill=backfill, **kwargs))
        for backfill in (False, True)
        for name, kwargs in setups
    ]
    # Through gymnasium.make's wrappers (order enforcing, the passive checker), as most
    # training code builds it.
    envs.append(("lublin-256 backfill=False, gymnasium.make", gym.make("schedlab/JobScheduling-v0")))
    for name, env in envs:
        rounds = [steps_per_second(env) for _ in range(5)]
        print(
            f"{name:42s} median {statistics.median(rounds):>9,.0f} steps/s "
            f"(rounds: {', '.join(f'{r:,.0f}' for r in rounds)})"
        )


if __name__ == "__main__":
    main()
