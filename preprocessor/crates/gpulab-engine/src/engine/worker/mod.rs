//! The worker's side: opens the GPU and, for each job point, builds inputs, compiles, verifies
//! and times it; every failure becomes a failed point with its message.

mod profile;

use super::buffer_reset::{Prepare, ResetPlan};
use super::expected::expected;
use super::job::{Job, JobPoint, MeasureRules, Message};
use super::measure::{measure_gpu, measure_host};
use super::phases::{Phase, PhaseTimes};
use super::reference::compare_prefix_within;
use super::sequence::Sequence;
use crate::expr::Num;
use crate::gpu::{DeviceBuffer, DeviceInfo, Gpu, Image, Kernel, Module};
use crate::host_data::HostData;
use crate::host_data::init::{generate, seed_for};
use crate::record::{
    Attributes, DeviceRecord, Failure, FailureKind, Occupancy, Outcome, Point, PointProvenance,
    Timing, TimingMode, Verification,
};
use crate::spec::metrics::point_vars;
use crate::spec::{Exec, Experiment, Reference, Variant};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

mod cache;
use cache::ByteLru;

/// Host inputs and CPU references kept for later points (each cache; bytes).
const HOST_CACHE_BYTES: u64 = 8 << 30;

/// Samples of the empty kernel a job times inside its first cold kernel point (~0.1 ms each).
const EMPTY_KERNEL_SAMPLES: usize = 200;

/// Seed of every generated input: the same inputs on every machine and run.
pub(crate) const SEED: u64 = 0x6770_756c_6162;

/// The recording's view of the device.
pub fn device_record(d: &DeviceInfo) -> DeviceRecord {
    DeviceRecord {
        slug: d.slug.clone(),
        name: d.name.clone(),
        compute_capability: d.compute_capability,
        sm_count: d.sm_count,
        clock_mhz: d.clock_mhz,
        memory_clock_mhz: d.memory_clock_mhz,
        bus_width_bits: d.bus_width_bits,
        l2_bytes: d.l2_bytes,
        memory_bytes: d.memory_bytes,
        driver_version: d.driver_version.clone(),
        cuda_version: d.cuda_version.clone(),
        nvrtc_version: d.nvrtc_version.clone(),
        theoretical_bandwidth_gbps: d.theoretical_bandwidth_gbps,
        fp32_peak_gflops: d.fp32_peak_gflops,
    }
}

/// Writes one message to the supervisor as a JSON line (an unserialisable one as a `Fatal` saying why).
fn emit(msg: &Message) -> Result<(), Stopped> {
    let line = serde_json::to_string(msg).or_else(|e| {
        serde_json::to_string(&Message::Fatal {
            message: format!("the worker could not serialise its message: {e}"),
        })
    });
    let mut out = std::io::stdout().lock();
    let written = match line {
        Ok(line) => writeln!(out, "{line}").and_then(|()| out.flush()),
        Err(e) => Err(std::io::Error::other(e)),
    };
    written.map_err(|_| Stopped)
}

/// The supervisor stopped reading: nothing more can be reported.
struct Stopped;

/// Tells the supervisor the whole job fails, with why.
fn fatal(message: String) -> Result<ExitCode, Stopped> {
    emit(&Message::Fatal { message })?;
    Ok(ExitCode::FAILURE)
}

/// `mdbook-gpulab worker`: reads a job on stdin (or from `job_file`), streams messages on stdout.
pub fn worker_main(job_file: Option<&std::path::Path>) -> ExitCode {
    // Before any thread starts (rayon's pool sizes itself from the CPUs allowed).
    if let Ok(list) = std::env::var(super::supervisor::CPUS_ENV)
        && !list.trim().is_empty()
        && let Err(e) = super::cpus::parse_list(&list).and_then(|c| super::cpus::pin(&c))
    {
        eprintln!("warning: cannot pin the worker to CPUs {list}: {e}");
    }
    run_job(job_file).unwrap_or(ExitCode::FAILURE)
}

