//! Tests of `cpus`.

use super::*;

#[test]
fn lists_round_trip() {
    assert_eq!(parse_list("0-3,8,10-11"), Ok(vec![0, 1, 2, 3, 8, 10, 11]));
    assert_eq!(parse_list(" 5 , 1-2,2 "), Ok(vec![1, 2, 5]));
    assert_eq!(format_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
    assert_eq!(format_list(&[7]), "7");
    for bad in ["", "a", "3-1", "1-", ","] {
        assert!(parse_list(bad).is_err(), "{bad:?}");
    }
}

/// No SMT: every CPU its own core.
fn flat(cpu: usize) -> Option<(usize, usize)> {
    Some((0, cpu))
}

/// 16 cores with two threads each, siblings numbered i and i + 16 (a common cloud layout).
fn smt16(cpu: usize) -> Option<(usize, usize)> {
    (cpu < 32).then_some((0, cpu % 16))
}

#[test]
fn a_baseline_gets_the_last_cpu_of_four_or_more() {
    let all: Vec<usize> = (0..16).collect();
    let (gpu, host) = split_for_baseline(&all, &flat).unwrap();
    assert_eq!((gpu.len(), host), (15, 15));
    assert!(!gpu.contains(&host));
    assert_eq!(
        split_for_baseline(&[0, 1, 2], &flat),
        None,
        "too few CPUs to split"
    );
}

#[test]
fn a_baselines_smt_sibling_is_left_idle() {
    let all: Vec<usize> = (0..32).collect();
    let (gpu, host) = split_for_baseline(&all, &smt16).unwrap();
    assert_eq!(host, 31);
    assert!(!gpu.contains(&15), "CPU 15 shares CPU 31's core");
    assert_eq!(gpu.len(), 30);
}

#[test]
fn gpu_workers_get_disjoint_contiguous_sets_that_cover_every_cpu() {
    let all: Vec<usize> = (0..31).collect();
    let sets = split_among(&all, 2, &flat).unwrap();
    assert_eq!(sets, vec![(0..16).collect::<Vec<_>>(), (16..31).collect()]);
    let sets = split_among(&all, 4, &flat).unwrap();
    assert_eq!(sets.iter().map(Vec::len).collect::<Vec<_>>(), [8, 8, 8, 7]);
    assert_eq!(sets.concat(), all, "every CPU once, in order");
    assert_eq!(
        split_among(&all, 1, &flat),
        None,
        "one worker keeps every CPU"
    );
    assert_eq!(
        split_among(&[0, 1, 2], 2, &flat),
        None,
        "too few CPUs to give each two"
    );
    assert_eq!(split_among(&[0, 1, 2, 3], 2, &flat).unwrap().len(), 2);
}

/// Split by CPU number, 0-15 and 16-30 would put each worker's CPU beside the other's on
/// every core of a host whose siblings are numbered i and i + 16.
#[test]
fn gpu_workers_never_share_a_physical_core() {
    let (gpu, _) = split_for_baseline(&(0..32).collect::<Vec<_>>(), &smt16).unwrap();
    let sets = split_among(&gpu, 2, &smt16).unwrap();
    let cores = |set: &Vec<usize>| -> std::collections::BTreeSet<usize> {
        set.iter().map(|&c| c % 16).collect()
    };
    assert!(cores(&sets[0]).is_disjoint(&cores(&sets[1])), "{sets:?}");
    assert_eq!(
        sets[0],
        [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
    );
    assert_eq!(sets.concat().len(), 30, "every CPU but the baseline's core");
    // Unreadable topology: every CPU its own core.
    let none = |_: usize| None;
    assert_eq!(
        split_among(&(0..4).collect::<Vec<_>>(), 2, &none),
        Some(vec![vec![0, 1], vec![2, 3]])
    );
}

#[test]
fn this_process_has_cpus() {
    if cfg!(target_os = "linux") {
        let cpus = allowed().expect("sched_getaffinity");
        assert!(!cpus.is_empty());
    }
}
