//! Speed of the CPU references a worker computes per buffer set: a matrix-vector product of
//! N×N `f32` (N = 16384 unless `BENCH_N` says otherwise) as a `formula` with `sum_of` (N² terms)
//! and as the built-in `matvec`, each the median of `BENCH_RUNS` runs (3), with a digest of the
//! result so that two builds can be checked to agree bit for bit. The data is synthetic.

use gpulab_engine::engine::expected::expected;
use gpulab_spec::expr::{Expr, Num};
use gpulab_spec::host_data::init::{Init, generate};
use gpulab_spec::host_data::{ElemType, HostData};
use gpulab_spec::spec::{Reference, VerifySpec};
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

/// CPU seconds this process has used (user and system, every thread): on a shared machine the
/// wall time says more about the neighbours than about the code.
fn cpu_s() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    s(u.ru_utime) + s(u.ru_stime)
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let n = env("BENCH_N", 16384);
    let runs = env("BENCH_RUNS", 3);
    let random = Init::Random { lo: -1.0, hi: 1.0 };
    let host = BTreeMap::from([
        (
            "a".to_string(),
            generate(ElemType::F32, n * n, &random, 1).unwrap(),
        ),
        (
            "x".to_string(),
            generate(ElemType::F32, n, &random, 2).unwrap(),
        ),
    ]);
    let vars = HashMap::from([("N".to_string(), Num::Int(n as i64))]);
    let spec = |reference: &str, formula: Option<&str>| VerifySpec {
        reference: Reference::Builtin(reference.to_string()),
        inputs: vec!["a".into(), "x".into()],
        output: "y".into(),
        dims: vec![
            ("rows".into(), Expr::parse("N").unwrap()),
            ("cols".into(), Expr::parse("N").unwrap()),
        ],
        tolerance: 1e-5,
        formula: formula.map(|f| Expr::parse(f).unwrap()),
    };
    let cases = [
        (
            "formula",
            spec("formula", Some("sum_of(k, 0, N, a[i*N + k] * x[k])")),
        ),
        ("matvec", spec("matvec", None)),
    ];
    for (name, verify) in &cases {
        run(name, verify, &vars, &host, n, runs);
    }
}

fn run(
    name: &str,
    verify: &VerifySpec,
    vars: &HashMap<String, Num>,
    host: &BTreeMap<String, HostData>,
    n: usize,
    runs: usize,
) {
    let (mut times, mut cpu) = (Vec::new(), Vec::new());
    let mut digest = 0u64;
    for _ in 0..runs {
        let (t, c) = (Instant::now(), cpu_s());
        let y = match expected(verify, vars, host, n, ElemType::F32) {
            Ok(y) => y,
            Err(e) => {
                println!("{name:8} N = {n}: {e}");
                return;
            }
        };
        times.push(t.elapsed().as_secs_f64());
        cpu.push(cpu_s() - c);
        let HostData::F32(y) = y else {
            panic!("not f32")
        };
        digest = y.iter().fold(0xcbf2_9ce4_8422_2325, |h, v| {
            (h ^ u64::from(v.to_bits())).wrapping_mul(0x100_0000_01b3)
        });
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let terms = (n * n) as f64;
    println!(
        "{name:8} N = {n}: wall {:.3} s (median of {runs}), CPU {:.3} s = {:.2} ns per term, digest {digest:016x}",
        times[runs / 2],
        cpu[runs / 2],
        cpu[runs / 2] * 1e9 / terms
    );
}