fn run_job(job_file: Option<&std::path::Path>) -> Result<ExitCode, Stopped> {
    let read = match job_file {
        None => serde_json::from_reader(std::io::stdin()).map_err(|e| e.to_string()),
        Some(path) => std::fs::read(path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string())),
    };
    let job: Job = match read {
        Ok(j) => j,
        Err(e) => return fatal(format!("bad job: {e}")),
    };
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => return fatal(e.to_string()),
    };
    let device = device_record(gpu.info());
    emit(&Message::Device(device.clone()))?;
    if job.points.is_empty() {
        // A probe (`supervisor::probe_device`): the device is the whole answer.
        return Ok(ExitCode::SUCCESS);
    }
    let exp = match crate::spec::load(&job.root, &job.kernels_dir, &job.experiment) {
        Ok(e) => Arc::new(e),
        Err(diags) => {
            let rendered: Vec<String> = diags.iter().map(|d| d.render(false)).collect();
            return fatal(rendered.join("\n"));
        }
    };
    let mut runner = PointRunner {
        gpu,
        exp,
        device,
        job: job.clone(),
        modules: HashMap::new(),
        host: None,
        host_cache: ByteLru::new(HOST_CACHE_BYTES),
        expected: ByteLru::new(HOST_CACHE_BYTES),
        device_inputs: None,
        out_host: None,
        slowest: job.budget_hints.clone().into_iter().collect(),
        after_samples: None,
        phases: PhaseTimes::default(),
        empty_kernel_ms: None,
    };
    if job.profile {
        return profile::profile_points(&mut runner, &job.points);
    }
    for (index, jp) in job.points.iter().enumerate() {
        emit(&Message::Start { index })?;
        let point = runner.run(jp);
        emit(&Message::Point {
            index,
            point: Box::new(point),
        })?;
        if runner.gpu.is_poisoned() {
            // The context is lost (illegal address…): let the parent restart a fresh worker.
            emit(&Message::Phases(runner.phases))?;
            return Ok(ExitCode::from(3));
        }
    }
    emit(&Message::Phases(runner.phases))?;
    Ok(ExitCode::SUCCESS)
}

/// Each buffer's name and length: points differing only in launch shape share their inputs.
type BufferSet = Vec<(String, usize)>;

/// The host inputs of one buffer set.
struct HostInputs {
    set: BufferSet,
    data: Arc<BTreeMap<String, HostData>>,
}

/// The current buffer set on the device, uploaded once and copied on the device for each point.
struct DeviceInputs {
    set: BufferSet,
    pristine: BTreeMap<String, DeviceBuffer>,
}

struct PointRunner {
    gpu: Gpu,
    exp: Arc<Experiment>,
    device: DeviceRecord,
    job: Job,
    /// Loaded modules with their compiled code's provenance (hash, target).
    modules: HashMap<(PathBuf, Vec<String>), (Arc<Module>, CompiledCode)>,
    /// The current point's host inputs.
    host: Option<HostInputs>,
    /// Host inputs of recent buffer sets.
    host_cache: ByteLru<BufferSet, Arc<BTreeMap<String, HostData>>>,
    /// Expected outputs by reference identity (`expected_key`).
    expected: ByteLru<String, Arc<HostData>>,
    device_inputs: Option<DeviceInputs>,
    /// The last verified output's host buffer, reused so a large download faults no new pages.
    out_host: Option<HostData>,
    /// Where this job's time went.
    phases: PhaseTimes,
    /// Per variant: the largest parameter product run and its single-run time, for the budget.
    slowest: HashMap<String, (f64, f64)>,
    /// The output after the timed samples of the last kernel run with `reset` buffers.
    after_samples: Option<HostData>,
    /// The empty kernel timed as a cold point (`Timing::empty_kernel_ms`), once per job; `None`
    /// until then, `Some(None)` when it could not be timed.
    empty_kernel_ms: Option<Option<f64>>,
}

struct Failed(FailureKind, String);

/// The compiled image a point ran: SHA-256 (first 16 bytes, hex) and target (`sm_90`, `compute_90`).
#[derive(Clone)]
struct CompiledCode {
    hash: String,
    target: String,
}

impl CompiledCode {
    fn of(image: &Image) -> CompiledCode {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(image.bytes());
        let (major, minor) = image.arch();
        let target = match image.kind() {
            crate::gpu::ImageKind::Cubin => format!("sm_{major}{minor}"),
            crate::gpu::ImageKind::Ptx => format!("compute_{major}{minor}"),
        };
        CompiledCode {
            hash: digest.iter().take(16).map(|b| format!("{b:02x}")).collect(),
            target,
        }
    }
}

impl PointRunner {
    fn run(&mut self, jp: &JobPoint) -> Point {
        let mut point = Point::new(
            &jp.variant,
            &jp.params,
            jp.key.as_str(),
            self.job.commit.clone(),
        );
        point.run = self.job.run.clone();
        point.provenance = Some(PointProvenance {
            driver_version: self.device.driver_version.clone(),
            cuda_version: self.device.cuda_version.clone(),
            nvrtc_version: self.device.nvrtc_version.clone(),
            gpu_uuid: self.gpu.info().uuid.clone(),
            code_hash: None,
            code_target: None,
        });
        let empty_kernel_ms = self.empty_kernel_ms(jp);
        match self.run_inner(jp, &mut point) {
            Ok(mut timing) => {
                if timing.mode == TimingMode::Cold {
                    timing.empty_kernel_ms = empty_kernel_ms;
                }
                // Derived metrics are not recorded: the book computes them from the timing.
                let size = super::job::size_of(&jp.params);
                let e = self.slowest.entry(jp.variant.clone()).or_insert((0.0, 0.0));
                if size >= e.0 {
                    *e = (size, timing.min_ms / 1e3);
                }
                point.timing = Some(timing);
            }
            Err(Failed(kind, message)) => {
                point.outcome = match kind {
                    FailureKind::Budget | FailureKind::NotApplicable => Outcome::Skipped,
                    _ => Outcome::Failed,
                };
                point.failure = Some(Failure { kind, message });
            }
        }
        point.recorded_at = chrono::Utc::now();
        point
    }

