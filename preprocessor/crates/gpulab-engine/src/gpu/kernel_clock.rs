//! Kernel durations from the GPU's own timestamps (opt-in, `GPULAB_KERNEL_CLOCK=1`): CUPTI activity
//! records of kind `CONCURRENT_KERNEL` give each kernel's start and end as the GPU executed it, without
//! the launch processing and event writes that CUDA events around a single launch include. Measured on
//! an H100 (session 5), these durations are shorter than Nsight Compute's `gpu__time_duration` (which
//! includes about a microsecond of launch processing) and tracing slowed memory-bound kernels by up to
//! 7 %, so the engine times with events unless asked (`scripts/regen-logs/h100-d4929a5-kernel-clock-*`).
//!
//! CUPTI is a process-wide singleton: the buffers it fills are handed back through C callbacks, which
//! push the spans into a global list that [`KernelClock::take`] drains. Everything here is optional:
//! without libcupti, or when another CUPTI client (Nsight Compute) owns the process, [`KernelClock::open`]
//! says why and the caller times with events.

use cudarc::cupti::result::{CuptiError, activity};
use cudarc::cupti::sys;
use std::alloc::{Layout, alloc, dealloc};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// One kernel's execution as the GPU timed it (nanoseconds of the GPU's timestamp clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSpan {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl KernelSpan {
    /// The kernel's duration in milliseconds.
    pub fn ms(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64 / 1e6
    }
}

/// The span of the measured launch among those CUPTI reported for one sample: the last to start
/// (the blocking kernel and any reset kernel are queued before it; nothing after it).
pub fn measured_span(spans: &[KernelSpan]) -> Option<KernelSpan> {
    spans.iter().copied().max_by_key(|s| s.start_ns)
}

/// Bytes of one activity buffer (CUPTI asks for a new one when a buffer fills or is flushed).
const BUFFER_BYTES: usize = 256 * 1024;
/// Activity buffers must be 8-byte aligned.
const BUFFER_ALIGN: usize = 8;
/// Byte offsets of `start` and `end` in every `CUpti_ActivityKernel` record from version 4 on
/// (checked against the bindings by a unit test): read this way, the clock does not depend on which
/// record version the installed CUPTI writes.
const START_OFFSET: usize = 16;
const END_OFFSET: usize = 24;
/// `CUPTI_ACTIVITY_FLAG_FLUSH_FORCED`: also deliver buffers whose records are not all complete.
const FLUSH_FORCED: u32 = 1;

static SPANS: Mutex<Vec<KernelSpan>> = Mutex::new(Vec::new());
static OPENED: OnceLock<Result<(), String>> = OnceLock::new();

fn buffer_layout() -> Layout {
    // BUFFER_BYTES and BUFFER_ALIGN are valid constants: this cannot fail.
    Layout::from_size_align(BUFFER_BYTES, BUFFER_ALIGN).unwrap_or(Layout::new::<u64>())
}

unsafe extern "C" fn buffer_requested(
    buffer: *mut *mut u8,
    size: *mut usize,
    max_num_records: *mut usize,
) {
    let layout = buffer_layout();
    // SAFETY: CUPTI passes valid out-pointers; the buffer is freed in `buffer_completed`, which CUPTI
    // calls for every buffer it was given. A null buffer (allocation failure) makes CUPTI drop records.
    unsafe {
        let ptr = alloc(layout);
        *buffer = ptr;
        *size = if ptr.is_null() { 0 } else { layout.size() };
        *max_num_records = 0;
    }
}

unsafe extern "C" fn buffer_completed(
    _context: cudarc::driver::sys::CUcontext,
    _stream_id: u32,
    buffer: *mut u8,
    _size: usize,
    valid_size: usize,
) {
    if buffer.is_null() {
        return;
    }
    let mut spans = Vec::new();
    let mut record: *mut sys::CUpti_Activity = std::ptr::null_mut();
    loop {
        // SAFETY: `buffer` holds `valid_size` bytes of records written by CUPTI.
        match unsafe { activity::get_next_record(buffer, valid_size, &mut record) } {
            Ok(()) if !record.is_null() => {
                // SAFETY: every record starts with its kind; kernel records hold `start` and `end`
                // at the offsets checked by the unit test.
                unsafe {
                    let kind = (*record).kind;
                    if kind == sys::CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
                        || kind == sys::CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_KERNEL
                    {
                        let base = record.cast::<u8>();
                        let start = base.add(START_OFFSET).cast::<u64>().read_unaligned();
                        let end = base.add(END_OFFSET).cast::<u64>().read_unaligned();
                        spans.push(KernelSpan {
                            start_ns: start,
                            end_ns: end,
                        });
                    }
                }
            }
            _ => break,
        }
    }
    SPANS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .extend(spans);
    // SAFETY: allocated in `buffer_requested` with the same layout.
    unsafe { dealloc(buffer, buffer_layout()) };
}

/// The entries of `dir` whose names start with `prefix`, the highest version (name) first; none
/// when `dir` cannot be read.
fn named_in(dir: &std::path::Path, prefix: &str) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    found.sort();
    found.reverse();
    found
}

