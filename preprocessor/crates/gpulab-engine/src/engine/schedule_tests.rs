//! Tests of `schedule`.

use super::*;

/// No SMT: every CPU its own core.
fn flat(cpu: usize) -> Option<(usize, usize)> {
    Some((0, cpu))
}

fn gpu_recorders(n: usize) -> Vec<Recorder> {
    (0..n)
        .map(|g| Recorder {
            gpu: Some(g.to_string()),
            ..Default::default()
        })
        .collect()
}

fn cpus_of(recorders: &[Recorder]) -> Vec<Option<&str>> {
    recorders.iter().map(|r| r.cpus.as_deref()).collect()
}

/// Two GPU workers on one CPU set loaded each other's launches with their CPU references
/// (short kernels read ~1.5 µs longer in the two-GPU run of 185bbb2): each now has its own.
#[test]
fn several_gpu_workers_never_share_a_cpu() {
    let all: Vec<usize> = (0..31).collect();
    let mut two = gpu_recorders(2);
    pin_gpu_workers(&mut two, Some(&all), true, &flat);
    assert_eq!(cpus_of(&two), [Some("0-15"), Some("16-30")]);
    let mut two = gpu_recorders(2);
    pin_gpu_workers(&mut two, Some(&all), false, &flat);
    assert_eq!(
        cpus_of(&two),
        [Some("0-15"), Some("16-30")],
        "also with no baseline beside them"
    );
    let mut one = gpu_recorders(1);
    pin_gpu_workers(&mut one, Some(&all), false, &flat);
    assert_eq!(
        cpus_of(&one),
        [None],
        "one worker alone keeps the whole host"
    );
    pin_gpu_workers(&mut one, Some(&all), true, &flat);
    assert_eq!(
        cpus_of(&one),
        [Some("0-30")],
        "beside a baseline: off its CPU"
    );
    let mut crowded = gpu_recorders(2);
    pin_gpu_workers(&mut crowded, Some(&[0, 1, 2]), true, &flat);
    assert_eq!(
        cpus_of(&crowded),
        [Some("0-2"), Some("0-2")],
        "too few CPUs for a set each: they share"
    );
}
