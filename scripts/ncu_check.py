#!/usr/bin/env python3
"""Independent check of the recorded timings with Nsight Compute.

Times the points of POINTS with `ncu --metrics gpu__time_duration.sum` and stores ncu's median beside
the engine's: as recorded in data/<slug>/<experiment>.json, and as the engine measures it in this call
(`mdbook-gpulab record` in a scratch copy of the book; data/ is not touched). The book computes the
verdicts (results/ncu_check.rs; `mdbook-gpulab ncu-verdicts FILE` prints them). Launches and machine
code come from `mdbook-gpulab launch-info --points … --image`; profiler settings match the engine's
(--clock-control none; --cache-control all for single-launch cold points, none otherwise, this script
flushing L2 once per run). An experiment not recorded on a device is skipped there, with a note.

Usage:
  python3 scripts/ncu_check.py --dry-run [--slug SLUG] [--json PLANS] [--scratch DIR]
      CPU only: plans every point and checks it is recorded; --scratch also prepares the same-call copy
  python3 scripts/ncu_check.py [--slug SLUG] [--no-same-run]
      on the GPU: writes data/<slug>/checks/ncu.json and ncu.log
"""
import argparse, csv, datetime, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = 7
WARMUP = 1
TARGETS = {"long": 0.02, "short": 0.05, "short_below_us": 10.0}
METRIC = "gpu__time_duration.sum"
# At most this many launches per sample: a host loop of hundreds of launches is not a kernel timing.
MAX_LAUNCHES = 8
# Runs of the engine's own launches profiled for a point outside its target (engine_launches).
ENGINE_LAUNCHES = 12