/// Directories where libcupti is usually installed (the CUDA toolkit's `extras/CUPTI`, pip's wheel).
fn library_dirs() -> Vec<std::path::PathBuf> {
    let mut roots: Vec<std::path::PathBuf> = ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(Into::into))
        .collect();
    roots.push("/usr/local/cuda".into());
    roots.extend(named_in("/usr/local".as_ref(), "cuda-"));
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("CUPTI_LIB_DIR") {
        dirs.push(d.into());
    }
    for r in roots {
        for sub in ["extras/CUPTI/lib64", "lib64", "targets/x86_64-linux/lib"] {
            dirs.push(r.join(sub));
        }
    }
    dirs.push("/usr/lib/x86_64-linux-gnu".into());
    dirs
}

/// Loads libcupti by full path from [`library_dirs`] when the loader's path does not find it, so that
/// cudarc's lookup by name then finds the library already loaded (by its soname).
fn preload() {
    // SAFETY: only checks whether the library can be opened by name.
    if unsafe { sys::is_culib_present() } {
        return;
    }
    for dir in library_dirs() {
        for lib in named_in(&dir, "libcupti.so") {
            // SAFETY: loading the CUDA toolkit's CUPTI library runs its initialisers only.
            if let Ok(l) = unsafe { libloading::Library::new(lib) } {
                // Kept loaded for the life of the process, as cudarc keeps its own handle.
                std::mem::forget(l);
                return;
            }
        }
    }
}

fn describe(e: CuptiError) -> String {
    format!("{:?}", e.0)
}

fn open_once() -> Result<(), String> {
    preload();
    // SAFETY: only checks whether the library can be opened by name.
    if !unsafe { sys::is_culib_present() } {
        return Err(
            "libcupti was not found (set CUPTI_LIB_DIR to the folder holding libcupti.so)".into(),
        );
    }
    std::panic::catch_unwind(|| {
        activity::register_callbacks(Some(buffer_requested), Some(buffer_completed))
            .map_err(describe)
    })
    .map_err(|_| "libcupti lacks a symbol this tool needs".to_string())?
}

/// The kernel clock of this process (CUPTI activity tracing of kernels), enabled around a point's
/// samples.
#[derive(Debug)]
pub struct KernelClock {
    enabled: AtomicBool,
}

impl KernelClock {
    /// Sets up CUPTI's activity buffers once per process; `Err` says why kernel timestamps are not
    /// available (the caller then times with CUDA events).
    pub fn open() -> Result<KernelClock, String> {
        OPENED.get_or_init(open_once).clone()?;
        Ok(KernelClock {
            enabled: AtomicBool::new(false),
        })
    }

    /// Starts recording kernel spans (drops any left from before).
    pub fn enable(&self) -> Result<(), String> {
        let r = std::panic::catch_unwind(|| {
            activity::enable(sys::CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
                .map_err(describe)
        })
        .map_err(|_| "CUPTI panicked enabling kernel records".to_string())?;
        r?;
        self.enabled.store(true, Ordering::Relaxed);
        self.take()?;
        Ok(())
    }

    /// Stops recording kernel spans and drops those not taken.
    pub fn disable(&self) {
        if self.enabled.swap(false, Ordering::Relaxed) {
            let _ = std::panic::catch_unwind(|| {
                let _ = activity::disable(
                    sys::CUpti_ActivityKind::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                );
                let _ = activity::flush_all(FLUSH_FORCED);
            });
            SPANS.lock().unwrap_or_else(|p| p.into_inner()).clear();
        }
    }

    /// The spans of kernels that completed since the last call (call after synchronising with the
    /// last launch: CUPTI writes a record once its kernel has finished).
    pub fn take(&self) -> Result<Vec<KernelSpan>, String> {
        let flush = |flag: u32| {
            std::panic::catch_unwind(|| activity::flush_all(flag).map_err(describe))
                .map_err(|_| "CUPTI panicked flushing its buffers".to_string())?
        };
        flush(0)?;
        let mut spans = std::mem::take(&mut *SPANS.lock().unwrap_or_else(|p| p.into_inner()));
        if spans.is_empty() {
            flush(FLUSH_FORCED)?;
            spans = std::mem::take(&mut *SPANS.lock().unwrap_or_else(|p| p.into_inner()));
        }
        Ok(spans)
    }
}

impl Drop for KernelClock {
    fn drop(&mut self) {
        self.disable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn start_and_end_sit_at_the_same_offsets_in_every_kernel_record_version() {
        macro_rules! check {
            ($($t:ident),*) => {$(
                assert_eq!(offset_of!(sys::$t, start), START_OFFSET, stringify!($t));
                assert_eq!(offset_of!(sys::$t, end), END_OFFSET, stringify!($t));
            )*};
        }
        check!(
            CUpti_ActivityKernel4,
            CUpti_ActivityKernel5,
            CUpti_ActivityKernel6,
            CUpti_ActivityKernel7,
            CUpti_ActivityKernel8,
            CUpti_ActivityKernel9,
            CUpti_ActivityKernel10
        );
    }

    #[test]
    fn the_measured_span_is_the_last_to_start() {
        let blocker = KernelSpan {
            start_ns: 100,
            end_ns: 5_000,
        };
        let kernel = KernelSpan {
            start_ns: 5_400,
            end_ns: 8_400,
        };
        assert_eq!(measured_span(&[blocker, kernel]), Some(kernel));
        assert_eq!(measured_span(&[kernel, blocker]), Some(kernel));
        assert_eq!(measured_span(&[]), None);
        assert!((kernel.ms() - 0.003).abs() < 1e-12);
    }

    #[test]
    fn a_span_whose_end_precedes_its_start_lasts_zero() {
        let odd = KernelSpan {
            start_ns: 10,
            end_ns: 5,
        };
        assert_eq!(odd.ms(), 0.0);
    }
}
