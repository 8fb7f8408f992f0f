//! CPU sets for workers: a Linux CPU list (`0-13,15`) parsed and written, this process's allowed
//! CPUs, and pinning a worker to its set, so that a single-threaded CPU baseline can be timed on a
//! core of its own while another worker drives the GPU from the others, and several GPU workers
//! each have CPUs of their own (`cli::record`).

/// Parses a CPU list: comma-separated CPUs and inclusive ranges (`0-3,8,10-11`), sorted, deduplicated.
pub fn parse_list(s: &str) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("`{s}`: expected CPUs and ranges such as 0-13,15");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (
                    a.trim().parse().map_err(|_| bad())?,
                    b.trim().parse().map_err(|_| bad())?,
                );
                if a > b || b - a > 4096 {
                    return Err(bad());
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().map_err(|_| bad())?),
        }
    }
    if cpus.is_empty() {
        return Err(format!("`{s}`: no CPU named"));
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// Writes a CPU list in the form [`parse_list`] reads, with runs as ranges.
pub fn format_list(cpus: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// The CPUs this process may run on (`None` where the platform cannot say).
#[cfg(target_os = "linux")]
pub fn allowed() -> Option<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity writes at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect();
        (!cpus.is_empty()).then_some(cpus)
    }
}

#[cfg(not(target_os = "linux"))]
pub fn allowed() -> Option<Vec<usize>> {
    None
}

/// Pins this process (its threads started from now on included) to `cpus`.
#[cfg(target_os = "linux")]
pub fn pin(cpus: &[usize]) -> Result<(), String> {
    // SAFETY: CPU_SET is only called with indices below CPU_SETSIZE; the set outlives the call.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn pin(_cpus: &[usize]) -> Result<(), String> {
    Err("pinning a worker to CPUs needs Linux".into())
}

/// Splits `cpus` for a GPU worker and a single-threaded CPU baseline beside it: (GPU worker's
/// CPUs, the baseline's one CPU), the baseline on the last CPU. `None` below 4 CPUs: a baseline
/// would then share the GPU worker's cores (or starve them), so it runs alone instead.
pub fn split_for_baseline(cpus: &[usize]) -> Option<(Vec<usize>, usize)> {
    let (&last, rest) = cpus.split_last()?;
    (cpus.len() >= 4).then(|| (rest.to_vec(), last))
}

/// Fewest CPUs a GPU worker is given of its own when several share a host: its launch thread and
/// at least one more for its references and comparisons.
pub const MIN_PER_GPU_WORKER: usize = 2;

/// Splits `cpus` into `n` contiguous sets of near-equal size (the first sets one larger when they
/// do not divide evenly), one per GPU worker, so that one worker's CPU references and comparisons
/// never run on the cores another launches its kernels from. `None` for one worker (it keeps
/// every CPU) or when a set would have fewer than [`MIN_PER_GPU_WORKER`] CPUs.
pub fn split_among(cpus: &[usize], n: usize) -> Option<Vec<Vec<usize>>> {
    if n < 2 || cpus.len() < n * MIN_PER_GPU_WORKER {
        return None;
    }
    let (each, extra) = (cpus.len() / n, cpus.len() % n);
    let mut rest = cpus;
    Some(
        (0..n)
            .map(|k| {
                let (mine, after) = rest.split_at(each + usize::from(k < extra));
                rest = after;
                mine.to_vec()
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn a_baseline_gets_the_last_cpu_of_four_or_more() {
        let all: Vec<usize> = (0..16).collect();
        let (gpu, host) = split_for_baseline(&all).unwrap();
        assert_eq!((gpu.len(), host), (15, 15));
        assert!(!gpu.contains(&host));
        assert_eq!(
            split_for_baseline(&[0, 1, 2]),
            None,
            "too few CPUs to split"
        );
    }

    #[test]
    fn gpu_workers_get_disjoint_contiguous_sets_that_cover_every_cpu() {
        let all: Vec<usize> = (0..31).collect();
        let sets = split_among(&all, 2).unwrap();
        assert_eq!(sets, vec![(0..16).collect::<Vec<_>>(), (16..31).collect()]);
        let sets = split_among(&all, 4).unwrap();
        assert_eq!(sets.iter().map(Vec::len).collect::<Vec<_>>(), [8, 8, 8, 7]);
        assert_eq!(sets.concat(), all, "every CPU once, in order");
        assert_eq!(split_among(&all, 1), None, "one worker keeps every CPU");
        assert_eq!(
            split_among(&[0, 1, 2], 2),
            None,
            "too few CPUs to give each two"
        );
        assert_eq!(split_among(&[0, 1, 2, 3], 2).unwrap().len(), 2);
    }

    #[test]
    fn this_process_has_cpus() {
        if cfg!(target_os = "linux") {
            let cpus = allowed().expect("sched_getaffinity");
            assert!(!cpus.is_empty());
        }
    }
}
