//! The Lublin-Feitelson model against the two logs its authors' generator wrote for a
//! 256-processor machine, Tsafrir's estimates against the logged estimates of the four
//! logs the model was fitted to, and the model's `load` against the utilisation a
//! backfilling run measures. The logs live in `../shared/traces` (skipped, with a message,
//! when absent).

use crate::common;

use common::ks;

use schedlab::experiment::Simulate;
use schedlab::metrics::Summary;
use schedlab::sched::SchedulerKind;
use schedlab::sim::{Engine, Window};
use schedlab::workload::Workload;
use schedlab::workload::estimates::Tsafrir;
use schedlab::workload::swf::{SwfOptions, read_swf};
use schedlab::workload::synth::LublinParams;
use schedlab::workload::synth::ModelEntry;
use schedlab::workload::synth::lublin::SizeRule;

/// Samples of the model pooled for a comparison, each as long as a reference log.
const SAMPLES: u64 = 20;

struct Shape {
    serial: f64,
    pow2: f64,
    batch: f64,
    mean_gap: f64,
    /// Share of arrivals in each hour of the day, times 24 (1 = flat).
    hourly: [f64; 24],
    log_runtime: Vec<f64>,
    log_size: Vec<f64>,
    gaps: Vec<f64>,
}

fn shape(workloads: &[&Workload]) -> Shape {
    let n: usize = workloads.iter().map(|w| w.jobs.len()).sum();
    let mut s = Shape {
        serial: 0.0,
        pow2: 0.0,
        batch: 0.0,
        mean_gap: 0.0,
        hourly: [0.0; 24],
        log_runtime: Vec::with_capacity(n),
        log_size: Vec::with_capacity(n),
        gaps: Vec::with_capacity(n),
    };
    for w in workloads {
        let j = &w.jobs;
        for i in 0..j.len() {
            let p = j.procs[i];
            s.serial += f64::from(p == 1);
            s.pow2 += f64::from(p > 1 && p.is_power_of_two());
            s.batch += f64::from(j.queue[i] == 1);
            s.hourly[(j.submit[i] % 86_400 / 3600) as usize] += 24.0;
            s.log_runtime.push((j.runtime[i].max(1) as f64).ln());
            s.log_size.push((p as f64).log2());
        }
        s.gaps.extend(j.submit.windows(2).map(|p| (p[1] - p[0]) as f64));
        s.mean_gap +=
            (j.submit[j.len() - 1] - j.submit[0]) as f64 / (j.len() - 1) as f64 / workloads.len() as f64;
    }
    for x in [&mut s.serial, &mut s.pow2, &mut s.batch] {
        *x /= n as f64;
    }
    s.hourly.iter_mut().for_each(|h| *h /= n as f64);
    s
}

/// The model with the generator's settings for a reference log, `SAMPLES` times. Both logs
/// were written with every class up to the whole machine (`sizes = "log2"`; the two rules
/// agree for one class), not with the generator's compiled-in interactive sizes.
fn model_samples(job_types: bool) -> Vec<Workload> {
    let p = LublinParams {
        procs: 256,
        sizes: SizeRule::Log2,
        jobs: 10_000,
        job_types,
        ..LublinParams::default()
    };
    (1..=SAMPLES).map(|seed| p.generate(seed)).collect()
}