    /// For a cold kernel point, the empty kernel's cold time (`engine::calibrate`), timed once.
    fn empty_kernel_ms(&mut self, jp: &JobPoint) -> Option<f64> {
        let kernel = self
            .exp
            .variant(&jp.variant)
            .is_some_and(|v| !matches!(v.exec, Exec::Cpu(_)));
        if !kernel || jp.rules_in(&self.job).mode != TimingMode::Cold {
            return None;
        }
        *self.empty_kernel_ms.get_or_insert_with(|| {
            super::calibrate::time_null_kernel(&self.gpu, EMPTY_KERNEL_SAMPLES, 1)
                .ok()
                .map(|t| t.median_ms)
                .filter(|ms| ms.is_finite() && *ms > 0.0)
        })
    }

    fn inputs(&mut self, vars: &HashMap<String, Num>) -> Result<(), Failed> {
        let lens = super::resolve::buffer_lens(&self.exp, vars)
            .map_err(|e| Failed(FailureKind::Launch, e.to_string()))?;
        let set: BufferSet = self
            .exp
            .buffers
            .iter()
            .zip(&lens)
            .map(|(spec, (_, len))| (spec.name.clone(), *len))
            .collect();
        if self.host.as_ref().is_some_and(|h| h.set == set) {
            return Ok(());
        }
        if let Some(data) = self.host_cache.get(&set).cloned() {
            self.host = Some(HostInputs { set, data });
            return Ok(());
        }
        // Fail before making host copies the device could not hold anyway.
        let bytes = self.set_bytes(&set);
        let has = self.device.memory_bytes;
        if let Some(why) =
            crate::limits::needs_bytes(bytes, has, "device memory").filter(|_| has > 0)
        {
            return Err(Failed(FailureKind::NotApplicable, why));
        }
        let mut data = BTreeMap::new();
        for (spec, (_, len)) in self.exp.buffers.iter().zip(lens) {
            let d = generate(spec.elem, len, &spec.init, seed_for(SEED, &spec.name))
                .map_err(|e| Failed(FailureKind::Launch, format!("buffer {}: {e}", spec.name)))?;
            data.insert(spec.name.clone(), d);
        }
        let data = Arc::new(data);
        self.host_cache.insert(set.clone(), data.clone(), bytes);
        self.host = Some(HostInputs { set, data });
        Ok(())
    }

    /// The current point's host inputs.
    fn host_data(&self, kind: FailureKind) -> Result<&BTreeMap<String, HostData>, Failed> {
        let host = self.host.as_ref().map(|h| &*h.data);
        host.ok_or_else(|| Failed(kind, "no inputs".into()))
    }

    /// Bytes of a buffer set's buffers.
    fn set_bytes(&self, set: &BufferSet) -> u64 {
        self.exp
            .buffers
            .iter()
            .zip(set)
            .fold(0u64, |sum, (spec, (_, len))| {
                sum.saturating_add((*len as u64).saturating_mul(spec.elem.size_of() as u64))
            })
    }

    /// Why a point is not run: its variant needs a newer GPU, or a smaller point predicts it over budget.
    fn not_run(&self, jp: &JobPoint, variant: &Variant) -> Option<Failed> {
        let cc = self.device.compute_capability;
        if let Some(why) = variant
            .min_arch
            .and_then(|m| crate::limits::needs_arch(m, cc))
        {
            return Some(Failed(FailureKind::NotApplicable, why));
        }
        let size = super::job::size_of(&jp.params);
        let budget = jp.rules_in(&self.job).budget_s;
        let (s, t) = self.slowest.get(&jp.variant)?;
        (size > *s && *t * (size / s.max(1.0)) > budget).then(|| {
            let predicted = t * size / s.max(1.0);
            let why = format!("predicted {predicted:.1} s per run, over the {budget:.0} s budget");
            Failed(FailureKind::Budget, why)
        })
    }

