//! What a schedule costs in energy: each node's power, from idle to all cores busy and
//! linear in the busy cores in between, summed over the machine and integrated over the
//! run. docs/semantics.md, "Energy", states the model and its choices.

use serde::Serialize;

use crate::Time;
use crate::carbon::Intensity;
use crate::machine::{Machine, NodeSwitching};
use crate::sim::NodeSwitch;
use crate::workload::Jobs;

/// Joules in a kWh.
const JOULES_PER_KWH: f64 = 3.6e6;

/// What a run cost, over its whole span (the first submit to the last end), every job
/// counted (warm-up included: the machine drew the power).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergySummary {
    pub energy_kwh: f64,
    /// The jobs' share: each job's cores at their busy power while it ran.
    pub jobs_kwh: f64,
    /// The idle cores' share: the rest.
    pub idle_kwh: f64,
    pub mean_power_kw: f64,
    pub peak_power_kw: f64,
    /// Energy per core-hour of work done, Wh.
    pub wh_per_core_hour: f64,
    /// The span, seconds.
    pub span: Time,
    /// Carbon emitted, kg of CO2, with an intensity series (`crate::carbon`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carbon_kg: Option<f64>,
    /// Where idle nodes are switched off (`crate::sim::power_states`): what switching did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switching: Option<SwitchingSummary>,
    /// Under a power cap on every partition: seconds during which the machine drew more
    /// than its cap ([`seconds_over`]). Zero while jobs keep to their predictions; a job
    /// that outlives its prediction while a cap over time falls may make it positive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_cap_s: Option<Time>,
}

/// What switching idle nodes off did over a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SwitchingSummary {
    /// Nodes switched off (a node switched off twice counts twice), and booted.
    pub switch_offs: u64,
    pub boots: u64,
    /// Jobs whose start waited for nodes to boot, and their waits' sum, seconds.
    pub jobs_waiting_boot: u64,
    pub boot_wait_s: Time,
}

/// A partition's nodes' states beyond on, where they describe them: watts above or below
/// idle, per node, switching off, off and booting; and the seconds of switching off and of
/// booting.
fn node_states(machine: &Machine, p: usize) -> Option<([f64; 3], Time, Time)> {
    let g = machine.partitions[p].nodes.first()?;
    let (idle, s): (f64, NodeSwitching) = (g.power?.idle_w / g.cores as f64, g.switching?);
    Some((
        [s.shutdown_w - idle, s.off_w - idle, s.boot_w - idle],
        s.shutdown_s,
        s.boot_s,
    ))
}

/// A partition's power per core, watts: idle, and busy (`None`: no power described).
fn per_core(machine: &Machine, p: usize) -> Option<(f64, f64)> {
    let partition = &machine.partitions[p];
    let g = partition.nodes.first()?;
    let power = g.power?;
    Some((power.idle_w / g.cores as f64, power.busy_w / g.cores as f64))
}

/// A machine's power over a run, for the timeline: watts from each step's time to the
/// next ([`power_over_time`]), and the machine's cap where every partition has one
/// ([`Machine::cap_steps`] over the run; empty otherwise).
#[derive(Clone, Debug, PartialEq)]
pub struct PowerOverTime {
    pub steps: Vec<(Time, f64)>,
    pub cap: Vec<(Time, f64)>,
}

/// Seconds during which `power` (steps of watts, the last closing at `until`) was above
/// `cap` (steps of watts, [`crate::series::value_at`]), beyond a part in 10^9 of rounding.
pub fn seconds_over(power: &[(Time, f64)], until: Time, cap: &[(Time, f64)]) -> Time {
    let mut over = 0;
    for (i, &(from, watts)) in power.iter().enumerate() {
        let to = power.get(i + 1).map_or(until, |p| p.0);
        // The cap's steps within [from, to), each against this power step.
        let mut a = from;
        while a < to {
            let k = cap.partition_point(|s| s.0 <= a);
            let b = cap.get(k).map_or(to, |s| s.0.min(to));
            if watts > crate::series::value_at(cap, a) * (1.0 + 1e-9) {
                over += b - a;
            }
            a = b;
        }
    }
    over
}

/// Every partition's watts per core, idle and busy; `None` when the machine describes no
/// power.
fn watts(machine: &Machine) -> Option<Vec<(f64, f64)>> {
    (0..machine.partitions.len())
        .map(|p| per_core(machine, p))
        .collect()
}