fn compare(name: &str, job_types: bool) {
    let Some(path) = common::trace(name) else { return };
    let log = read_swf(&path, &SwfOptions::default()).unwrap();
    let samples = model_samples(job_types);
    let model = shape(&samples.iter().collect::<Vec<_>>());
    let reference = shape(&[&log]);
    let report = format!(
        "{name}: serial {:.4} vs {:.4}, pow2 {:.4} vs {:.4}, batch {:.4} vs {:.4}",
        model.serial, reference.serial, model.pow2, reference.pow2, model.batch, reference.batch
    );
    println!("{report}");
    assert!((model.serial - reference.serial).abs() < 0.015, "{report}");
    assert!((model.pow2 - reference.pow2).abs() < 0.02, "{report}");
    assert!((model.batch - reference.batch).abs() < 0.04, "{report}");
    let d_runtime = ks(&model.log_runtime, &reference.log_runtime);
    let d_size = ks(&model.log_size, &reference.log_size);
    let d_gap = ks(&model.gaps, &reference.gaps);
    println!("{name}: KS log runtime {d_runtime:.4}, log size {d_size:.4}, gaps {d_gap:.4}");
    assert!(d_runtime < 0.05, "{name}: KS of log runtime {d_runtime}");
    assert!(d_size < 0.04, "{name}: KS of log size {d_size}");
    assert!(d_gap < 0.04, "{name}: KS of gaps {d_gap}");
    // A mean of heavy-tailed gaps varies a lot between samples of 10,000 jobs: the log's
    // must lie within the range of the model's samples.
    let means: Vec<f64> = samples.iter().map(|w| shape(&[w]).mean_gap).collect();
    let (lo, hi) = means
        .iter()
        .fold((f64::MAX, 0f64), |(l, h), &m| (l.min(m), h.max(m)));
    println!(
        "{name}: mean gap {:.0} s, model samples {lo:.0} to {hi:.0} s",
        reference.mean_gap
    );
    assert!(
        (lo..=hi).contains(&reference.mean_gap),
        "{name}: mean gap {}",
        reference.mean_gap
    );
    // The daily cycle: the log's time-of-day distribution is about as far from the pooled
    // model's as one model sample's is. The generator as published peaks about an hour
    // after these logs do (docs/semantics.md), so the log may be farther, within limits.
    let day = |w: &Workload| -> Vec<f64> { w.jobs.submit.iter().map(|s| (s % 86_400) as f64).collect() };
    let pooled: Vec<f64> = samples.iter().flat_map(day).collect();
    let d_log = ks(&day(&log), &pooled);
    let d_samples = samples.iter().map(|w| ks(&day(w), &pooled)).fold(0f64, f64::max);
    println!(
        "{name}: KS time of day {d_log:.4} (model samples up to {d_samples:.4})\n  hourly {:.2?}\n  log    {:.2?}",
        model.hourly, reference.hourly
    );
    assert!(
        d_log < 2.0 * d_samples && d_log < 0.1,
        "{name}: KS of time of day {d_log}"
    );
}

#[test]
fn one_class_model_matches_lublin_256() {
    compare("lublin_256.swf.gz", false);
}

#[test]
fn two_class_model_matches_lublin_256_new2() {
    compare("lublin_256_new2.swf.gz", true);
}

/// The logs the estimate model was fitted to (Tsafrir, Etsion & Feitelson 2005).
const ESTIMATE_LOGS: [&str; 4] = [
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-BLUE-2000-4.2-cln.swf.gz",
];

struct Estimates {
    /// Share of jobs at the most popular value, and at the 20 most popular.
    top: f64,
    top20: f64,
    mean_accuracy: f64,
    /// Share of jobs by accuracy (runtime / estimate) decile.
    deciles: [f64; 10],
}

fn estimates(w: &Workload) -> Estimates {
    let j = &w.jobs;
    let n = j.len() as f64;
    let mut counts = std::collections::HashMap::new();
    let mut deciles = [0.0; 10];
    let mut sum = 0.0;
    for i in 0..j.len() {
        *counts.entry(j.estimate[i]).or_insert(0usize) += 1;
        let a = j.runtime[i] as f64 / j.estimate[i] as f64;
        sum += a;
        deciles[((a * 10.0) as usize).min(9)] += 1.0 / n;
    }
    let mut c: Vec<usize> = counts.into_values().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    Estimates {
        top: c[0] as f64 / n,
        top20: c.iter().take(20).sum::<usize>() as f64 / n,
        mean_accuracy: sum / n,
        deciles,
    }
}