    fn run_inner(&mut self, jp: &JobPoint, point: &mut Point) -> Result<Timing, Failed> {
        let exp = self.exp.clone();
        let variant = exp.variant(&jp.variant).ok_or_else(|| {
            Failed(
                FailureKind::Launch,
                format!("no variant `{}` in the spec", jp.variant),
            )
        })?;
        if let Some(why) = self.not_run(jp, variant) {
            return Err(why);
        }
        let vars = point_vars(&jp.params, Some(&self.device));
        let started = std::time::Instant::now();
        let made = self.inputs(&vars);
        self.phases
            .charge(Phase::Inputs, started.elapsed().as_secs_f64());
        made?;
        let verify = exp.verify_for(variant).clone();
        let out_spec = exp.buffer(&verify.output).ok_or_else(|| {
            Failed(
                FailureKind::Verification,
                "verify.output is not a buffer".into(),
            )
        })?;
        let rules = jp.rules_in(&self.job).clone();

        let (output, timing) = self.run_variant(variant, &verify.output, &vars, &rules, point)?;
        let after_samples = self.after_samples.take();
        // Verification (before trusting the timing).
        let started = std::time::Instant::now();
        let want = self.expected_for(&verify, variant, &vars, output.len(), out_spec.elem, jp);
        self.phases
            .charge(Phase::Reference, started.elapsed().as_secs_f64());
        let want = match want {
            Ok(w) => w,
            Err(e) => {
                self.out_host = Some(output);
                return Err(e);
            }
        };
        let tolerance = self.tolerance(&verify, &vars, &want);
        // The output may be longer than the reference (a reduction's scratch tail).
        let cmp = self.phases.time(Phase::Compare, || {
            compare_prefix_within(&output, &want, &|i, r| tolerance.at(i, r))
        });
        self.out_host = Some(output);
        let reference_name = match &verify.reference {
            Reference::Builtin(n) => n.clone(),
            Reference::Variant(v) => format!("variant:{v}"),
        };
        point.verification = Some(Verification {
            reference: reference_name,
            max_error: cmp.max_error,
            first_bad_index: cmp.first_bad_index,
            // A uniform rule's value, else the tolerance of the element closest to its own.
            tolerance: tolerance.uniform_value().or(cmp.worst.map(|w| w.tolerance)),
            tolerance_rule: Some(tolerance.rule.clone()),
            error_to_tolerance: cmp.worst.map(|w| w.ratio),
        });
        if !cmp.ok {
            return Err(Failed(FailureKind::Verification, cmp.message));
        }
        // With `reset` buffers the last sample's output must verify too: every sample was reset.
        if let Some(after) = after_samples {
            let again = self.phases.time(Phase::Compare, || {
                compare_prefix_within(&after, &want, &|i, r| tolerance.at(i, r))
            });
            if !again.ok {
                return Err(Failed(
                    FailureKind::Verification,
                    format!(
                        "the output after the timed samples (buffers reset before each) differs: {}",
                        again.message
                    ),
                ));
            }
        }
        Ok(timing)
    }

    /// Runs `variant` (a kernel writing buffer `output`): its output and timing.
    fn run_variant(
        &mut self,
        variant: &Variant,
        output: &str,
        vars: &HashMap<String, Num>,
        rules: &MeasureRules,
        point: &mut Point,
    ) -> Result<(HostData, Timing), Failed> {
        let exp = self.exp.clone();
        match &variant.exec {
            Exec::Kernel { source } => self.run_kernel(variant, source, vars, output, rules, point),
            Exec::Cpu(name) => {
                let started = std::time::Instant::now();
                let ran = self.run_cpu(name, exp.verify_for(variant), vars, rules);
                self.phases
                    .charge(Phase::CpuBaseline, started.elapsed().as_secs_f64());
                ran
            }
            Exec::Library(name) => self.run_library(name, exp.verify_for(variant), vars, rules),
        }
    }

    /// The tolerance to verify with (derived from the arithmetic for accumulating references).
    fn tolerance(
        &self,
        verify: &crate::spec::VerifySpec,
        vars: &HashMap<String, Num>,
        want: &HostData,
    ) -> crate::engine::tolerance::Tolerance {
        let name = match &verify.reference {
            Reference::Builtin(n) => Some(n.as_str()),
            Reference::Variant(_) => None,
        };
        let host = self.host.as_ref().map(|h| &*h.data);
        let inputs: Vec<&HostData> = verify
            .inputs
            .iter()
            .filter_map(|b| host.and_then(|h| h.get(b)))
            .collect();
        let dims = crate::engine::expected::dims(verify, vars).unwrap_or_default();
        crate::engine::tolerance::effective(name, &inputs, &dims, want, verify.tolerance)
    }