/// The machine's draw with every core idle, watts.
fn idle_draw(machine: &Machine, watts: &[(f64, f64)]) -> f64 {
    machine
        .partitions
        .iter()
        .zip(watts)
        .map(|(p, &(idle, _))| p.cores() as f64 * idle)
        .sum()
}

/// The partition job `j` ran in.
fn partition(machine: &Machine, jobs: &Jobs, j: usize) -> usize {
    machine
        .partition_of(jobs.partition.get(j).copied().unwrap_or(-1))
        .expect("placed jobs have a partition")
}

/// The machine's power over a run of `jobs` that started and ended them at `start` and
/// `end`, watts: the idle draw of every core plus each running job's cores' rise, one step
/// per instant where it changes, from the first submit to the last end (where it is the
/// idle draw again, less what nodes switched off save). Where idle nodes are switched off
/// (`switches`, from the run's outcome), each node switching off, off or booting draws its
/// state's watts instead of idle. `None` when the machine describes no power or a job
/// never ended.
pub fn power_over_time(
    machine: &Machine,
    jobs: &Jobs,
    start: &[Time],
    end: &[Time],
    switches: &[NodeSwitch],
) -> Option<Vec<(Time, f64)>> {
    let watts = watts(machine)?;
    if end.contains(&crate::sim::state::UNSET) || jobs.is_empty() {
        return None;
    }
    let first = *jobs.submit.iter().min()?;
    let idle_w = idle_draw(machine, &watts);
    // Each job's cores are busy from its start to its end: +cores and -cores in its
    // partition. The power at an instant is the idle draw plus each partition's busy cores
    // times its rise per core, counted in whole cores, so the order of the changes within
    // an instant, and of the instants' sums, changes nothing.
    let mut changes: Vec<(Time, i32, u32)> = Vec::with_capacity(2 * jobs.len());
    for j in 0..jobs.len() {
        let p = partition(machine, jobs, j) as u32;
        let cores = jobs.procs[j] as i32;
        changes.push((start[j], cores, p));
        changes.push((end[j], -cores, p));
    }
    // Nodes switching off, off and booting, counted apart from the busy cores (codes past
    // the partitions': 3 per partition), each run of nodes from its switch to the next.
    let parts = watts.len() as u32;
    let state = |p: u32, s: u32| parts + 3 * p + s;
    let last = end.iter().copied().max().unwrap_or(first);
    for w in switches {
        let (_, shutdown, boot) =
            node_states(machine, w.partition as usize).expect("checked when the machine was read");
        let (p, k) = (w.partition, w.nodes as i32);
        if w.on {
            changes.extend([
                (w.at, -k, state(p, 1)),
                (w.at, k, state(p, 2)),
                (w.at + boot, -k, state(p, 2)),
            ]);
        } else {
            changes.extend([
                (w.at, k, state(p, 0)),
                (w.at + shutdown, -k, state(p, 0)),
                (w.at + shutdown, k, state(p, 1)),
            ]);
        }
    }
    // A switch-off under way at the last end finishes after the run.
    changes.retain(|c| c.0 <= last);
    changes.sort_unstable_by_key(|c| c.0);
    let rise: Vec<f64> = watts.iter().map(|&(idle, busy)| busy - idle).collect();
    let states: Vec<f64> = (0..watts.len())
        .flat_map(|p| node_states(machine, p).map_or([0.0; 3], |s| s.0))
        .collect();
    let mut busy = vec![0i64; watts.len() + states.len()];
    let mut power: Vec<(Time, f64)> = Vec::with_capacity(changes.len() + 1);
    power.push((first, idle_w));
    let mut at = 0;
    while at < changes.len() {
        let t = changes[at].0;
        while at < changes.len() && changes[at].0 == t {
            busy[changes[at].2 as usize] += changes[at].1 as i64;
            at += 1;
        }
        let (cores, nodes) = busy.split_at(watts.len());
        let mut watts_now = idle_w + cores.iter().zip(&rise).map(|(&b, &r)| b as f64 * r).sum::<f64>();
        if !switches.is_empty() {
            watts_now += nodes
                .iter()
                .zip(&states)
                .map(|(&n, &w)| n as f64 * w)
                .sum::<f64>();
        }
        match power.last_mut() {
            Some(last) if last.0 == t => last.1 = watts_now,
            _ => power.push((t, watts_now)),
        }
    }
    Some(power)
}

