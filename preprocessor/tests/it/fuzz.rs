//! A bounded fuzz run in `cargo test`: every committed corpus seed, then seeded mutants, through
//! every target (directives, specs, recordings, paper CSVs, expressions, claims). No input may
//! panic or take long. Long campaigns: `examples/fuzz.rs` (see DESIGN.md, "Hostile input, faults and fuzzing").

use crate::fuzz_support;

use fuzz_support::{Context, Rng, TARGETS, corpus, mutate};
use std::time::{Duration, Instant};

/// Mutants per target here (the CI's release run and the campaigns do far more).
const MUTANTS: usize = 300;

#[test]
fn no_seed_or_mutant_panics_or_hangs() {
    let ctx = Context::new();
    let mut failures = Vec::new();
    for target in TARGETS {
        let seeds = corpus(target);
        assert!(!seeds.is_empty(), "no corpus for {}", target.name());
        let mut rng = Rng::new(0x15);
        let inputs = seeds
            .iter()
            .cloned()
            .chain((0..MUTANTS).map(|_| mutate(&mut rng, &seeds)));
        for (i, input) in inputs.enumerate() {
            let started = Instant::now();
            let run =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.run(target, &input)));
            let took = started.elapsed();
            if run.is_err() || took > Duration::from_secs(10) {
                failures.push(format!(
                    "{} input {i} ({took:?}): {:?}",
                    target.name(),
                    String::from_utf8_lossy(&input)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_mutator_is_deterministic_and_bounded() {
    let seeds = vec![b"experiment = \"scale\"\n".to_vec()];
    let a: Vec<Vec<u8>> = {
        let mut rng = Rng::new(7);
        (0..200).map(|_| mutate(&mut rng, &seeds)).collect()
    };
    let mut rng = Rng::new(7);
    let b: Vec<Vec<u8>> = (0..200).map(|_| mutate(&mut rng, &seeds)).collect();
    assert_eq!(a, b);
    assert!(a.iter().all(|m| m.len() <= fuzz_support::MAX_INPUT));
    assert!(a.iter().any(|m| m != &seeds[0]));
}
