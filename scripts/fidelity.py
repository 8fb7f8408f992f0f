#!/usr/bin/env python3
"""Fidelity benchmark: the engine's recorded time vs an independent timer on the same .cu source.

For each case the engine's median, measured fresh in this call (`mdbook-gpulab record` on a
throwaway book holding one directive per case, with the repository's kernels and an empty data
folder, so data/ is not touched and no older recording is compared), is compared with CuPy: the same source compiled with the
same defines (`mdbook-gpulab launch-info` resolves them with the engine's own code), the same
launches, timed with CuPy's own CUDA events around each run (a separate process and module load),
with the L2 cache flushed before every run like the engine's cold mode. Prints each ratio.
Target: every ratio within +-3 %.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile

import cupy as cp

CASES = [
    ("coalescing", "copy_vec4", {"N": 16384}),
    ("coalescing", "copy_vec4_flat", {"N": 16384}),
    ("transpose_conrad", "tile32", {"N": 16384}),
    ("reduction", "best", {"N": 268435456}),
    ("sgemm", "warptile", {"N": 4096}),
]
TYPES = {"f32": cp.float32, "f64": cp.float64, "i32": cp.int32, "u32": cp.uint32}


def launch_info(exp, variant, params):
    args = ["mdbook-gpulab", "launch-info", exp, variant] + [f"{k}={v}" for k, v in params.items()]
    return json.loads(subprocess.check_output(args))


def engine_medians():
    """Records every case with the engine in a throwaway book; returns {(exp, variant): median_ms}."""
    root = tempfile.mkdtemp(prefix="gpulab-fidelity-")
    os.makedirs(os.path.join(root, "src"))
    os.symlink(os.path.abspath("kernels"), os.path.join(root, "kernels"))
    with open(os.path.join(root, "book.toml"), "w") as f:
        f.write('[book]\ntitle = "fidelity"\nsrc = "src"\n\n[preprocessor.gpulab]\nmode = "recorded"\n')
    with open(os.path.join(root, "src", "SUMMARY.md"), "w") as f:
        f.write("# Summary\n\n- [Cases](cases.md)\n")
    with open(os.path.join(root, "src", "cases.md"), "w") as f:
        f.write("# Cases\n")
        for exp, variant, params in CASES:
            axes = ", ".join(f"{k} = {v}" for k, v in params.items())
            f.write(f'\n```gpulab\nexperiment = "{exp}"\nvariants = ["{variant}"]\naxes = {{ {axes} }}\n```\n')
    subprocess.run(["mdbook-gpulab", "record", root], check=True)
    out = {}
    for dev in os.listdir(os.path.join(root, "data")):
        for exp, variant, params in CASES:
            path = os.path.join(root, "data", dev, f"{exp}.json")
            if not os.path.exists(path):
                continue
            for p in json.load(open(path))["points"]:
                if p["variant"] == variant and all(p["params"].get(k) == v for k, v in params.items()):
                    out[(exp, variant)] = (p["timing"] or {}).get("median_ms"), (p.get("failure") or {}).get("message")
    shutil.rmtree(root, ignore_errors=True)
    return out


def main():
    engine = engine_medians()
    l2 = cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
    flush = cp.empty(2 * l2, dtype=cp.uint8)
    rows = []
    for exp, variant, params in CASES:
        info = launch_info(exp, variant, params)
        src = open(info["source"]).read()
        opts = tuple(info["options"]) + ("-std=c++17", "--gpu-architecture=sm_90")
        mod = cp.RawModule(code=src, options=opts, name_expressions=None)
        fn = mod.get_function(info["function"])
        bufs = {}
        for b in info["buffers"]:
            dt = TYPES[b["type"]]
            n = max(int(b["len"]), 1)
            bufs[b["name"]] = (cp.random.random(n) * 8).astype(dt) if dt in (cp.int32, cp.uint32) else cp.random.random(n, dtype=cp.float64).astype(dt)

        def arg(a):
            if "buffer" in a:
                return bufs[a["buffer"]]
            (t, v), = a.items()
            return {"i32": cp.int32, "u32": cp.uint32, "i64": cp.int64, "f32": cp.float32, "f64": cp.float64}[t](v)

        launches = [(tuple(l["grid"]), tuple(l["block"]), tuple(arg(a) for a in l["args"]), int(l["shared"])) for l in info["launches"]]
        if any(s > 48 * 1024 for *_, s in launches):
            fn.max_dynamic_shared_size_bytes = max(s for *_, s in launches)

        def run():
            for grid, block, args, shared in launches:
                fn(grid, block, args, shared_mem=shared)

        def flush_l2():
            flush.fill(1)

        for _ in range(3):
            run()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(50):
            flush_l2()
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        ind = float(statistics.median(times))
        eng, why = engine.get((exp, variant), (None, "not recorded"))
        rows.append((exp, variant, params, eng, ind, why))
    print("\nFIDELITY (engine median / CuPy-events median, same source, cold L2)")
    print(f"{'case':42} {'engine ms':>10} {'cupy ms':>10} {'ratio':>7}")
    worst = 0.0
    for exp, variant, params, eng, ind, why in rows:
        case = f"{exp}/{variant} " + " ".join(f"{k}={v}" for k, v in params.items())
        if eng is None:
            print(f"{case:42} {'-':>10} {ind:10.4f} {'-':>7}  ({why})")
            continue
        r = eng / ind
        worst = max(worst, abs(r - 1))
        print(f"{case:42} {eng:10.4f} {ind:10.4f} {r:7.3f}")
    print(f"worst deviation: {worst*100:.1f} % (target: within 3 %)")


if __name__ == "__main__":
    main()