    fn expected_for(
        &mut self,
        verify: &crate::spec::VerifySpec,
        variant: &Variant,
        vars: &HashMap<String, Num>,
        len: usize,
        like: crate::value::ElemType,
        jp: &JobPoint,
    ) -> Result<Arc<HostData>, Failed> {
        let key = self.expected_key(verify, vars, len, like, jp);
        if let Some(e) = self.expected.get(&key) {
            return Ok(e.clone());
        }
        let e = match &verify.reference {
            Reference::Builtin(_) => {
                let host = self.host_data(FailureKind::Verification)?;
                expected(verify, vars, host, len, like)
                    .map_err(|m| Failed(FailureKind::Verification, format!("reference: {m}")))?
            }
            Reference::Variant(other) => {
                if other == &variant.name {
                    return Err(Failed(
                        FailureKind::Verification,
                        "a variant cannot be its own reference".into(),
                    ));
                }
                let sub = JobPoint::new(other, &jp.params, &jp.key);
                let mut scratch = Point::new(&sub.variant, &sub.params, "", None);
                let exp = self.exp.clone();
                let v = exp.variant(other).ok_or_else(|| {
                    Failed(
                        FailureKind::Verification,
                        format!("no reference variant `{other}`"),
                    )
                })?;
                let rules = MeasureRules {
                    min_samples: 1,
                    max_samples: 1,
                    ..jp.rules_in(&self.job).clone()
                };
                // The reference variant's run is the caller's `Reference` time, not its phases.
                let before = self.phases;
                let ran = self.run_variant(v, &verify.output, vars, &rules, &mut scratch);
                self.phases = before;
                ran?.0
            }
        };
        let e = Arc::new(e);
        let bytes = (e.len() * e.elem_type().size_of()) as u64;
        self.expected.insert(key, e.clone(), bytes);
        Ok(e)
    }

    /// What an expected output depends on (a variant reference: every parameter, its launch's too).
    fn expected_key(
        &self,
        verify: &crate::spec::VerifySpec,
        vars: &HashMap<String, Num>,
        len: usize,
        like: crate::value::ElemType,
        jp: &JobPoint,
    ) -> String {
        let set = self.host.as_ref().map(|h| &h.set);
        let dims = crate::engine::expected::dims(verify, vars);
        let formula = verify.formula.as_ref().map(|f| {
            let mut used: Vec<(String, Option<String>)> = f
                .variables()
                .iter()
                .map(|v| {
                    (
                        v.to_string(),
                        vars.get(v.as_str()).map(|n| format!("{n:?}")),
                    )
                })
                .collect();
            used.sort();
            (f.source(), used)
        });
        let params = matches!(verify.reference, Reference::Variant(_)).then_some(&jp.params);
        format!(
            "{:?}|{:?}|{set:?}|{dims:?}|{len}|{like:?}|{formula:?}|{params:?}",
            verify.reference, verify.inputs
        )
    }

    fn module(
        &mut self,
        source: &PathBuf,
        options: Vec<String>,
    ) -> Result<(Arc<Module>, CompiledCode), Failed> {
        let key = (source.clone(), options.clone());
        if let Some(m) = self.modules.get(&key) {
            return Ok(m.clone());
        }
        let text = std::fs::read_to_string(source)
            .map_err(|e| Failed(FailureKind::Compile, format!("{}: {e}", source.display())))?;
        let shown = source
            .strip_prefix(&self.job.root)
            .unwrap_or(source)
            .to_string_lossy()
            .into_owned();
        let cc = self.device.compute_capability;
        let image: Image = super::ptx_cache::compile_cached(
            &self.job.cache_dir,
            source,
            &text,
            &shown,
            &options,
            cc,
        )
        .map_err(|e| {
            let e = e.to_string();
            match crate::limits::arch_required_by(&e) {
                // An instruction of a newer architecture: not this GPU's to run.
                Some(min) if min > cc => {
                    let why = crate::limits::needs_arch(min, cc).unwrap_or_default();
                    Failed(FailureKind::NotApplicable, why)
                }
                _ => Failed(FailureKind::Compile, e),
            }
        })?;
        let module = Arc::new(
            self.gpu
                .load(&image)
                .map_err(|e| Failed(FailureKind::Compile, e.to_string()))?,
        );
        let code = CompiledCode::of(&image);
        self.modules.insert(key, (module.clone(), code.clone()));
        Ok((module, code))
    }

