"""The Gymnasium environment: Gymnasium's own checks, vectorisation, determinism, masks,
and the schedule of an agent that always picks the head against the engine's FCFS and EASY."""

import random
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import schedlab
from schedlab.gym import FEATURE_NAMES, NODE_FEATURE_NAMES, JobSchedulingEnv


def play(env, seed, pick=lambda valid: 0):
    """One episode; returns the observations, the reward and the steps."""
    obs, info = env.reset(seed=seed)
    seen, steps, done = [obs], 0, False
    while not done:
        valid = int(info["action_mask"].sum())
        obs, reward, done, truncated, info = env.step(pick(valid))
        assert not truncated
        seen.append(obs)
        steps += 1
    return seen, reward, steps


def test_passes_gymnasiums_checker():
    with warnings.catch_warnings():
        # The wait column has no upper bound; the checker says so.
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        warnings.filterwarnings("ignore", message=".*alternative render modes.*")
        check_env(JobSchedulingEnv(episode_jobs=64), skip_render_check=True)


def test_registered_and_made_by_id():
    env = gym.make("schedlab/JobScheduling-v0", episode_jobs=32, window=8)
    obs, info = env.reset(seed=0)
    assert obs.shape == (8, len(FEATURE_NAMES)) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)


def test_same_seed_same_episode():
    env = JobSchedulingEnv(episode_jobs=100, backfill=True)
    rng = random.Random(4)
    a = play(env, 12, lambda v: rng.randrange(v))
    rng = random.Random(4)
    b = play(env, 12, lambda v: rng.randrange(v))
    assert a[1] == b[1] and a[2] == b[2]
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0]))
    # Another seed, other jobs (the reward may agree: a light episode has no waits at all).
    other = play(env, 13)[0]
    assert len(other) != len(a[0]) or any(not np.array_equal(x, y) for x, y in zip(other, a[0]))


def test_masks_are_a_prefix_and_invalid_actions_are_flagged():
    env = JobSchedulingEnv(episode_jobs=200, window=4)
    obs, info = env.reset(seed=1)
    for _ in range(50):
        mask = env.action_masks()
        valid = int(mask.sum())
        assert valid >= 1 and mask[:valid].all() and not mask[valid:].any()
        assert np.array_equal(mask, info["action_mask"])
        assert (obs[:valid, 0] == 1).all() and (obs[valid:] == 0).all()
        if valid < 4:
            obs, reward, done, _, info = env.step(3)
            assert info["invalid_action"]
        else:
            obs, reward, done, _, info = env.step(0)
            assert not info["invalid_action"]
        if done:
            break


def test_actions_outside_the_space_are_invalid_actions():
    env = JobSchedulingEnv(episode_jobs=20, window=4)
    env.reset(seed=0)
    for action in (-1, 2**70, 4):
        _, _, done, _, info = env.step(action)
        assert info["invalid_action"]
        if done:
            break
    with pytest.raises(ValueError, match="episode_jobs = 2000000"):
        JobSchedulingEnv(episode_jobs=2_000_000)


def test_sync_vector_env():
    envs = gym.vector.SyncVectorEnv([lambda: JobSchedulingEnv(episode_jobs=40, window=8) for _ in range(3)])
    obs, info = envs.reset(seed=[1, 2, 3])
    assert obs.shape == (3, 8, len(FEATURE_NAMES))
    for _ in range(100):
        obs, reward, terminated, truncated, info = envs.step(np.zeros(3, dtype=np.int64))
    assert obs.shape == (3, 8, len(FEATURE_NAMES))