# (experiment, variant, the recorded point's parameters): short (< 10 us) and long kernels of every experiment.
POINTS = [
    ("aat_lab3", "nopad", {"BS": 16, "N": 1024}),
    ("aat_lab3", "pad", {"BS": 32, "N": 1024}),
    ("bank_conflicts", "lds", {"BLOCK": 256, "BLOCKS": 1056, "ITERS": 4096, "S": 3}),
    ("bank_conflicts", "lds", {"BLOCK": 256, "BLOCKS": 1056, "ITERS": 4096, "S": 64}),
    ("coalescing", "copy_bulk", {"N": 2048, "OFFSET": 0, "STRIDE": 1}),
    ("coalescing", "offset", {"N": 2048, "OFFSET": 25, "STRIDE": 1}),
    ("coalescing", "copy", {"N": 16384, "OFFSET": 0, "STRIDE": 1}),
    ("constant_coef", "coef_const", {"N": 4194304}),
    ("constant_coef", "coef_ldg", {"N": 67108864}),
    ("constant_table", "table", {"N": 1048576}),
    ("constant_table", "table_xin", {"N": 67108864}),
    ("lab3_col_mean", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("lab3_col_mean", "shared", {"ALIGN": 1, "SIZE": 10001}),
    ("lab3_dot", "shfl", {"N": 1000}),
    ("lab3_dot", "shared", {"N": 67108864}),
    ("lab3_row_max", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("lab3_row_mean", "global", {"ALIGN": 32, "SIZE": 10001}),
    ("lab3_row_min", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("lab3_row_sum", "shared", {"ALIGN": 32, "SIZE": 10001}),
    ("lab3_row_sumsq", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("latency", "shared", {"LEN": 67108864, "SLEN": 8192, "HOP": 8209, "STEPS": 65539}),
    ("latency", "global", {"LEN": 67108864, "SLEN": 8192, "HOP": 8209, "STEPS": 65539}),
    ("local_memory", "direct", {"ARR": 4, "TOTAL": 4194304}),
    ("local_memory", "direct", {"ARR": 128, "TOTAL": 67108864}),
    ("matmul_lab3", "shared", {"BS": 16, "N": 1024}),
    ("matmul_lab3", "naive", {"BS": 16, "N": 2048}),
    ("matmul_szczepanski", "v4", {"BS": 16, "N": 64}),
    ("matmul_szczepanski", "v4", {"BS": 8, "N": 352}),
    ("matmul_widuch", "shared_2d_mm", {"M": 16, "N": 160}),
    ("matmul_widuch", "global_2d_mm", {"M": 16, "N": 2400}),
    ("reduction", "best", {"B": 128, "N": 4194304}),
    ("reduction", "reduce1", {"B": 128, "N": 268435456}),
    ("sgemm", "warptile", {"BK": 16, "N": 1024}),
    ("sgemm", "naive", {"BK": 16, "N": 2048}),
    ("transpose_conrad", "copy", {"N": 256, "ROWPAD": 0, "TILE": 16}),
    ("transpose_conrad", "shared", {"N": 2816, "ROWPAD": 0, "TILE": 16}),
    ("transpose_conrad", "naive", {"N": 16384, "ROWPAD": 0, "TILE": 16}),
    ("transpose_kb", "shared_pad", {"BX": 4, "BY": 128, "N": 1024, "TILE": 16}),
    ("transpose_kb", "naive", {"BX": 32, "BY": 1, "N": 8192, "TILE": 16}),
    ("transpose_lab3", "transpose1", {"BS": 16, "N": 1024}),
    ("transpose_lab3", "transpose1", {"BS": 16, "N": 8192}),
]


def binary():
    local = os.path.join(ROOT, "target", "release", "mdbook-gpulab")
    found = os.environ.get("GPULAB_BIN") or shutil.which("mdbook-gpulab") or (os.path.exists(local) and local)
    if not found:
        raise SystemExit("no mdbook-gpulab binary ($GPULAB_BIN, PATH or target/release)")
    return found


def tool_json(args, stdin=None):
    """`mdbook-gpulab ARGS`, its JSON output."""
    out = subprocess.run([binary()] + args, input=stdin, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"mdbook-gpulab {args[0]} failed (status {out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout)


def label(exp, variant, params):
    return f"{exp}/{variant} {params}"


def engine_time(t):
    """What the engine measured of a point (its timing), as the check stores it for the book's verdict."""
    return {"engine_raw_ms": t["median_ms"], "min_ms": t.get("min_ms"),
            "runs_per_sample": t.get("runs_per_sample", 1), "empty_kernel_ms": t.get("empty_kernel_ms")}


def plan_all(slug, images=None):
    """Every point of POINTS recorded on `slug`, with its launches from the engine's planner (and its
    machine code written under `images`): (plans, problems, notes)."""
    plans, problems, notes, recordings = [], [], [], {}
    for exp, variant, params in POINTS:
        if exp not in recordings:
            path = os.path.join(ROOT, "data", slug, f"{exp}.json")
            recordings[exp] = json.load(open(path)) if os.path.exists(path) else None
        rec = recordings[exp]
        if rec is None:
            notes.append(f"{label(exp, variant, params)}: skipped, {exp} is not recorded on {slug}")
            continue
        p = next((q for q in rec["points"] if q["variant"] == variant and q["params"] == params), None)
        t = (p or {}).get("timing") or {}
        if p is None:
            problems.append(f"{label(exp, variant, params)}: not in data/{slug}/{exp}.json "
                            "(was the directive's sweep changed?)")
        elif p.get("outcome") != "ok" or "median_ms" not in t:
            problems.append(f"{label(exp, variant, params)}: recorded as {p.get('outcome')} without a timing")
        elif t.get("mode") not in ("cold", "hot"):
            problems.append(f"{label(exp, variant, params)}: recorded in {t.get('mode')} mode, not on the GPU")
        else:
            plans.append({"experiment": exp, "variant": variant, "params": params, "mode": t["mode"],
                          "recorded": engine_time(t), "engine_samples": t.get("samples"),
                          "engine_noise": t.get("noise"), "recorded_at": p.get("recorded_at"),
                          "recorded_commit": p.get("commit")})
    requests = [{"experiment": p["experiment"], "variant": p["variant"], "params": p["params"]}
                for p in plans]
    for i, r in enumerate(requests if images else []):
        r["image"] = os.path.join(images, f"point{i}.img")
    infos = tool_json(["launch-info", "--points", "-", "--device", slug, "--dir", ROOT],
                      json.dumps(requests)) if plans else []
    planned = []
    for p, info in zip(plans, infos):
        what = label(p["experiment"], p["variant"], p["params"])
        if "error" in info:
            problems.append(f"{what}: cannot plan: {info['error']}")
        elif len(info["launches"]) > MAX_LAUNCHES:
            problems.append(f"{what}: {len(info['launches'])} launches per sample (a host loop): "
                            "not a kernel timing")
        elif len({l["function"] for l in info["launches"]}) > 1:
            problems.append(f"{what}: a sequence of several kernels: this check times one kernel's launches")
        else:
            p.update({k: info[k] for k in ("options", "buffers", "launches")})
            p["function"] = info["launches"][0]["function"]
            p["image"] = info.get("image")
            planned.append(p)
    return planned, problems, notes


# What of the book `mdbook-gpulab record` reads (the compile cache is left behind: it compiles afresh).
BOOK_PARTS = ("book.toml", "book", "kernels", "data")


def point_matches(q, plan):
    return q["variant"] == plan["variant"] and q["params"] == plan["params"]


def copy_book(scratch):
    """A copy of the book in `scratch` (what `record` reads of it)."""
    os.makedirs(scratch, exist_ok=True)
    for part in BOOK_PARTS:
        src, dst = os.path.join(ROOT, part), os.path.join(scratch, part)
        if os.path.isdir(src):
            shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)


def prepare_scratch(slug, plans, scratch):
    """Removes the checked points from the recordings of `slug` in the book copy at `scratch`
    (copy_book), so that `mdbook-gpulab record` there runs exactly those (and nothing else while the
    book is current). The book's own data/ is not touched. Returns {experiment: points removed}."""
    removed = {}
    for exp in sorted({p["experiment"] for p in plans}):
        mine = [p for p in plans if p["experiment"] == exp]
        path = os.path.join(scratch, "data", slug, f"{exp}.json")
        rec = json.load(open(path))
        kept = [q for q in rec["points"] if not any(point_matches(q, p) for p in mine)]
        removed[exp] = len(rec["points"]) - len(kept)
        rec["points"] = kept
        with open(path, "w") as f:
            json.dump(rec, f, indent=1)
            f.write("\n")
    return removed


def same_run(slug, plans, scratch, commit):
    """Times every checked point with the engine on this GPU, now: `mdbook-gpulab record` in a scratch
    copy of the book without those points. Sets plan["same_run"] (the new point's timing, or its
    failure) and returns what the run did, for the report."""
    copy_book(scratch)
    removed = prepare_scratch(slug, plans, scratch)
    env = dict(os.environ, **({"GPULAB_COMMIT": commit} if commit else {}))
    start = time.time()
    cmd = [binary(), "record", scratch, "--experiment", ",".join(sorted(removed))]
    print("$ " + " ".join(cmd), flush=True)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        raise SystemExit(f"the engine's run failed (status {out.returncode})")
    ran = sum(int(m) for m in re.findall(r"^recorded (\d+) point\(s\) of ", out.stderr, re.M))
    for p in plans:
        path = os.path.join(scratch, "data", slug, f"{p['experiment']}.json")
        rec = json.load(open(path)) if os.path.exists(path) else {"points": []}
        q = next((q for q in rec["points"] if point_matches(q, p)), None)
        if q is None:
            raise SystemExit(f"the engine's run did not record {label(p['experiment'], p['variant'], p['params'])} "
                             f"in data/{slug}/ (is this GPU {slug}?)")
        t = q.get("timing") or {}
        if q.get("outcome") != "ok" or "median_ms" not in t:
            p["same_run"] = {"outcome": q.get("outcome"), "failure": q.get("failure")}
            continue
        p["same_run"] = {"outcome": "ok", **engine_time(t), "samples": t.get("samples"), "noise": t.get("noise"),
                         "mode": t.get("mode"), "recorded_at": q.get("recorded_at"), "commit": q.get("commit")}
    return {"command": "mdbook-gpulab record <scratch copy> --experiment " + ",".join(sorted(removed)),
            "points_removed": sum(removed.values()), "points_recorded": ran,
            "seconds": round(time.time() - start, 1)}


def slugs():
    data = os.path.join(ROOT, "data")
    return sorted(d for d in os.listdir(data) if d != "papers" and os.path.isdir(os.path.join(data, d)))


def describe(plan):
    l0, bufs = plan["launches"][0], ", ".join(f"{b['name']}[{b['len']}] {b['type']}" for b in plan["buffers"])
    args = ", ".join(f"{k} {v}" if k != "buffer" else str(v) for a in l0["args"] for k, v in a.items())
    return (f"{label(plan['experiment'], plan['variant'], plan['params'])} [{plan['mode']}, engine "
            f"{plan['recorded']['engine_raw_ms']:.4f} ms]\n    {plan['function']}<<<{l0['grid']}, {l0['block']}, "
            f"{l0['shared']}>>>({args}) x{len(plan['launches'])} {' '.join(plan['options'])}; {bufs}")


def dry_run(selected, json_path=None, scratch=None):
    failed = False
    dumped = {}
    if scratch:
        copy_book(scratch)
    for slug in selected:
        plans, problems, notes = plan_all(slug)
        dumped[slug] = plans
        print(f"== {slug}: {len(plans)} of {len(POINTS)} points planned")
        for p in plans:
            print(describe(p))
        for n in notes:
            print(f"  note: {n}")
        for p in problems:
            print(f"  PROBLEM: {p}")
        short = sum(1 for p in plans if p["recorded"]["engine_raw_ms"] * 1000 < TARGETS["short_below_us"])
        print(f"   {len(plans)} points, {short} below {TARGETS['short_below_us']:g} us, "
              f"{len({p['experiment'] for p in plans})} experiments")
        failed |= bool(problems)
        if scratch:
            removed = prepare_scratch(slug, plans, scratch)
            print(f"   scratch copy for the engine's same-call run: {scratch} "
                  f"({sum(removed.values())} point(s) removed from {len(removed)} recording(s) of {slug})")
    kernels = os.path.join(ROOT, "kernels")
    specs = {d for d in os.listdir(kernels) if os.path.exists(os.path.join(kernels, d, "experiment.toml"))}
    for exp in sorted(specs - {e for e, _, _ in POINTS}):
        # A note, never a failure: a new experiment lands without anyone editing this script.
        if any(os.path.exists(os.path.join(ROOT, "data", s, f"{exp}.json")) for s in slugs()):
            print(f"note: {exp} is recorded but not Nsight-checked (add a point to POINTS to check it)")
        else:
            print(f"note: {exp} has no checked point; skipped until it is recorded")
    if len(POINTS) < 30:
        print(f"PROBLEM: only {len(POINTS)} points (at least 30)")
        failed = True
    if json_path:
        with open(json_path, "w") as f:
            json.dump(dumped, f, indent=1)
    print("DRY RUN: " + ("problems found" if failed else "every point plans and is recorded"))
    return 1 if failed else 0


class L2Flush:
    """The engine's L2 flush before a cold sample (gpu::l2_clean): a memset of twice the L2 size, then
    `discard.global.L2` over it (sm_80+), once per run of a multi-launch cold point's sequence."""

    def __init__(self):
        import cupy as cp
        self.cp = cp
        props = cp.cuda.runtime.getDeviceProperties(0)
        self.buf = cp.empty(2 * props["l2CacheSize"], dtype=cp.uint8)
        self.discard = None
        self.runs = 0
        if int(props["major"]) >= 8:
            self.discard = cp.RawKernel(r'''extern "C" __global__ void gpulab_ncu_check_discard(char* p, unsigned long long n) {
                unsigned long long i = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * 128ull;
                if (i < n) asm volatile("discard.global.L2 [%0], 128;" :: "l"(p + i) : "memory");
            }''', "gpulab_ncu_check_discard")

    def run(self):
        n = self.buf.nbytes
        # A different byte each time, as the engine's flush (no write can be skipped as unchanged).
        self.runs += 1
        self.buf.data.memset_async(1 + self.runs % 255, n)
        if self.discard is not None:
            lines = n // 128
            self.discard(((lines + 255) // 256,), (256,), (self.buf, self.cp.uint64(n)))


# The spec's element and scalar types (launch-info's names) as NumPy/CuPy dtype names.
DTYPES = {"i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32", "u32": "uint32",
          "i64": "int64", "u64": "uint64", "f16": "float16", "f32": "float32", "f64": "float64"}


def buffer_data(cp, rng, b):
    """A buffer's contents from its spec's init (launch-info: "zero", "iota", {"constant": x},
    {"random": {"lo", "hi"}}), generated here."""
    dt, n, init = cp.dtype(DTYPES[b["type"]]), max(int(b["len"]), 1), b["init"]
    if isinstance(init, dict) and "random" in init:
        lo, hi = init["random"]["lo"], init["random"]["hi"]
        if dt.kind in "iu":
            return rng.integers(int(lo), int(hi) + 1, size=n, dtype=cp.int64).astype(dt)
        return (lo + (hi - lo) * rng.random(n, dtype=cp.float64)).astype(dt)
    if isinstance(init, dict) and "constant" in init:
        return cp.full(n, init["constant"], dtype=dt)
    if init == "iota":
        return cp.arange(n, dtype=cp.int64).astype(dt)
    return cp.zeros(n, dtype=dt)


def worker(plan_path):
    """Runs inside ncu: for each point, one warm-up run and SAMPLES runs of its launch sequence."""
    import cupy as cp
    plan = json.load(open(plan_path))
    rng = cp.random.default_rng(20261123)
    # Every buffer its own cudaMalloc, as the engine's: a small kernel's time depends on where its buffers lie.
    cp.cuda.set_allocator(None)
    for point in plan["points"]:
        mod = cp.RawModule(path=point["image"])   # the engine's own machine code (launch-info --image)
        fn = mod.get_function(point["function"])
        bufs = {}
        for b in point["buffers"]:
            bufs[b["name"]] = arr = buffer_data(cp, rng, b)
            if b["constant"]:
                cp.ndarray(arr.shape, arr.dtype, mod.get_global(b["name"]))[...] = arr

        def arg(a):
            ((kind, value),) = a.items()
            return bufs[value] if kind == "buffer" else cp.dtype(DTYPES[kind]).type(value)

        launches = [(tuple(l["grid"]), tuple(l["block"]), tuple(arg(a) for a in l["args"]), int(l["shared"]))
                    for l in point["launches"]]
        biggest = max(s for *_, s in launches)
        if biggest > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = biggest
        flush = L2Flush() if point.get("flush") else None
        for _ in range(WARMUP + SAMPLES):
            if flush:
                flush.run()
            for grid, block, args, shared in launches:
                fn(grid, block, args, shared_mem=shared)
            cp.cuda.Device().synchronize()
        del bufs, launches
        cp.get_default_memory_pool().free_all_blocks()
        print(f"ran {label(point['experiment'], point['variant'], point['params'])}", file=sys.stderr, flush=True)


def ncu_version(ncu):
    out = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if "Version" in l]
    return lines[-1].strip() if lines else out.strip()


def profile(ncu, plans, cache_control, tmp, tag=""):
    """Profiles `plans` in one ncu run; returns the kernel durations in ns, in launch order, with names."""
    cache_control_tag = cache_control + (f"-{tag}" if tag else "")
    plan_path = os.path.join(tmp, f"plan-{cache_control_tag}.json")
    json.dump({"points": plans}, open(plan_path, "w"))
    names = sorted({p["function"] for p in plans})
    report = os.path.join(tmp, f"report-{cache_control_tag}")
    cmd = [ncu, "--clock-control", "none", "--cache-control", cache_control, "--metrics", METRIC,
           "--kernel-name-base", "function", "--kernel-name", "regex:^(" + "|".join(map(re.escape, names)) + ")$",
           "--export", report, "--force-overwrite",
           sys.executable, os.path.abspath(__file__), "--worker", plan_path]
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    csv_text = subprocess.run([ncu, "--import", report + ".ncu-rep", "--csv", "--page", "raw", "--print-units", "base"],
                              check=True, capture_output=True, text=True).stdout
    rows = list(csv.reader(csv_text.splitlines()))
    header_at = next(i for i, r in enumerate(rows) if METRIC in r)
    header = rows[header_at]
    col, name_col, id_col = header.index(METRIC), header.index("Kernel Name"), header.index("ID")
    out = []
    for r in rows[header_at + 1:]:
        if len(r) <= col or not r[id_col].strip().isdigit():
            continue  # the units row
        # (A demangled name may carry its parameter list; the spec's kernels are extern "C".)
        out.append((int(r[id_col]), r[name_col].split("(")[0].strip(), float(r[col].replace(",", ""))))
    out.sort()
    return [(name, ns) for _, name, ns in out]


def slug_of(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def git_commit():
    if os.environ.get("GPULAB_COMMIT"):
        return os.environ["GPULAB_COMMIT"]
    stamp = os.path.join(os.path.dirname(os.path.abspath(binary())), "COMMIT")
    if os.path.exists(stamp):   # what the binaries were built from (build-device-bin.sh)
        return open(stamp).read().strip()
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def engine_launches(rows, verdicts):
    """For each cold point outside its target against the engine in the same call: ncu's median
    duration of the ENGINE's own launches of it (scripts/ncu_engine_point.sh, a run just after), to tell
    a difference of timing from one of launch (this script's process and buffers). A multi-launch point
    is summed per sample there too (PER_SAMPLE, --cache-control none)."""
    for r, v in zip(rows, verdicts):
        sr = r["same_run"]
        if sr is None or v["within"] or sr["outcome"] != "ok" or r["mode"] != "cold":
            continue
        if r["launches"] != 1 and not r["flushed_by_script"]:
            continue
        axes = "{ " + ", ".join(f"{k} = {json.dumps(x)}" for k, x in r["params"].items()) + " }"
        cmd = ["bash", os.path.join(ROOT, "scripts", "ncu_engine_point.sh"), r["experiment"], r["variant"], axes,
               r["function"], str(ENGINE_LAUNCHES * r["launches"])]
        env = dict(os.environ, GPULAB_BIN=binary())
        if r["launches"] != 1:
            env.update(PER_SAMPLE=str(r["launches"]), CACHE_CONTROL="none")
        print("$ " + " ".join(cmd), flush=True)
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        m = re.search(r"median of the rest ([0-9.]+) us", out.stdout)
        if out.returncode != 0 or not m:
            print(f"note: ncu on the engine's launches of {r['experiment']}/{r['variant']} failed:\n"
                  f"{out.stdout[-1500:]}{out.stderr[-1500:]}", flush=True)
            continue
        sr["ncu_engine_launches_ms"] = float(m.group(1)) / 1000


def write_check(out_dir, result):
    """Writes ncu.json; returns the verdicts the book computes from it."""
    path = os.path.join(out_dir, "ncu.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    return tool_json(["ncu-verdicts", path])


def log_lines(result, verdicts):
    """ncu.log: each point's times and the book's verdicts (engine ms: less the event overhead and the gaps
    between launches, as `mdbook-gpulab ncu-verdicts` computes them), then the counts."""
    lines = [f"ncu check on {result['gpu']}, {result['ncu_version']}, commit {result['commit']}, {result['date']}; "
             f"kernels: {result['code']}", f"{'point':58} {'launches':>8} {'ncu ms':>10} {'raw ms':>10} "
             f"{'engine ms':>10} {'ratio':>7} {'same call':>10} {'ratio':>7} {'target':>7}"]
    for r, v in zip(result["points"], verdicts):
        case = f"{r['experiment']}/{r['variant']} " + " ".join(f"{k}={x}" for k, x in r["params"].items())
        same = [f"{v['same_call']['engine_ms']:10.4f} {v['same_call']['ratio']:7.3f}"] if v["same_call"] else []
        on_engine = [f"(ncu on the engine's own launches: engine ÷ that {v['engine_launches'][0]:.3f})"
                     ] if v["engine_launches"] else []
        rec = v["recorded"]
        lines.append(" ".join([f"{case:58} {r['launches']:8d} {r['ncu_ms']:10.4f} {rec['engine_raw_ms']:10.4f}",
                               f"{rec['engine_ms']:10.4f} {rec['ratio']:7.3f}", *same,
                               f"{'±%g%%' % (v['target'] * 100):>7}", "ok" if v["within"] else "OUTSIDE", *on_engine]))
    return lines + [f"NCU CHECK: {sum(v['within'] for v in verdicts)} of {len(verdicts)} points within target "
                    f"(against the recordings: {sum(v['recorded']['within'] for v in verdicts)}); "
                    f"{result['seconds']:.0f} s"]


def check(slug_arg, same=True):
    import cupy as cp
    start = time.time()
    props = cp.cuda.runtime.getDeviceProperties(0)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    slug = slug_arg or slug_of(gpu)
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    tmp = tempfile.mkdtemp(prefix="gpulab-ncu-")
    plans, problems, notes = plan_all(slug, images=tmp)
    for n in notes + problems:
        print(f"note: {n}")
    if not plans:
        print(f"nothing to check: no recorded point of the list on {slug}")
        return 1
    code = "the engine's own compile (mdbook-gpulab launch-info --image: " + "; ".join(
        sorted({f"{p['image']['kind']}, NVRTC {p['image']['nvrtc']}" for p in plans})) + ")"
    for p in plans:
        p["image"] = p["image"]["path"]
    cal_path = os.path.join(ROOT, "data", slug, "checks", "event_offset.json")
    calibration = json.load(open(cal_path)) if os.path.exists(cal_path) else None
    commit = git_commit()   # the code that made every row (the engine's point: recorded_commit)
    engine_run = same_run(slug, plans, os.path.join(tmp, "book"), commit) if same else None
    # Cold points: ncu flushes before a single launch; a multi-launch sequence is flushed here (L2Flush).
    for p in plans:
        p["flush"] = p["mode"] == "cold" and len(p["launches"]) > 1
    rows = []
    for mode, cache_control, flush in (("cold", "all", False), ("cold", "none", True), ("hot", "none", False)):
        group = [p for p in plans if p["mode"] == mode and p["flush"] == flush]
        if not group:
            continue
        kernels = profile(ncu, group, cache_control, tmp, "flush" if flush else "")
        expected = [p["function"] for p in group for _ in range((WARMUP + SAMPLES) * len(p["launches"]))]
        got = [k[0] for k in kernels]
        if got != expected:
            raise SystemExit(f"ncu profiled {len(got)} kernels, expected {len(expected)} in this order: "
                             f"{expected[:5]}… got {got[:5]}…")
        at = 0
        for p in group:
            n = len(p["launches"])
            runs = []
            for s in range(WARMUP + SAMPLES):
                ns = sum(k[1] for k in kernels[at:at + n])
                at += n
                if s >= WARMUP:
                    runs.append(ns / 1e6)
            l0 = p["launches"][0]
            rows.append({
                "experiment": p["experiment"], "variant": p["variant"], "params": p["params"],
                "function": p["function"], "mode": mode, "cache_control": cache_control, "launches": n,
                "grid": l0["grid"], "block": l0["block"], "shared": l0["shared"], "options": p["options"],
                "ncu_ms": statistics.median(runs), "ncu_runs_ms": runs, **p["recorded"],
                "engine_samples": p["engine_samples"], "engine_noise": p["engine_noise"],
                "recorded_at": p["recorded_at"], "recorded_commit": p["recorded_commit"], "commit": commit,
                "flushed_by_script": flush, "same_run": p.get("same_run"),
            })
    result = {
        "schema": 2, "tool": "scripts/ncu_check.py", "commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "ncu_version": ncu_version(ncu), "gpu": gpu, "slug": slug, "driver": cp.cuda.runtime.driverGetVersion(),
        "cupy": cp.__version__, "metric": METRIC, "clock_control": "none",
        "cache_control": {"cold": "all", "hot": "none", "cold, several launches": "none, flushed by the script"},
        "code": code, "warmup_runs": WARMUP, "runs_per_point": SAMPLES, "targets": TARGETS, "seconds": 0,
        # The calibration the book's correction uses for this check's times (and its gap between launches).
        "event_offset": None if calibration is None else {
            k: calibration.get(k) for k in ("offset_ms", "events_ms", "ncu_ms", "gap_ms", "commit", "date")},
        "same_run": engine_run, "not_checked": notes + problems, "points": rows,
    }
    out_dir = os.path.join(ROOT, "data", slug, "checks")
    os.makedirs(out_dir, exist_ok=True)
    verdicts = write_check(out_dir, result)
    if engine_run is not None:
        engine_launches(rows, verdicts)
    shutil.rmtree(tmp, ignore_errors=True)
    result["seconds"] = round(time.time() - start, 1)
    verdicts = write_check(out_dir, result)
    text = "\n".join(log_lines(result, verdicts)) + "\n"
    open(os.path.join(out_dir, "ncu.log"), "w").write(text)
    print(text)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="plan and check against the recordings, CPU only")
    ap.add_argument("--slug", help="the device's data folder (default: every one for --dry-run, this GPU's otherwise)")
    ap.add_argument("--json", help="with --dry-run: also write the plans, by device, to this file")
    ap.add_argument("--no-same-run", action="store_true",
                    help="compare with the recordings only (do not time the points with the engine in this call)")
    ap.add_argument("--scratch", help="with --dry-run: prepare the scratch copy of the book for the engine's "
                                      "same-call run here (and run nothing)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker)
        return 0
    if a.dry_run:
        return dry_run([a.slug] if a.slug else slugs(), a.json, a.scratch)
    return check(a.slug, not a.no_same_run)


if __name__ == "__main__":
    sys.exit(main())