    fn run_kernel(
        &mut self,
        variant: &Variant,
        source: &PathBuf,
        vars: &HashMap<String, Num>,
        output: &str,
        rules: &MeasureRules,
        point: &mut Point,
    ) -> Result<(HostData, Timing), Failed> {
        let launch_err = |e: String| Failed(FailureKind::Launch, e);
        let options =
            super::resolve::defines(variant, vars).map_err(|e| launch_err(e.to_string()))?;
        let started = std::time::Instant::now();
        let compiled = self.module(source, options);
        self.phases
            .charge(Phase::Compile, started.elapsed().as_secs_f64());
        let (module, code) = compiled?;
        if let Some(p) = point.provenance.as_mut() {
            p.code_hash = Some(code.hash);
            p.code_target = Some(code.target);
        }
        let seq = Sequence::plan(variant, vars).map_err(|e| launch_err(e.to_string()))?;
        let kernels = functions(&module, &seq)?;
        let first = kernels
            .first()
            .ok_or_else(|| launch_err("no kernel".into()))?;
        // A point has one set of attributes: its first launch's.
        point.attributes = self.attributes(first, &seq);
        if let Some(why) = self.needs_shared(point, &seq) {
            return Err(Failed(FailureKind::NotApplicable, why));
        }
        let resets = ResetPlan::new(&self.exp, variant);
        self.after_samples = None;
        let verification_started = std::time::Instant::now();
        let buffers = RefCell::new(self.device_buffers(&module)?);
        let pristine = self.pristine(&resets)?;
        // Verification run: `reset` buffers prepared as for a sample, other outputs poisoned.
        prepare(&mut buffers.borrow_mut(), &resets.verification, &pristine)
            .map_err(|e| launch_err(e.to_string()))?;
        // Timed after an L2 flush (a run past the timeout is the only sample); watchdog scales from here.
        let _ = emit(&Message::Kernel { running: true });
        let first_ms = (|| -> Result<f64, String> {
            let gpu_err = |e: crate::gpu::GpuError| e.to_string();
            self.gpu.flush_l2().map_err(gpu_err)?;
            let timer = self.gpu.timer().map_err(gpu_err)?;
            timer.start().map_err(gpu_err)?;
            seq.launch(&self.gpu, &kernels, &buffers.borrow())
                .map_err(|e| e.to_string())?;
            timer.stop().map_err(gpu_err)?;
            self.gpu.synchronize().map_err(gpu_err)?;
            timer.elapsed_ms().map_err(gpu_err)
        })()
        .map_err(launch_err)?;
        let guard = buffers.borrow();
        let out_buf = guard
            .get(output)
            .ok_or_else(|| launch_err(format!("no buffer `{output}`")))?;
        let mut out = match self.out_host.take() {
            Some(h) if h.elem_type() == out_buf.elem_type() && h.len() == out_buf.len() => h,
            _ => HostData::zeros(out_buf.elem_type(), out_buf.len()),
        };
        out_buf
            .download_into(&mut out)
            .map_err(|e| launch_err(e.to_string()))?;
        drop(guard);
        self.phases.charge(
            Phase::VerificationRun,
            verification_started.elapsed().as_secs_f64(),
        );
        let sampling_started = std::time::Instant::now();
        let mut reset = || prepare(&mut buffers.borrow_mut(), &resets.every_sample, &pristine);
        let reset: &mut dyn FnMut() -> Result<(), crate::gpu::GpuError> = &mut reset;
        let per_sample = resets.per_sample().then_some(reset);
        let timing = measure_gpu(
            &self.gpu,
            rules,
            Some(first_ms),
            seq.len(),
            &mut || {
                seq.launch(&self.gpu, &kernels, &buffers.borrow())
                    .map_err(sequence_error)
            },
            per_sample,
        )
        .map_err(|e| launch_err(e.to_string()))?;
        let _ = emit(&Message::Kernel { running: false });
        self.phases
            .charge_samples(&timing, sampling_started.elapsed().as_secs_f64());
        if resets.per_sample() {
            let after = buffers
                .borrow()
                .get(output)
                .ok_or_else(|| launch_err(format!("no buffer `{output}`")))?
                .download()
                .map_err(|e| launch_err(e.to_string()))?;
            self.after_samples = Some(after);
        }
        Ok((out, timing))
    }

    /// What a launch needs of shared memory beyond what this GPU gives a block, if it does.
    fn needs_shared(&self, point: &Point, seq: &Sequence) -> Option<String> {
        let optin = u64::from(self.gpu.info().max_shared_per_block_optin);
        let static_shared = point
            .attributes
            .as_ref()
            .map_or(0, |a| u64::from(a.static_shared_bytes));
        let shared = u64::from(seq.first_config().1) + static_shared;
        crate::limits::needs_bytes(shared, optin, "shared memory per block").filter(|_| optin > 0)
    }

    /// The kernel's registers, memory and occupancy at the sequence's first launch shape.
    fn attributes(&self, kernel: &Kernel, seq: &Sequence) -> Option<Attributes> {
        let (block, shared) = seq.first_config();
        let a = self
            .gpu
            .attributes(kernel, block.iter().product(), shared)
            .ok()?;
        Some(Attributes {
            registers: a.registers,
            static_shared_bytes: a.static_shared_bytes,
            local_bytes: a.local_bytes,
            max_threads_per_block: a.max_threads_per_block,
            occupancy: Some(Occupancy {
                blocks_per_sm: a.occupancy.blocks_per_sm,
                warps_per_sm: a.occupancy.warps_per_sm,
                limiter: a.occupancy.limiter.clone(),
            }),
        })
    }

