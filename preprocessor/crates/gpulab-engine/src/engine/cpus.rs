//! CPU sets for workers (a Linux CPU list, `0-13,15`), this process's allowed CPUs, and pinning,
//! so that a CPU baseline or each GPU worker has cores of its own.

/// Parses a CPU list: comma-separated CPUs and inclusive ranges (`0-3,8,10-11`), sorted, deduplicated.
pub(crate) fn parse_list(s: &str) -> Result<Vec<usize>, String> {
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
pub(crate) fn format_list(cpus: &[usize]) -> String {
    let runs = cpus.chunk_by(|a, b| b == &(a + 1));
    let runs = runs.map(|r| match r {
        [one] => one.to_string(),
        [first, .., last] => format!("{first}-{last}"),
        [] => String::new(),
    });
    runs.collect::<Vec<_>>().join(",")
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
pub(crate) fn pin(cpus: &[usize]) -> Result<(), String> {
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
pub(crate) fn pin(_cpus: &[usize]) -> Result<(), String> {
    Err("pinning a worker to CPUs needs Linux".into())
}

/// The physical core of a CPU (package, core), read from sysfs; `None` where it cannot be read.
pub(crate) type CoreOf<'a> = &'a dyn Fn(usize) -> Option<(usize, usize)>;

/// This machine's topology: `/sys/devices/system/cpu/cpuN/topology/{physical_package_id,core_id}`.
pub(crate) fn core_of(cpu: usize) -> Option<(usize, usize)> {
    let read = |file: &str| -> Option<usize> {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{file}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some((read("physical_package_id")?, read("core_id")?))
}

/// `cpus` grouped by physical core in order of first CPU (each CPU alone without a topology).
fn cores(cpus: &[usize], core_of: CoreOf) -> Vec<Vec<usize>> {
    let Some(ids) = cpus.iter().map(|&c| core_of(c)).collect::<Option<Vec<_>>>() else {
        return cpus.iter().map(|&c| vec![c]).collect();
    };
    let mut groups: Vec<((usize, usize), Vec<usize>)> = Vec::new();
    for (&cpu, id) in cpus.iter().zip(ids) {
        match groups.iter_mut().find(|(g, _)| *g == id) {
            Some((_, members)) => members.push(cpu),
            None => groups.push((id, vec![cpu])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// Splits `cpus` into (the GPU worker's, a single-threaded baseline's last CPU, its SMT siblings
/// left idle); `None` below 4 CPUs, where the baseline runs alone instead.
pub(crate) fn split_for_baseline(cpus: &[usize], core_of: CoreOf) -> Option<(Vec<usize>, usize)> {
    let &last = cpus.last()?;
    let siblings = cores(cpus, core_of)
        .into_iter()
        .find(|core| core.contains(&last))
        .unwrap_or_default();
    let rest: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|c| !siblings.contains(c))
        .collect();
    (cpus.len() >= 4 && rest.len() >= 2).then_some((rest, last))
}

/// Fewest CPUs a GPU worker is given of its own: its launch thread and one for its CPU work.
pub(crate) const MIN_PER_GPU_WORKER: usize = 2;

/// Splits `cpus` into `n` contiguous near-equal sets of whole cores, one per GPU worker; `None`
/// for one worker or when a set would have fewer than [`MIN_PER_GPU_WORKER`] CPUs.
pub(crate) fn split_among(cpus: &[usize], n: usize, core_of: CoreOf) -> Option<Vec<Vec<usize>>> {
    let cores = cores(cpus, core_of);
    if n < 2 || cores.len() < n {
        return None;
    }
    let (each, extra) = (cores.len() / n, cores.len() % n);
    let mut rest = &cores[..];
    let sets: Vec<Vec<usize>> = (0..n)
        .map(|k| {
            let (mine, after) = rest.split_at(each + usize::from(k < extra));
            rest = after;
            let mut set = mine.concat();
            set.sort_unstable();
            set
        })
        .collect();
    sets.iter()
        .all(|s| s.len() >= MIN_PER_GPU_WORKER)
        .then_some(sets)
}

#[cfg(test)]
#[path = "cpus_tests.rs"]
mod tests;
