//! Limits on what a book may ask for, checked before anything is allocated, planned or launched:
//! axis lengths, points per directive and per book, buffer bytes, launch dimensions, loop counts.

/// Values one axis may have (a list or a range).
pub(crate) const MAX_AXIS_VALUES: usize = 10_000;
/// Points (variants × axis combinations) one directive may ask for.
pub(crate) const MAX_POINTS_PER_DIRECTIVE: u64 = 20_000;
/// Points the whole book may ask for.
pub const MAX_POINTS_PER_BOOK: u64 = 200_000;
/// Bytes of all buffers of one point when no device is known (`max_buffer_bytes` in book.toml
/// overrides it); a live run also checks them against the device's memory.
pub(crate) const DEFAULT_MAX_BUFFER_BYTES: u64 = 80 << 30;
/// Launches one point may make (a host `loop` count).
pub(crate) const MAX_LAUNCHES: i64 = 1_000_000;
/// CUDA's launch limits (every GPU since compute capability 3.0).
pub(crate) const MAX_BLOCK: [u64; 3] = [1024, 1024, 64];
pub(crate) const MAX_THREADS_PER_BLOCK: u64 = 1024;
pub(crate) const MAX_GRID: [u64; 3] = [(1 << 31) - 1, 65_535, 65_535];
/// Dynamic shared memory a block may ask for (the H100's and H200's opt-in maximum, 227 KiB).
pub(crate) const MAX_SHARED_BYTES: u64 = 232_448;
#[cfg(test)]
/// The architecture `check` compiles for when none is named (`--arch`): the handbook's H100/H200.
pub(crate) const DEFAULT_CHECK_ARCH: (u32, u32) = (9, 0);

/// Per-block limits of a GPU architecture, for `check` without a GPU (a live run reads the
/// device's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchLimits {
    /// Static `__shared__` bytes per block: 48 KiB everywhere (ptxas refuses more).
    pub static_shared: u64,
    /// Static + dynamic shared bytes per block once a kernel opts in
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, which the engine sets for a launch that
    /// needs it); `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN` on a real device.
    pub shared_optin: u64,
    /// Resident warps per SM.
    pub warps_per_sm: u64,
    /// 32-bit registers per SM.
    pub registers_per_sm: u64,
    /// Shared memory per SM, the part each resident block reserves included.
    pub shared_per_sm: u64,
    /// Shared memory the system reserves for each resident block (1 KiB since Ampere).
    pub shared_reserved_per_block: u64,
}

/// The limits of compute capability `arch` (the CUDA C++ Programming Guide's table of technical
/// specifications per compute capability), or `None` for one this table does not know.
pub fn arch_limits(arch: (u32, u32)) -> Option<ArchLimits> {
    let kib = |k: u64| k * 1024;
    // (per-block opt-in shared KiB, resident warps per SM, shared KiB per SM)
    let (shared_optin, warps_per_sm, shared_per_sm) = match arch {
        (7, 0) | (7, 2) => (96, 64, 96),
        (7, 5) => (64, 32, 64),
        (8, 0) => (163, 64, 164),
        (8, 7) => (163, 48, 164),
        (8, 6) | (8, 9) => (99, 48, 100),
        (9, 0) | (10, 0) | (10, 3) => (227, 64, 228),
        (12, 0) | (12, 1) => (99, 48, 100),
        _ => return None,
    };
    Some(ArchLimits {
        static_shared: kib(48),
        shared_optin: kib(shared_optin),
        warps_per_sm,
        registers_per_sm: 65_536,
        shared_per_sm: kib(shared_per_sm),
        shared_reserved_per_block: if arch.0 >= 8 { kib(1) } else { 0 },
    })
}

/// `sm_90 (Hopper)`: an architecture as a reader knows it.
pub fn arch_name((major, minor): (u32, u32)) -> String {
    let family = match (major, minor) {
        (7, 5) => "Turing",
        (7, _) => "Volta",
        (8, 9) => "Ada",
        (8, _) => "Ampere",
        (9, _) => "Hopper",
        (10..=12, _) => "Blackwell",
        _ => return format!("sm_{major}{minor}"),
    };
    format!("sm_{major}{minor} ({family})")
}

/// Why a variant that needs architecture `min` cannot run on one of compute capability `cc`:
/// "needs sm_90 (Hopper)".
pub fn needs_arch(min: (u32, u32), cc: (u32, u32)) -> Option<String> {
    (cc < min).then(|| format!("needs {}", arch_name(min)))
}

/// The architecture a compile log says an instruction needs ("Feature 'cp.async.bulk' requires
/// .target sm_90 or higher"), the newest one if several.
pub fn arch_required_by(log: &str) -> Option<(u32, u32)> {
    log.match_indices("requires .target sm_")
        .filter_map(|(at, m)| {
            let digits: String = log[at + m.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let n: u32 = digits.parse().ok()?;
            Some((n / 10, n % 10))
        })
        .max()
}

/// "needs 2.0 GiB of device memory (this GPU has 1.0 GiB)", for `bytes` over the `has` a GPU has.
pub fn needs_bytes(bytes: u64, has: u64, what: &str) -> Option<String> {
    let size = |b: u64| match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b => format!("{b} bytes"),
    };
    (bytes > has).then(|| {
        format!(
            "needs {} of {what} (this GPU has {})",
            size(bytes),
            size(has)
        )
    })
}

/// Longest `measure.timeout_s` / `budget_s` accepted, seconds.
pub(crate) const MAX_SECONDS: f64 = 24.0 * 3600.0;
/// Most timed samples a point may ask for.
pub(crate) const MAX_SAMPLES: usize = 100_000;

/// Checks measurement rules (from a directive's `measure` or book.toml): each violation a message
/// naming the key.
pub(crate) fn measure_problems(
    timeout_s: Option<f64>,
    min_samples: Option<usize>,
    max_samples: Option<usize>,
    noise: Option<f64>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = timeout_s
        && let Some(why) = seconds_problem(t)
    {
        out.push(format!("`timeout_s = {t}` {why}"));
    }
    for (key, n) in [("min_samples", min_samples), ("max_samples", max_samples)] {
        match n {
            Some(0) => out.push(format!("`{key} = 0`: at least one sample is needed")),
            Some(n) if n > MAX_SAMPLES => {
                out.push(format!("`{key} = {n}` is more than {MAX_SAMPLES}"))
            }
            _ => {}
        }
    }
    if let (Some(lo), Some(hi)) = (min_samples, max_samples)
        && lo > hi
    {
        out.push(format!(
            "`min_samples = {lo}` is more than `max_samples = {hi}`"
        ));
    }
    if let Some(n) = noise
        && !(n.is_finite() && (0.0..1.0).contains(&n))
    {
        out.push(format!(
            "`noise = {n}` must be a fraction from 0 to 1 (0.005 is 0.5 %)"
        ));
    }
    out
}

/// Why a duration in seconds is unusable, if it is.
pub(crate) fn seconds_problem(s: f64) -> Option<String> {
    if !s.is_finite() {
        Some("is not a finite number of seconds".into())
    } else if s <= 0.0 {
        Some("must be more than 0 seconds".into())
    } else if s > MAX_SECONDS {
        Some(format!("is more than {MAX_SECONDS} seconds (a day)"))
    } else {
        None
    }
}

/// `a * b` for point counts, `None` on overflow.
pub(crate) fn mul_count(a: u64, b: u64) -> Option<u64> {
    a.checked_mul(b)
}

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