#[test]
fn tsafrir_estimates_resemble_the_logged_ones() {
    for name in ESTIMATE_LOGS {
        let Some(path) = common::trace(name) else { return };
        let logged = read_swf(&path, &SwfOptions::default()).unwrap();
        // The system's limit as the model's maximum: the largest estimate that at least 1%
        // of the jobs use (the longest logged ones are rare exceptions to the limit).
        let max = {
            let mut counts = std::collections::BTreeMap::new();
            for &e in &logged.jobs.estimate {
                *counts.entry(e).or_insert(0usize) += 1;
            }
            let floor = logged.jobs.len() / 100;
            *counts.iter().rev().find(|(_, c)| **c >= floor).unwrap().0
        };
        let mut modelled = logged.clone();
        let adjusted = Tsafrir {
            max_estimate: Some(max),
        }
        .assign(&mut modelled.jobs, 7);
        assert!((0..modelled.jobs.len()).all(|i| modelled.jobs.estimate[i] >= modelled.jobs.runtime[i]));
        let (a, b) = (estimates(&modelled), estimates(&logged));
        let report = format!(
            "{name}: top {:.3} vs {:.3}, top 20 {:.3} vs {:.3}, mean accuracy {:.3} vs {:.3}, max {max}, runtimes cut {}, values raised {}\n  \
             deciles {:.3?}\n  logged  {:.3?}",
            a.top,
            b.top,
            a.top20,
            b.top20,
            a.mean_accuracy,
            b.mean_accuracy,
            adjusted.runtimes_cut,
            adjusted.values_raised,
            a.deciles,
            b.deciles
        );
        println!("{report}");
        // What the model promises: 89% of jobs at the 20 most popular values, as in three
        // of the logs (KTH spreads its estimates more: 75%).
        if name != "KTH-SP2-1996-2.1-cln.swf.gz" {
            assert!((a.top20 - b.top20).abs() < 0.04, "{report}");
        }
        // CTC, whose limit is also its most popular estimate as the model assumes, has the
        // logged accuracy distribution; on the other logs the model's estimates are looser
        // than the logged ones, which also have a spike of jobs killed at their limit
        // (accuracy 0.9-1) that the model does not make (docs/semantics.md).
        if name == "CTC-SP2-1996-3.1-cln.swf.gz" {
            assert!((a.mean_accuracy - b.mean_accuracy).abs() < 0.06, "{report}");
            let worst = (0..10)
                .map(|d| (a.deciles[d] - b.deciles[d]).abs())
                .fold(0f64, f64::max);
            assert!(worst < 0.06, "{report}");
        } else {
            assert!(
                a.mean_accuracy < b.mean_accuracy && a.deciles[9] < b.deciles[9],
                "{report}"
            );
        }
    }
}

#[test]
fn offered_load_is_the_utilisation_of_an_unsaturated_backfilling_run() {
    for (procs, load) in [(128, 0.5), (128, 0.7), (256, 0.6)] {
        let p = LublinParams {
            procs,
            load: Some(load),
            jobs: 60_000,
            ..LublinParams::default()
        };
        let w = p.generate(3);
        let mut engine = Engine::new();
        let mut easy = SchedulerKind::Easy.build();
        let window = Window {
            measured: 5_000..55_000,
            saturation: Some(5_000),
        };
        let outcome = easy.simulate(&mut engine, &w.jobs, w.procs, None, Some(&window));
        assert!(!outcome.saturated, "procs {procs} load {load}");
        let s = Summary::of_outcome(&w.jobs, w.procs, &outcome, window.measured.clone(), &w.skipped);
        println!("procs {procs} load {load}: utilisation {:.4}", s.utilization);
        assert!(
            (s.utilization - load).abs() < 0.03,
            "procs {procs} load {load}: {}",
            s.utilization
        );
    }
}

