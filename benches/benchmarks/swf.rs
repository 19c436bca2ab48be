//! Reading traces: CTC-SP2 (77,222 jobs, 7.2 MB of text) parsed from memory (the parser
//! alone, throughput in bytes; target at least 600 MB/s) and read from its `.gz` file
//! (inflating too). Skipped with a message when `../shared/traces` is absent.

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group};

use schedlab::workload::swf::{SwfOptions, parse_swf, read_swf};

fn swf(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz");
    let Ok(compressed) = std::fs::read(&path) else {
        eprintln!("SKIPPED swf: {} is absent", path.display());
        return;
    };
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&compressed[..]), &mut text).unwrap();
    let options = SwfOptions::default();
    let mut group = c.benchmark_group("swf");
    group.sample_size(20).measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse-ctc-sp2", |b| {
        b.iter(|| parse_swf(&text[..], &path, &options).unwrap().jobs.len())
    });
    group.bench_function("read-ctc-sp2-gz", |b| {
        b.iter(|| read_swf(&path, &options).unwrap().jobs.len())
    });
    group.finish();
}

criterion_group!(benches, swf);
