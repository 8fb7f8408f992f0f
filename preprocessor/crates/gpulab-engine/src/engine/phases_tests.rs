//! Tests of `phases`.

use super::*;

#[test]
fn summary_names_the_phases_that_took_time_and_the_overhead_per_sample() {
    let mut p = PhaseTimes::default();
    p.charge(Phase::Compile, 1.25);
    p.charge(Phase::Reference, 12.0);
    p.charge(Phase::Compare, 0.01);
    p.charge(Phase::Sampling, 3.0);
    p.measured_s = 1.0;
    p.samples = 4000;
    assert_eq!(
        p.summary(),
        "compile 1.2 s · references 12.0 s · sampling 3.0 s (4000 samples measuring 1.0 s, 500 µs overhead each)"
    );
    let mut sum = PhaseTimes::default();
    sum.add(&p);
    sum.add(&p);
    assert_eq!(sum.samples, 8000);
    assert_eq!(sum.reference_s, 24.0);
    assert_eq!(PhaseTimes::default().summary(), "no phase over 0.05 s");
}
