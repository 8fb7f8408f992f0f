//! Fuzz campaigns over directives, specs, recordings, paper CSVs, expressions and claims (the
//! targets and mutator of `tests/fuzz_support`), with the bounds enforced here:
//!
//! - memory: a counting global allocator refuses any allocation past `--mem-mb` of live heap
//!   (the process then aborts, having saved the input), and `RLIMIT_AS` caps the address space;
//! - time: a watchdog saves the input and exits when one input runs longer than `--timeout-s`;
//! - panics: caught, the input saved under `--findings`, counted; the exit status is 1 if any.
//!
//! `cargo run --release --example fuzz -- --inputs 1000000 --seed 1`
//! (options: `--target <name>|all`, `--mem-mb 1024`, `--timeout-s 10`, `--findings fuzz-findings`)

#[path = "../tests/fuzz_support/mod.rs"]
mod fuzz_support;

use fuzz_support::{Context, MAX_INPUT, Rng, TARGETS, Target, corpus, mutate};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Live heap bytes, the peak, and the cap (0: none yet).
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(0);

/// The input being run, kept where the allocator can save it without allocating.
struct Current(UnsafeCell<[u8; MAX_INPUT]>);
// SAFETY: written only by the fuzzing thread between inputs; read (to save it) only when that
// thread is stuck in an input (watchdog) or inside the allocator on the same thread.
unsafe impl Sync for Current {}
static CURRENT: Current = Current(UnsafeCell::new([0; MAX_INPUT]));
static CURRENT_LEN: AtomicUsize = AtomicUsize::new(0);

struct Capped;