/// A class's sizes as the generator draws them, computed here from its compiled-in
/// constants (not from schedlab's code): the share of serial jobs, of parallel jobs of a
/// power-of-two size, and the mean log2 size of parallel jobs.
fn expected_sizes(serial: f64, pow2: f64, (low, med, high): (f64, f64, f64), uprob: f64) -> (f64, f64, f64) {
    // x is two-stage uniform; midpoints of a fine grid on each stage integrate it.
    let steps = 100_000;
    let (mut p_pow2, mut mean_log2) = (0.0, 0.0);
    for (a, b, weight) in [(low, med, uprob), (med, high, 1.0 - uprob)] {
        for i in 0..steps {
            let x = a + (b - a) * (i as f64 + 0.5) / steps as f64;
            let w = weight / steps as f64;
            // A power-of-two job rounds x first; any other job rounds 2^x.
            for (share, size) in [
                (pow2, 2f64.powf(x.round()).round()),
                (1.0 - serial - pow2, 2f64.powf(x).round()),
            ] {
                let p = share * w;
                p_pow2 += p * f64::from((size as u32).is_power_of_two());
                mean_log2 += p * size.log2();
            }
        }
    }
    (serial, p_pow2, mean_log2 / (1.0 - serial))
}

#[test]
fn sizes_at_128_processors_are_the_generators_compiled_in_ones() {
    let w = LublinParams {
        procs: 128,
        jobs: 100_000,
        ..LublinParams::default()
    }
    .generate(1);
    let j = &w.jobs;
    // m_lublin99.c: SERIAL_PROB, POW2_PROB, ULOW, UMED, UHI and UPROB of each class.
    for (queue, name, serial, pow2, bounds, uprob, largest) in [
        (1, "batch", 0.2927, 0.6686, (1.2, 5.0, 7.0), 0.875, 128),
        (0, "interactive", 0.1541, 0.625, (1.0, 3.0, 5.5), 0.705, 45),
    ] {
        let sizes: Vec<u32> = (0..j.len())
            .filter(|&i| j.queue[i] == queue)
            .map(|i| j.procs[i])
            .collect();
        let n = sizes.len() as f64;
        let parallel: Vec<f64> = sizes
            .iter()
            .filter(|&&p| p > 1)
            .map(|&p| (p as f64).log2())
            .collect();
        let serial_share = (n - parallel.len() as f64) / n;
        let pow2_share = sizes.iter().filter(|&&p| p > 1 && p.is_power_of_two()).count() as f64 / n;
        let mean_log2 = parallel.iter().sum::<f64>() / parallel.len() as f64;
        let sd_log2 =
            (parallel.iter().map(|x| (x - mean_log2).powi(2)).sum::<f64>() / parallel.len() as f64).sqrt();
        let (e_serial, e_pow2, e_log2) = expected_sizes(serial, pow2, bounds, uprob);
        let report = format!(
            "{name}: {n} jobs, serial {serial_share:.4} ({e_serial:.4}), power of two {pow2_share:.4} \
             ({e_pow2:.4}), mean log2 parallel size {mean_log2:.4} ({e_log2:.4}), largest {:?}",
            sizes.iter().max()
        );
        println!("{report}");
        let binomial = |p: f64| 4.0 * (p * (1.0 - p) / n).sqrt();
        assert!((serial_share - e_serial).abs() < binomial(e_serial), "{report}");
        assert!((pow2_share - e_pow2).abs() < binomial(e_pow2), "{report}");
        assert!(
            (mean_log2 - e_log2).abs() < 4.0 * sd_log2 / (parallel.len() as f64).sqrt(),
            "{report}"
        );
        assert_eq!(sizes.iter().max(), Some(&largest), "{report}");
    }
    // Interactive jobs are most jobs: the class whose sizes the old rule overstated.
    let interactive = j.queue.iter().filter(|&&q| q == 0).count() as f64 / j.len() as f64;
    assert!(
        (0.80..0.90).contains(&interactive),
        "interactive share {interactive}"
    );
}