/// The energy of a run of `jobs` on `machine` that started and ended them at `start` and
/// `end`; `None` when the machine describes no power, or a job never ended (a saturated
/// run, whose span is unknown).
/// With `carbon`, an intensity series and the offset from the trace's clock to its own,
/// the carbon too.
pub fn of_run(
    machine: &Machine,
    jobs: &Jobs,
    start: &[Time],
    end: &[Time],
    switches: &[NodeSwitch],
    carbon: Option<(&Intensity, Time)>,
) -> Option<EnergySummary> {
    let watts = watts(machine)?;
    let power = power_over_time(machine, jobs, start, end, switches)?;
    let first = *jobs.submit.iter().min()?;
    let last = *end.iter().max()?;
    let span = (last - first).max(0);
    let idle_w = idle_draw(machine, &watts);
    let peak_w = power.iter().map(|p| p.1).fold(idle_w, f64::max);
    let (mut rise_joules, mut busy_joules, mut core_seconds) = (0.0, 0.0, 0.0);
    for j in 0..jobs.len() {
        let (idle, busy) = watts[partition(machine, jobs, j)];
        let cores = jobs.procs[j] as f64;
        let seconds = (end[j] - start[j]) as f64;
        rise_joules += cores * (busy - idle) * seconds;
        busy_joules += cores * busy * seconds;
        core_seconds += cores * seconds;
    }
    let (switch_joules, switching) = switching(machine, switches, last);
    let joules = idle_w * span as f64 + rise_joules + switch_joules;
    let energy_kwh = joules / JOULES_PER_KWH;
    let jobs_kwh = busy_joules / JOULES_PER_KWH;
    Some(EnergySummary {
        energy_kwh,
        jobs_kwh,
        idle_kwh: energy_kwh - jobs_kwh,
        mean_power_kw: if span > 0 {
            joules / span as f64 / 1e3
        } else {
            idle_w / 1e3
        },
        peak_power_kw: peak_w / 1e3,
        wh_per_core_hour: if core_seconds > 0.0 {
            joules / 3600.0 / (core_seconds / 3600.0)
        } else {
            f64::NAN
        },
        span,
        carbon_kg: carbon.map(|(series, offset)| series.grams(&power, last, offset) / 1e3),
        switching,
        over_cap_s: machine
            .cap_steps(power[0].0, last)
            .map(|cap| seconds_over(&power, last, &cap)),
    })
}

/// What nodes switching off, off and booting drew above (or below) idle until `last`, the
/// run's last end, joules; and what switching did. Each node switched off at `a` switches
/// for the switch-off's seconds, then is off until a boot (at `b`, which finds it off) or
/// the run's end: so the nodes off at `t` are those whose switch-off ended by `t` less
/// those booted by `t`, and their joules sum without pairing nodes.
fn switching(machine: &Machine, switches: &[NodeSwitch], last: Time) -> (f64, Option<SwitchingSummary>) {
    if machine.partitions.iter().all(|p| p.switch_off.is_none()) {
        return (0.0, None);
    }
    let mut joules = 0.0;
    let mut summary = SwitchingSummary {
        switch_offs: 0,
        boots: 0,
        jobs_waiting_boot: 0,
        boot_wait_s: 0,
    };
    for w in switches {
        let p = w.partition as usize;
        let ([shutting, off, booting], shutdown, boot) =
            node_states(machine, p).expect("checked when the machine was read");
        let (k, at) = (w.nodes as f64, w.at.min(last));
        if w.on {
            joules += k * (booting * boot as f64 - off * (last - at) as f64);
            summary.boots += w.nodes as u64;
            summary.jobs_waiting_boot += 1;
            summary.boot_wait_s += w.waited;
        } else {
            let ends = (at + shutdown).min(last);
            joules += k * (shutting * (ends - at) as f64 + off * (last - ends) as f64);
            summary.switch_offs += w.nodes as u64;
        }
    }
    (joules, Some(summary))
}

/// What each job cost: its energy, joules, and with a carbon series its carbon, grams of
/// CO2 (`--jobs-out`'s `energy_j` and `carbon_g`, Python's per-job columns, Batsim's
/// `consumed_energy`).
#[derive(Clone, Debug, PartialEq)]
pub struct PerJob {
    /// Its cores at their busy power while it ran, so that the jobs' energies sum to
    /// [`EnergySummary::jobs_kwh`] (the idle cores' draw is nobody's).
    pub joules: Vec<f64>,
    /// That power over its run times the series' intensity then (read at the trace's time
    /// plus the offset), so that with a constant series it is the energy times the
    /// intensity.
    pub grams: Option<Vec<f64>>,
}