    /// Device copies of the initial contents of the buffers restored before every run.
    fn pristine(&self, resets: &ResetPlan) -> Result<BTreeMap<String, DeviceBuffer>, Failed> {
        let host = self.host_data(FailureKind::Launch)?;
        resets
            .restored()
            .map(|name| {
                let copy = self.gpu.upload(&host[name]).map_err(|e| {
                    Failed(
                        FailureKind::Launch,
                        format!("buffer {name} (pristine copy): {e}"),
                    )
                })?;
                Ok((name.to_string(), copy))
            })
            .collect()
    }

    /// The point's device buffers: copied from the set's pristine copy when twice the set fits in
    /// half the device's memory, else uploaded; constants are set in `module`.
    fn device_buffers(
        &mut self,
        module: &Module,
    ) -> Result<BTreeMap<String, DeviceBuffer>, Failed> {
        let launch = |name: &str, e: crate::gpu::GpuError| {
            Failed(FailureKind::Launch, format!("buffer {name}: {e}"))
        };
        let host = self
            .host
            .as_ref()
            .ok_or_else(|| Failed(FailureKind::Launch, "no inputs".into()))?;
        let (set, data) = (host.set.clone(), host.data.clone());
        for spec in self.exp.buffers.iter().filter(|b| b.constant) {
            module
                .set_constant(&spec.name, &data[&spec.name].to_ne_bytes())
                .map_err(|e| Failed(FailureKind::Launch, e.to_string()))?;
        }
        let fits = self.device.memory_bytes == 0
            || self.set_bytes(&set).saturating_mul(4) <= self.device.memory_bytes;
        if !fits {
            self.device_inputs = None;
        }
        if fits && self.device_inputs.as_ref().is_none_or(|d| d.set != set) {
            // The previous set's copies are freed before the new ones are allocated.
            self.device_inputs = None;
            let mut pristine = BTreeMap::new();
            for spec in self.exp.buffers.iter().filter(|b| !b.constant) {
                let buf = self
                    .gpu
                    .upload(&data[&spec.name])
                    .map_err(|e| launch(&spec.name, e))?;
                pristine.insert(spec.name.clone(), buf);
            }
            self.device_inputs = Some(DeviceInputs { set, pristine });
        }
        let mut out = BTreeMap::new();
        for spec in self.exp.buffers.iter().filter(|b| !b.constant) {
            let buf = match self.device_inputs.as_ref().filter(|_| fits) {
                Some(d) => {
                    let src = &d.pristine[&spec.name];
                    let mut buf = self
                        .gpu
                        .alloc(src.elem_type(), src.len())
                        .map_err(|e| launch(&spec.name, e))?;
                    buf.copy_from(src).map_err(|e| launch(&spec.name, e))?;
                    buf
                }
                None => self
                    .gpu
                    .upload(&data[&spec.name])
                    .map_err(|e| launch(&spec.name, e))?,
            };
            out.insert(spec.name.clone(), buf);
        }
        Ok(out)
    }

