//! Integration tests of the `gpu` layer on a real NVIDIA GPU (all `#[ignore]`d: run them on the device with
//! `cargo test --test gpu layer -- --ignored --test-threads=1`, as scripts/gpu-suite.sh does).

use mdbook_gpulab::engine::reference;
use mdbook_gpulab::gpu::{self, CompileError, Gpu, GpuError, KernelArg, Module};
use mdbook_gpulab::host_data::init::{Init, generate};
use mdbook_gpulab::host_data::{ElemType, HostData};

const SOURCE: &str = r#"
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void spin(long long cycles, int* out) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
    if (threadIdx.x == 0) out[0] = 1;
}

extern "C" __global__ void tiled(float* out) {
    __shared__ float tile[1024];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

extern "C" __global__ void dynamic_shared(float* out, int n) {
    extern __shared__ float buf[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = buf[n - 1];
}

// 40 KiB static + dynamic shared memory: more than 48 KiB in all only with an opt-in.
extern "C" __global__ void static_and_dynamic(float* out, int n) {
    __shared__ float fixed[10240];
    extern __shared__ float buf[];
    for (int i = threadIdx.x; i < 10240; i += blockDim.x) fixed[i] = 1.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = buf[n - 1] + fixed[10239];
}

__constant__ float coef[4];

extern "C" __global__ void read_coef(float* out) {
    out[threadIdx.x] = coef[threadIdx.x];
}

extern "C" __global__ void write_far(int* p) {
    p[(1ll << 40) + threadIdx.x] = 1;
}
"#;

fn open() -> (Gpu, Module) {
    let gpu = Gpu::open(0).unwrap_or_else(|e| panic!("opening GPU 0: {e}"));
    let image = gpu::compile(
        SOURCE,
        "tests/gpu_layer.cu",
        &[],
        gpu.info().compute_capability,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let module = gpu.load(&image).unwrap_or_else(|e| panic!("{e}"));
    (gpu, module)
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn lists_devices_with_sane_numbers() {
    let devices = gpu::devices().expect("devices()");
    assert!(!devices.is_empty());
    for d in &devices {
        eprintln!("{}", serde_json::to_string_pretty(d).unwrap());
        assert!(!d.slug.is_empty() && d.slug == gpu::slug(&d.name));
        assert!(d.sm_count > 0 && d.l2_bytes > 0 && d.memory_bytes > 0);
        assert!(d.clock_mhz > 0, "SM clock unknown");
        assert!(d.fp32_peak_gflops > 0.0);
        assert_eq!(d.max_threads_per_block, 1024);
        assert!(d.cuda_version.contains('.'));
        assert!(d.nvrtc_version.contains('.'), "nvrtc {}", d.nvrtc_version);
        if d.name.contains("H100") {
            assert_eq!(d.compute_capability, (9, 0));
            assert_eq!(d.sm_count, 132);
            let bw = d
                .theoretical_bandwidth_gbps
                .expect("H100 memory clock unknown");
            assert!(bw > 2000.0, "bandwidth {bw}");
            assert!(d.fp32_peak_gflops > 50_000.0);
            assert_eq!(d.max_shared_per_block_optin, 227 * 1024);
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn compiles_launches_and_verifies_vector_add() {
    let (gpu, module) = open();
    let kernel = module.function("vector_add").unwrap();
    let n = 1_000_003usize;
    let a = generate(ElemType::F32, n, &Init::Random { lo: -1.0, hi: 1.0 }, 1).unwrap();
    let b = generate(ElemType::F32, n, &Init::Random { lo: -1.0, hi: 1.0 }, 2).unwrap();
    let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let mut dc = gpu.alloc(ElemType::F32, n).unwrap();
    dc.poison().unwrap();
    let grid = [(n as u32).div_ceil(256), 1, 1];
    let args = [
        KernelArg::Buffer(&da),
        KernelArg::Buffer(&db),
        KernelArg::Buffer(&dc),
        KernelArg::I32(n as i32),
    ];
    gpu.launch(&kernel, grid, [256, 1, 1], 0, &args).unwrap();
    let c = dc.download().unwrap();
    let (HostData::F32(av), HostData::F32(bv)) = (&a, &b) else {
        unreachable!()
    };
    let want = HostData::F32(av.iter().zip(bv).map(|(x, y)| x + y).collect());
    let cmp = reference::compare(&c, &want, 0.0);
    assert!(cmp.ok, "{}", cmp.message);
    // Poison is visible when the kernel does not run.
    dc.poison().unwrap();
    let HostData::F32(p) = dc.download().unwrap() else {
        unreachable!()
    };
    assert!(p.iter().all(|x| x.is_nan()));
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn event_timing_is_positive_and_sane() {
    let (gpu, module) = open();
    let spin = module.function("spin").unwrap();
    let out = gpu.alloc(ElemType::I32, 1).unwrap();
    let timer = gpu.timer().unwrap();
    // ~1 ms at ≤ 2 GHz.
    let cycles = 2_000_000i64;
    gpu.launch(
        &spin,
        [1, 1, 1],
        [32, 1, 1],
        0,
        &[KernelArg::I64(cycles), KernelArg::Buffer(&out)],
    )
    .unwrap();
    timer.start().unwrap();
    gpu.launch(
        &spin,
        [1, 1, 1],
        [32, 1, 1],
        0,
        &[KernelArg::I64(cycles), KernelArg::Buffer(&out)],
    )
    .unwrap();
    timer.stop().unwrap();
    let ms = timer.elapsed_ms().unwrap();
    let expected = cycles as f64 / (gpu.info().clock_mhz as f64 * 1e3);
    eprintln!("spin of {cycles} cycles: {ms:.4} ms (≥ {expected:.4} ms at the max clock)");
    assert!(ms > 0.5 * expected && ms < 100.0, "{ms} ms");
    // An empty interval is tiny but not negative.
    timer.start().unwrap();
    timer.stop().unwrap();
    let empty = timer.elapsed_ms().unwrap();
    assert!((0.0..0.5).contains(&empty), "{empty}");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn l2_flush_runs_and_takes_time() {
    let gpu = Gpu::open(0).unwrap();
    let timer = gpu.timer().unwrap();
    gpu.flush_l2().unwrap();
    timer.start().unwrap();
    gpu.flush_l2().unwrap();
    timer.stop().unwrap();
    let ms = timer.elapsed_ms().unwrap();
    let bytes = 2.0 * gpu.info().l2_bytes as f64;
    eprintln!(
        "L2 flush of {bytes} bytes: {ms:.4} ms ({:.0} GB/s)",
        bytes / ms / 1e6
    );
    assert!(ms > 0.0);
    gpu.synchronize().unwrap();
    if let Some(clock) = gpu.current_sm_clock_mhz() {
        eprintln!("current SM clock {clock} MHz");
        assert!(clock > 0);
    } else {
        eprintln!("nvidia-smi unavailable: no live clock");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn attributes_and_occupancy_of_known_kernels() {
    let (gpu, module) = open();
    let tiled = module.function("tiled").unwrap();
    let a = gpu.attributes(&tiled, 256, 0).unwrap();
    eprintln!("tiled: {a:?}");
    assert_eq!(a.static_shared_bytes, 4096);
    assert!(a.registers > 0 && a.registers < 64);
    assert_eq!(a.local_bytes, 0);
    assert_eq!(a.max_threads_per_block, 1024);
    let o = &a.occupancy;
    assert!(o.blocks_per_sm >= 1 && o.blocks_per_sm <= 8, "{o:?}");
    assert_eq!(o.warps_per_sm, o.blocks_per_sm * 8);
    assert_eq!(o.max_warps_per_sm, gpu.info().max_threads_per_sm / 32);
    assert_eq!(o.limiter, "threads");
    // Our estimate agrees with the driver's count.
    let est = gpu::estimate_occupancy(
        &gpu::SmLimits::from_info(gpu.info()),
        256,
        a.registers,
        4096,
    );
    assert_eq!(est.blocks_per_sm, o.blocks_per_sm, "{est:?}");

    // 100 KiB of dynamic shared memory: at most 2 blocks, limited by shared memory.
    let dynamic = module.function("dynamic_shared").unwrap();
    let a = gpu.attributes(&dynamic, 128, 100 * 1024).unwrap();
    eprintln!("dynamic_shared(100 KiB): {a:?}");
    assert!(a.occupancy.blocks_per_sm <= 2 && a.occupancy.blocks_per_sm >= 1);
    assert_eq!(a.occupancy.limiter, "shared memory");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn dynamic_shared_memory_above_48k_launches() {
    let (gpu, module) = open();
    let k = module.function("dynamic_shared").unwrap();
    let out = gpu.alloc(ElemType::F32, 1).unwrap();
    let n = 100 * 1024 / 4;
    gpu.launch(
        &k,
        [1, 1, 1],
        [256, 1, 1],
        100 * 1024,
        &[KernelArg::Buffer(&out), KernelArg::I32(n)],
    )
    .unwrap();
    assert_eq!(out.download().unwrap(), HostData::F32(vec![(n - 1) as f32]));
    let too_much = gpu.info().max_shared_per_block_optin + 1;
    let err = gpu.launch(
        &k,
        [1, 1, 1],
        [256, 1, 1],
        too_much,
        &[KernelArg::Buffer(&out), KernelArg::I32(1)],
    );
    assert!(matches!(err, Err(GpuError::InvalidConfig(_))), "{err:?}");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn too_many_threads_per_block_is_an_error() {
    let (gpu, module) = open();
    let k = module.function("tiled").unwrap();
    let out = gpu.alloc(ElemType::F32, 4096).unwrap();
    // 64×32 = 2048 threads: only the driver knows the product limit.
    let err = gpu
        .launch(&k, [1, 1, 1], [64, 32, 1], 0, &[KernelArg::Buffer(&out)])
        .unwrap_err();
    eprintln!("{err}");
    assert!(matches!(err, GpuError::Launch { .. }), "{err:?}");
    assert!(!err.is_fatal());
    assert!(err.to_string().contains("1024"), "{err}");
    // The context is still usable.
    gpu.launch(&k, [4, 1, 1], [1024, 1, 1], 0, &[KernelArg::Buffer(&out)])
        .unwrap();
    gpu.synchronize().unwrap();
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn kernel_lookup_errors_list_kernels() {
    let (_gpu, module) = open();
    let err = module.function("vector_ad").unwrap_err();
    eprintln!("{err}");
    let GpuError::KernelNotFound { available, .. } = &err else {
        panic!("{err:?}")
    };
    if !available.is_empty() {
        assert!(available.iter().any(|n| n == "vector_add"), "{available:?}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn constant_memory_round_trip() {
    let (gpu, module) = open();
    let values = HostData::F32(vec![1.5, -2.0, 3.25, 4.0]);
    module.set_constant("coef", &values.to_ne_bytes()).unwrap();
    let k = module.function("read_coef").unwrap();
    let out = gpu.alloc(ElemType::F32, 4).unwrap();
    gpu.launch(&k, [1, 1, 1], [4, 1, 1], 0, &[KernelArg::Buffer(&out)])
        .unwrap();
    assert_eq!(out.download().unwrap(), values);
    assert!(matches!(
        module.set_constant("coef", &[0u8; 20]),
        Err(GpuError::SymbolSize { .. })
    ));
    assert!(matches!(
        module.set_constant("nope", &[0u8; 4]),
        Err(GpuError::SymbolNotFound { .. })
    ));
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn cublas_sgemm_matches_the_reference() {
    let gpu = Gpu::open(0).unwrap();
    let blas = match gpu.blas() {
        Ok(b) => b,
        Err(e @ GpuError::LibraryMissing { .. }) => panic!("{e}"),
        Err(e) => panic!("cuBLAS: {e}"),
    };
    let n = 256;
    let a = generate(ElemType::F32, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 3).unwrap();
    let b = generate(ElemType::F32, n * n, &Init::Random { lo: -1.0, hi: 1.0 }, 4).unwrap();
    let (da, db) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let mut dc = gpu.alloc(ElemType::F32, n * n).unwrap();
    dc.poison().unwrap();
    blas.sgemm(n, &da, &db, &mut dc).unwrap();
    let want = reference::matmul(&a, &b, n).unwrap();
    // Plain FP32, pinned: passes the tolerance derived for FP32 accumulation (which rejects TF32).
    assert_eq!(blas.math_mode().unwrap(), 0, "CUBLAS_DEFAULT_MATH");
    let tol = mdbook_gpulab::engine::tolerance::effective(
        Some("matmul"),
        &[&a, &b],
        &std::collections::BTreeMap::from([("n".to_string(), n as i64)]),
        &want,
        1e-3,
    );
    let cmp = reference::compare_within(&dc.download().unwrap(), &want, &|i, r| tol.at(i, r));
    eprintln!("cuBLAS: {} ({})", cmp.message, tol.rule);
    assert!(cmp.ok, "{}", cmp.message);
    // Well inside: a TF32 result would sit several times above its bound.
    assert!(cmp.worst.unwrap().ratio < 0.5, "{:?}", cmp.worst);
    // Not the transpose: A·B ≠ B·A for random matrices.
    let swapped = reference::matmul(&b, &a, n).unwrap();
    assert!(!reference::compare(&dc.download().unwrap(), &swapped, 1e-4).ok);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn compile_errors_name_the_file_and_line() {
    let gpu = Gpu::open(0).unwrap();
    let err = gpu::compile(
        "extern \"C\" __global__ void k() {\n  undefined_thing;\n}\n",
        "kernels/x/k.cu",
        &[],
        gpu.info().compute_capability,
    )
    .unwrap_err();
    let CompileError::Failed { diagnostics, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(diagnostics[0].line, 2);
    assert_eq!(diagnostics[0].file, "kernels/x/k.cu");
}

/// The illegal-address fault poisons the process's primary context, so it runs in a child process.
#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn out_of_bounds_write_is_a_fatal_launch_error_not_a_panic() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--ignored",
            "--exact",
            "layer::oob_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("GPULAB_OOB_CHILD", "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "child failed");
    assert!(text.contains("OOB-CHILD-OK"), "child did not finish");
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn oob_child() {
    if std::env::var_os("GPULAB_OOB_CHILD").is_none() {
        return; // only meaningful as the child of the test above
    }
    let (gpu, module) = open();
    let k = module.function("write_far").unwrap();
    let out = gpu.alloc(ElemType::I32, 1).unwrap();
    // The launch itself is accepted; the fault arrives asynchronously.
    gpu.launch(&k, [1, 1, 1], [32, 1, 1], 0, &[KernelArg::Buffer(&out)])
        .unwrap();
    let err = gpu.synchronize().unwrap_err();
    println!("fault: {err}");
    assert!(matches!(err, GpuError::Launch { .. }), "{err:?}");
    assert!(err.is_fatal());
    assert!(err.to_string().contains("ILLEGAL_ADDRESS"), "{err}");
    assert!(gpu.is_poisoned());
    // Later calls are refused without touching the driver.
    let again = out.download().unwrap_err();
    assert!(matches!(again, GpuError::ContextLost { .. }), "{again:?}");
    assert!(again.is_fatal());
    println!("OOB-CHILD-OK");
}

/// Times `launches` back-to-back launches of a tiny kernel, behind the blocking kernel or not.
fn time_tiny_launches(gpu: &Gpu, module: &Module, launches: usize, blocked: bool) -> (f64, bool) {
    let add = module.function("vector_add").unwrap();
    let a = gpu.alloc(ElemType::F32, 32).unwrap();
    let c = gpu.alloc(ElemType::F32, 32).unwrap();
    let timer = gpu.timer().unwrap();
    let blocker = gpu.blocker().unwrap();
    gpu.synchronize().unwrap();
    if blocked {
        blocker.block(gpu).unwrap();
    }
    timer.start().unwrap();
    for _ in 0..launches {
        let args = [
            KernelArg::Buffer(&a),
            KernelArg::Buffer(&a),
            KernelArg::Buffer(&c),
            KernelArg::I32(32),
        ];
        gpu.launch(&add, [1, 1, 1], [32, 1, 1], 0, &args).unwrap();
    }
    timer.stop().unwrap();
    if blocked {
        blocker.release();
    }
    let ms = timer.elapsed_ms().unwrap();
    (ms, blocked && blocker.timed_out())
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn blocking_kernel_keeps_host_launch_overhead_out_of_a_sample() {
    let (gpu, module) = open();
    let launches = gpu::MAX_QUEUED_LAUNCHES;
    // Best of 5 each way (the first includes module loading).
    let best = |blocked| {
        (0..5)
            .map(|_| time_tiny_launches(&gpu, &module, launches, blocked))
            .inspect(|(_, timed_out)| assert!(!timed_out, "{launches} launches fit the queue"))
            .map(|(ms, _)| ms)
            .fold(f64::INFINITY, f64::min)
    };
    let free = best(false);
    let blocked = best(true);
    eprintln!(
        "{launches} tiny launches: {:.2} µs each unblocked, {:.2} µs each behind the blocking kernel",
        free * 1e3 / launches as f64,
        blocked * 1e3 / launches as f64
    );
    assert!(
        blocked <= free * 1.05,
        "blocked {blocked} ms vs unblocked {free} ms"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn blocking_kernel_gives_up_when_the_launch_queue_fills() {
    let (gpu, module) = open();
    // Far more launches than the driver queues: queuing blocks on the host until the kernel times out
    // (1 s); the sample is then flagged, not hung.
    let started = std::time::Instant::now();
    let (ms, timed_out) = time_tiny_launches(&gpu, &module, 20_000, true);
    eprintln!(
        "20000 launches behind the blocking kernel: {ms:.1} ms, timed out: {timed_out}, wall {:?}",
        started.elapsed()
    );
    assert!(timed_out, "the queue should have filled");
    assert!(started.elapsed().as_secs_f64() < 10.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn nvml_reads_the_sm_and_memory_clocks() {
    let gpu = Gpu::open(0).unwrap();
    let c = gpu.clocks().expect("NVML should load on the GPU machine");
    let info = gpu.info();
    eprintln!("clocks: {c:?} (device max SM {} MHz)", info.clock_mhz);
    assert!(c.sm_mhz > 0 && c.sm_mhz as f64 <= info.clock_mhz as f64 * 1.1);
    assert!(c.memory_mhz.is_some_and(|m| m > 0));
}

/// 40 KiB of static shared memory plus 16 KiB of dynamic: the dynamic part alone is under 48 KiB,
/// but the sum is not, so the launch must opt in (`check` and the docs promise the engine does).
#[test]
#[ignore = "needs an NVIDIA GPU: run scripts/gpu-suite.sh on the device"]
fn static_plus_dynamic_shared_memory_above_48k_opts_in() {
    let (gpu, module) = open();
    let k = module.function("static_and_dynamic").unwrap();
    let out = gpu.alloc(ElemType::F32, 1).unwrap();
    let n = 16 * 1024 / 4;
    gpu.launch(
        &k,
        [1, 1, 1],
        [256, 1, 1],
        16 * 1024,
        &[KernelArg::Buffer(&out), KernelArg::I32(n)],
    )
    .unwrap_or_else(|e| panic!("40 KiB static + 16 KiB dynamic: {e}"));
    assert_eq!(
        out.download().unwrap(),
        HostData::F32(vec![(n - 1) as f32 + 1.0])
    );
}