/// Each job's energy and, with `carbon` (a series and the offset from the trace's clock to
/// its own), carbon; `None` when the machine describes no power or a job never ended.
pub fn per_job(
    machine: &Machine,
    jobs: &Jobs,
    start: &[Time],
    end: &[Time],
    carbon: Option<(&Intensity, Time)>,
) -> Option<PerJob> {
    let watts = watts(machine)?;
    if end.contains(&crate::sim::state::UNSET) {
        return None;
    }
    let busy_w = |j: usize| jobs.procs[j] as f64 * watts[partition(machine, jobs, j)].1;
    let joules = (0..jobs.len())
        .map(|j| busy_w(j) * (end[j] - start[j]) as f64)
        .collect();
    let grams = carbon.map(|(series, offset)| {
        (0..jobs.len())
            .map(|j| series.grams(&[(start[j], busy_w(j))], end[j], offset))
            .collect()
    });
    Some(PerJob { joules, grams })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobRecord;

    fn machine(text: &str) -> Machine {
        Machine::from_toml(text, std::path::Path::new("m.toml")).unwrap()
    }

    /// One node of 4 cores, 100 W idle and 300 W busy (50 W more per busy core), by hand:
    /// a 2-core job from 0 to 100 s and a 4-core job from 100 to 150 s, the last end at
    /// 150 s. Idle draw 100 W over 150 s = 15 kJ; rises 2 x 50 W x 100 s = 10 kJ and 4 x
    /// 50 W x 50 s = 10 kJ; 35 kJ in all. The jobs at 75 W a core: 15 kJ and 15 kJ.
    #[test]
    fn one_node_two_jobs_by_hand() {
        let m = machine(
            "[[partition]]\nname = \"a\"\ndefault = true\n[[partition.nodes]]\ncount = 1\ncores = 4\n\
             idle_w = 100\nbusy_w = 300\n",
        );
        let jobs = Jobs::from_records(&[
            JobRecord::new(1, 0, 100, 2, 100),
            JobRecord::new(2, 10, 50, 4, 50),
        ]);
        let e = of_run(&m, &jobs, &[0, 100], &[100, 150], &[], None).unwrap();
        let kwh = |joules: f64| joules / 3.6e6;
        assert!((e.energy_kwh - kwh(35_000.0)).abs() < 1e-12, "{e:?}");
        assert!((e.jobs_kwh - kwh(30_000.0)).abs() < 1e-12);
        assert!((e.idle_kwh - kwh(5_000.0)).abs() < 1e-12);
        assert_eq!(e.span, 150);
        assert!((e.mean_power_kw - 35_000.0 / 150.0 / 1e3).abs() < 1e-12);
        // Peak: all 4 cores busy, 300 W (the 2-core job ended as the 4-core one began).
        assert!((e.peak_power_kw - 0.3).abs() < 1e-12);
        // 35 kJ (9.72 Wh) over 400 core-seconds (0.111 core-hours): 87.5 Wh a core-hour.
        assert!((e.wh_per_core_hour - 35_000.0 / 400.0).abs() < 1e-9);
        // Each job's own: 2 cores x 75 W x 100 s and 4 cores x 75 W x 50 s.
        let each = per_job(&m, &jobs, &[0, 100], &[100, 150], None).unwrap();
        assert_eq!((each.joules, each.grams), (vec![15_000.0, 15_000.0], None));
        // A job that never ended: no span, no energy.
        assert_eq!(
            of_run(&m, &jobs, &[0, 100], &[100, crate::sim::state::UNSET], &[], None),
            None
        );
    }

    /// Power 500 W, 900 W from 10 s, 500 W from 30 s, until 50 s; a cap of 800 W, 1,000 W
    /// from 20 s: over it from 10 to 20 s only. Under a constant cap of 400 W, the whole
    /// 50 s; exactly at the cap is not over it.
    #[test]
    fn seconds_over_the_cap_by_hand() {
        let power = [(0, 500.0), (10, 900.0), (30, 500.0)];
        assert_eq!(seconds_over(&power, 50, &[(0, 800.0), (20, 1000.0)]), 10);
        assert_eq!(seconds_over(&power, 50, &[(Time::MIN, 400.0)]), 50);
        assert_eq!(seconds_over(&power, 50, &[(Time::MIN, 900.0)]), 0);
        // A cap whose first step comes after the power's: it holds before its time too.
        assert_eq!(seconds_over(&power, 50, &[(15, 800.0)]), 20);
    }
}