    fn cpu_inputs(
        &self,
        verify: &crate::spec::VerifySpec,
        vars: &HashMap<String, Num>,
    ) -> Result<(Vec<&HostData>, BTreeMap<String, i64>), Failed> {
        let host = self.host_data(FailureKind::Launch)?;
        let inputs = verify
            .inputs
            .iter()
            .map(|b| {
                host.get(b)
                    .ok_or_else(|| Failed(FailureKind::Launch, format!("no buffer `{b}`")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let dims =
            super::expected::dims(verify, vars).map_err(|e| Failed(FailureKind::Launch, e))?;
        Ok((inputs, dims))
    }

    fn run_cpu(
        &mut self,
        name: &str,
        verify: &crate::spec::VerifySpec,
        vars: &HashMap<String, Num>,
        rules: &MeasureRules,
    ) -> Result<(HostData, Timing), Failed> {
        let (inputs, dims) = self.cpu_inputs(verify, vars)?;
        // Runs write into an output faulted in beforehand; the first run is a sample or the warm-up.
        let mut out = self.faulted_output(verify, vars)?;
        let shape = (out.elem_type(), out.len());
        let started = std::time::Instant::now();
        super::cpu_baseline::run_into(name, &inputs, &dims, &mut out)
            .map_err(|e| Failed(FailureKind::Launch, e.to_string()))?;
        let first_ms = started.elapsed().as_secs_f64() * 1e3;
        // A result of another shape was allocated inside that run: then it is only the warm-up.
        let in_place = (out.elem_type(), out.len()) == shape;
        let mut failed = None;
        let timing = measure_host(rules, Some(first_ms), in_place, &mut || {
            if let Err(e) = super::cpu_baseline::run_into(name, &inputs, &dims, &mut out) {
                failed = Some(e.to_string());
            }
        });
        if let Some(e) = failed {
            return Err(Failed(FailureKind::Launch, e));
        }
        Ok((out, timing))
    }

    /// A host buffer of the verified output's type and length, every page written.
    fn faulted_output(
        &self,
        verify: &crate::spec::VerifySpec,
        vars: &HashMap<String, Num>,
    ) -> Result<HostData, Failed> {
        let launch = |e: String| Failed(FailureKind::Launch, e);
        let lens =
            super::resolve::buffer_lens(&self.exp, vars).map_err(|e| launch(e.to_string()))?;
        let len = lens
            .iter()
            .find(|(name, _)| *name == verify.output)
            .map(|(_, len)| *len)
            .ok_or_else(|| launch(format!("no buffer `{}`", verify.output)))?;
        let elem = self
            .exp
            .buffer(&verify.output)
            .ok_or_else(|| launch(format!("no buffer `{}`", verify.output)))?
            .elem;
        generate(elem, len, &crate::host_data::init::Init::Constant(1.0), 0)
            .map_err(|e| launch(e.to_string()))
    }

    fn run_library(
        &mut self,
        name: &str,
        verify: &crate::spec::VerifySpec,
        vars: &HashMap<String, Num>,
        rules: &MeasureRules,
    ) -> Result<(HostData, Timing), Failed> {
        if name != "cublas_sgemm" {
            return Err(Failed(
                FailureKind::Launch,
                format!("unknown library call `{name}`"),
            ));
        }
        let err = |e: crate::gpu::GpuError| Failed(FailureKind::Launch, e.to_string());
        let (inputs, dims) = self.cpu_inputs(verify, vars)?;
        let n = *dims
            .get("n")
            .ok_or_else(|| Failed(FailureKind::Launch, "cublas_sgemm needs dims.n".into()))?
            as usize;
        if inputs.len() != 2 {
            return Err(Failed(
                FailureKind::Launch,
                "cublas_sgemm needs two inputs".into(),
            ));
        }
        let a = self.gpu.upload(inputs[0]).map_err(err)?;
        let b = self.gpu.upload(inputs[1]).map_err(err)?;
        let mut c = self
            .gpu
            .alloc(crate::value::ElemType::F32, n * n)
            .map_err(err)?;
        let blas = self.gpu.blas().map_err(err)?;
        c.poison().map_err(err)?;
        blas.sgemm(n, &a, &b, &mut c).map_err(err)?;
        self.gpu.synchronize().map_err(err)?;
        let out = c.download().map_err(err)?;
        let sampling_started = std::time::Instant::now();
        let timing = measure_gpu(
            &self.gpu,
            rules,
            None,
            1,
            &mut || blas.sgemm(n, &a, &b, &mut c),
            None,
        )
        .map_err(err)?;
        self.phases
            .charge_samples(&timing, sampling_started.elapsed().as_secs_f64());
        Ok((out, timing))
    }
}

/// The kernels `seq` launches, loaded from `module` in [`Sequence::kernels`]'s order.
fn functions(module: &Module, seq: &Sequence) -> Result<Vec<Kernel>, Failed> {
    (seq.kernels().iter())
        .map(|f| {
            module
                .function(f)
                .map_err(|e| Failed(FailureKind::Compile, e.to_string()))
        })
        .collect()
}

/// A sequence error as the GPU error the measurement loop speaks.
fn sequence_error(e: super::sequence::SequenceError) -> crate::gpu::GpuError {
    match e {
        super::sequence::SequenceError::Gpu(g) => g,
        other => crate::gpu::GpuError::InvalidConfig(other.to_string()),
    }
}

/// Applies one buffer preparation list (see [`ResetPlan`]), stream-ordered before the next launch.
fn prepare(
    buffers: &mut BTreeMap<String, DeviceBuffer>,
    steps: &[(String, Prepare)],
    pristine: &BTreeMap<String, DeviceBuffer>,
) -> Result<(), crate::gpu::GpuError> {
    for (name, step) in steps {
        let Some(b) = buffers.get_mut(name) else {
            continue;
        };
        match step {
            Prepare::Poison => b.poison()?,
            Prepare::Zero => b.zero()?,
            Prepare::Restore => {
                let src = pristine.get(name).ok_or_else(|| {
                    crate::gpu::GpuError::BufferMismatch(format!("no pristine copy of `{name}`"))
                })?;
                b.copy_from(src)?;
            }
        }
    }
    Ok(())
}