def swf_of(schedule, path, procs):
    """The episode's jobs as an SWF trace for `schedlab.run`."""
    lines = [f"; MaxProcs: {procs}"]
    for i in range(len(schedule["submit"])):
        p = int(schedule["procs"][i])
        lines.append(
            f"{i + 1} {schedule['submit'][i]} -1 {schedule['runtime'][i]} {p} -1 -1 {p} "
            f"{schedule['estimate'][i]} -1 1 {schedule['user'][i]} -1 -1 -1 -1 -1 -1"
        )
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("backfill, scheduler", [(False, "fcfs"), (True, "easy")])
def test_always_the_head_is_the_engines_fcfs_or_easy(tmp_path, backfill, scheduler):
    env = JobSchedulingEnv(episode_jobs=300, window=16, backfill=backfill, reward="wait")
    _, reward, _ = play(env, 21)
    schedule = env.schedule()
    swf = swf_of(schedule, tmp_path / "episode.swf", env.procs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = schedlab.run(trace=swf, scheduler=scheduler)
    assert np.array_equal(run.jobs["start"].to_numpy(), schedule["start"])
    assert reward == pytest.approx(-run.summary["mean_wait"] / 3600, rel=1e-12)


def test_rewards():
    for kind in ("bsld", "wait"):
        assert play(JobSchedulingEnv(episode_jobs=50, reward=kind), 0)[1] < 0
    utilization = play(JobSchedulingEnv(episode_jobs=50, reward="utilization"), 0)[1]
    assert 0 < utilization <= 1


def test_energy_and_carbon_rewards(small_swf, tmp_path):
    machine = tmp_path / "power.toml"
    machine.write_text(
        '[[partition]]\nname = "p"\ndefault = true\n[[partition.nodes]]\ncount = 8\ncores = 1\n'
        "idle_w = 100\nbusy_w = 300\n"
    )
    series = tmp_path / "i.csv"
    series.write_text("time,gco2_per_kwh\n0,500\n")
    env = JobSchedulingEnv(trace=small_swf, machine=str(machine), episode_jobs=5, reward="energy")
    _, energy, _ = play(env, 0)
    # Every node idles at 100 W over the episode's span, and each busy core adds 200 W.
    schedule = env.schedule()
    span = max(schedule["end"]) - min(schedule["submit"])
    busy = sum(int(p) * (e - s) for p, s, e in zip(schedule["procs"], schedule["start"], schedule["end"]))
    assert energy == pytest.approx(-(8 * 100 * span + 200 * busy) / 3.6e6, rel=1e-12)
    env = JobSchedulingEnv(
        trace=small_swf, machine=str(machine), carbon=str(series), episode_jobs=5, reward="carbon"
    )
    _, carbon, _ = play(env, 0)
    assert carbon == pytest.approx(energy * 0.5, rel=1e-12)
    with pytest.raises(ValueError, match="reward = 'energy': needs a machine"):
        JobSchedulingEnv(trace=small_swf, episode_jobs=5, reward="energy")


def test_bad_arguments():
    with pytest.raises(ValueError, match="reward = slowdown: expected"):
        JobSchedulingEnv(reward="slowdown")
    with pytest.raises(ValueError, match="window = 0"):
        JobSchedulingEnv(window=0)
    with pytest.raises(ValueError, match="takes no scheduler"):
        JobSchedulingEnv(scheduler="easy")
    with pytest.raises(ValueError, match="fewer than an episode"):
        JobSchedulingEnv(model="lublin", jobs=10, episode_jobs=100)
    with pytest.raises(ValueError, match="call reset"):
        JobSchedulingEnv().step(0)


def test_episodes_from_a_resampled_trace(trace):
    path = trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    env = JobSchedulingEnv(trace=path, resample="shake", episode_jobs=128, backfill=True)
    _, reward, steps = play(env, 5, lambda v: v - 1)
    assert reward < 0 and 1 <= steps <= 128
    assert env.procs == 128


def test_episodes_on_a_machine_of_nodes(tmp_path):
    """On nodes whose memory binds, the observation has the node columns, Gymnasium's
    checker passes, and some job that does not fit asks fewer cores than are free."""
    machine = tmp_path / "nodes.toml"
    machine.write_text(
        '[[partition]]\nname = "p"\ndefault = true\n[[partition.nodes]]\ncount = 8\ncores = 8\nmemory_gb = 32\n'
    )

    def make():
        return JobSchedulingEnv(
            model="lublin", jobs=2000, machine=str(machine), memory_pressure=1.5, episode_jobs=64, window=8, backfill=True
        )

    env = make()
    assert env.feature_names == NODE_FEATURE_NAMES and NODE_FEATURE_NAMES[:8] == FEATURE_NAMES
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*maximum value is infinity.*")
        warnings.filterwarnings("ignore", message=".*alternative render modes.*")
        check_env(make(), skip_render_check=True)
    seen, reward, steps = play(env, 3)
    assert reward < 0 and steps >= 1 and env.procs == 64
    assert all(o.shape == (8, len(NODE_FEATURE_NAMES)) for o in seen)
    procs, fits, free, memory = 3, 4, 6, 8
    blocked = [((o[:, 0] == 1) & (o[:, fits] == 0) & (o[:, procs] <= o[:, free])).any() for o in seen]
    assert any(blocked)
    assert all(((o[:, memory] > 0) == (o[:, 0] == 1)).all() for o in seen)