// SAFETY: forwards to the system allocator; only counts and refuses.
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let size = layout.size();
        let cap = CAP.load(Ordering::Relaxed);
        let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
        if cap != 0 && live > cap {
            LIVE.fetch_sub(size, Ordering::Relaxed);
            save_current_raw(b"fuzz-oom-input.bin\0");
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Capped = Capped;

/// Writes the current input to `name` (a NUL-terminated path) without allocating.
fn save_current_raw(name: &[u8]) {
    let len = CURRENT_LEN.load(Ordering::Relaxed);
    // SAFETY: plain libc calls on a NUL-terminated path and a static buffer.
    unsafe {
        let fd = libc::open(
            name.as_ptr().cast(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
            0o644,
        );
        if fd >= 0 {
            libc::write(fd, (*CURRENT.0.get()).as_ptr().cast(), len);
            libc::close(fd);
        }
        let msg =
            b"fuzz: allocation over the memory cap refused; input saved to fuzz-oom-input.bin\n";
        libc::write(2, msg.as_ptr().cast(), msg.len());
    }
}

fn set_current(input: &[u8]) {
    let n = input.len().min(MAX_INPUT);
    // SAFETY: only this thread writes, between inputs.
    unsafe { (&mut *CURRENT.0.get())[..n].copy_from_slice(&input[..n]) };
    CURRENT_LEN.store(n, Ordering::Relaxed);
}

struct Options {
    inputs: u64,
    seed: u64,
    targets: Vec<Target>,
    mem_mb: usize,
    timeout_s: u64,
    findings: PathBuf,
}

fn options() -> Options {
    let mut o = Options {
        inputs: 100_000,
        seed: 1,
        targets: TARGETS.to_vec(),
        mem_mb: 1024,
        timeout_s: 10,
        findings: PathBuf::from("fuzz-findings"),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        let num = || {
            value
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{flag}: not a number"))
        };
        match flag.as_str() {
            "--inputs" => o.inputs = num(),
            "--seed" => o.seed = num(),
            "--mem-mb" => o.mem_mb = num() as usize,
            "--timeout-s" => o.timeout_s = num(),
            "--findings" => o.findings = PathBuf::from(value),
            "--target" if value == "all" => o.targets = TARGETS.to_vec(),
            "--target" => {
                o.targets =
                    vec![Target::parse(value).unwrap_or_else(|| panic!("no target {value}"))]
            }
            other => panic!("unknown option {other}"),
        }
    }
    o
}

/// Caps the address space (a backstop to the allocator's count: code, stacks, mappings).
fn limit_address_space(mem_mb: usize) {
    let bytes = ((mem_mb + 2048) as u64) << 20;
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: setrlimit with a valid struct.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
        eprintln!("warning: setrlimit(RLIMIT_AS) failed");
    }
}

fn main() {
    let o = options();
    let ctx = Context::new();
    let seeds: Vec<Vec<Vec<u8>>> = o.targets.iter().map(|t| corpus(*t)).collect();
    std::fs::create_dir_all(&o.findings).unwrap();
    limit_address_space(o.mem_mb);
    CAP.store(o.mem_mb << 20, Ordering::Relaxed);

    // The watchdog: one input running past the timeout is a hang.
    let started = Instant::now();
    let input_start_ms = std::sync::Arc::new(AtomicU64::new(0));
    let busy = std::sync::Arc::new(AtomicBool::new(false));
    {
        let (input_start_ms, busy) = (input_start_ms.clone(), busy.clone());
        let (timeout_ms, findings) = (o.timeout_s * 1000, o.findings.clone());
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(std::time::Duration::from_millis(100));
                let now = started.elapsed().as_millis() as u64;
                if busy.load(Ordering::SeqCst)
                    && now.saturating_sub(input_start_ms.load(Ordering::SeqCst)) > timeout_ms
                {
                    let len = CURRENT_LEN.load(Ordering::Relaxed);
                    // SAFETY: the fuzzing thread is stuck inside this input.
                    let input = unsafe { (&*CURRENT.0.get())[..len].to_vec() };
                    let path = findings.join("hang-input.bin");
                    let _ = std::fs::write(&path, input);
                    eprintln!(
                        "fuzz: HANG: an input ran over {timeout_ms} ms; saved to {}",
                        path.display()
                    );
                    std::process::exit(3);
                }
            }
        });
    }

    let panic_message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    {
        let panic_message = panic_message.clone();
        std::panic::set_hook(Box::new(move |info| {
            *panic_message.lock().unwrap_or_else(|e| e.into_inner()) = info.to_string();
        }));
    }

    let mut rngs: Vec<Rng> = (0..o.targets.len())
        .map(|t| Rng::new(o.seed.wrapping_mul(1000).wrapping_add(t as u64)))
        .collect();
    let mut per_target = vec![0u64; o.targets.len()];
    let (mut panics, mut slowest) = (0u64, (0f64, String::new()));
    for i in 0..o.inputs {
        let t = (i % o.targets.len() as u64) as usize;
        let target = o.targets[t];
        let n = per_target[t] as usize;
        let input = match seeds[t].get(n) {
            Some(seed) => seed.clone(),
            None => mutate(&mut rngs[t], &seeds[t]),
        };
        per_target[t] += 1;
        set_current(&input);
        input_start_ms.store(started.elapsed().as_millis() as u64, Ordering::SeqCst);
        busy.store(true, Ordering::SeqCst);
        let t0 = Instant::now();
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ctx.run(target, &input)));
        let took = t0.elapsed().as_secs_f64();
        busy.store(false, Ordering::SeqCst);
        if took > slowest.0 {
            slowest = (took, target.name().to_string());
        }
        if ok.is_err() {
            panics += 1;
            let path = o
                .findings
                .join(format!("panic-{}-{}-{i}.bin", target.name(), o.seed));
            let _ = std::fs::write(&path, &input);
            let msg = panic_message
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            eprintln!(
                "fuzz: PANIC in {} (saved to {}): {msg}",
                target.name(),
                path.display()
            );
        }
        if (i + 1) % 100_000 == 0 {
            eprintln!(
                "fuzz: {} inputs, {panics} panics, peak heap {} MiB, {:.0} s",
                i + 1,
                PEAK.load(Ordering::Relaxed) >> 20,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let counts: Vec<String> = o
        .targets
        .iter()
        .zip(&per_target)
        .map(|(t, n)| format!("{} {n}", t.name()))
        .collect();
    println!(
        "fuzz: {} inputs ({}), seed {}, {panics} panics, 0 hangs (none over {} s; slowest {:.3} s, {}), \
         peak heap {} MiB under a {} MiB cap, {:.0} s",
        o.inputs,
        counts.join(", "),
        o.seed,
        o.timeout_s,
        slowest.0,
        slowest.1,
        PEAK.load(Ordering::Relaxed) >> 20,
        o.mem_mb,
        started.elapsed().as_secs_f64()
    );
    if panics > 0 {
        std::process::exit(1);
    }
}
