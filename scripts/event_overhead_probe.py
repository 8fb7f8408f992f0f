#!/usr/bin/env python3
"""What do CUDA events add to a short kernel's time, against Nsight Compute's gpu__time_duration?

Issue 12: the engine's event times of kernels under ~30 us read 0.5-1.5 us above ncu's. This probe
times copy kernels of 2-40 us the engine's way (L2 flush: memset of twice the L2 + discard.global.L2;
a spinning kernel in front so that everything is queued before the GPU reaches the start event; start
event, kernel, stop event), an empty pair of events (start, stop, nothing between) and an empty
kernel, then the same kernels under ncu, and prints how well `events - empty pair` matches ncu.

    python3 scripts/event_overhead_probe.py            # on a GPU machine with CuPy and ncu
"""
import csv, os, statistics, subprocess, sys, tempfile

import cupy as cp

SAMPLES = 41
SIZES = [1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24]
SRC = r"""
extern "C" __global__ void probe_copy(const float* __restrict__ a, float* __restrict__ b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i];
}
extern "C" __global__ void probe_empty() {}
extern "C" __global__ void probe_spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
extern "C" __global__ void probe_discard(char* base, unsigned long long lines) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < lines; i += stride)
        asm volatile("discard.global.L2 [%0], 128;" :: "l"(base + i * 128) : "memory");
}
"""


def main():
    under_ncu = "--ncu-child" in sys.argv
    mod = cp.RawModule(code=SRC, options=("--std=c++17",))
    copy, empty, spin, discard = (mod.get_function(n) for n in ("probe_copy", "probe_empty", "probe_spin", "probe_discard"))
    dev = cp.cuda.Device()
    l2 = dev.attributes["L2CacheSize"]
    flushbuf = cp.empty(2 * l2, dtype=cp.uint8)
    n_max = max(SIZES)
    a = cp.random.random(n_max, dtype=cp.float32)
    b = cp.empty_like(a)

    def flush():
        flushbuf.fill(0)
        discard((264,), (256,), (flushbuf, cp.uint64(flushbuf.size // 128)))

    def launch_copy(n):
        copy(((n + 255) // 256,), (256,), (a, b, cp.uint32(n)))

    if under_ncu:
        for n in SIZES:
            for _ in range(8):
                flush()
                launch_copy(n)
        for _ in range(8):
            flush()
            empty((1,), (32,), ())
        cp.cuda.Device().synchronize()
        return

    e0, e1 = cp.cuda.Event(), cp.cuda.Event()

    def timed(body):
        out = []
        for _ in range(SAMPLES + 1):
            flush()
            spin((1,), (1,), (cp.uint64(50_000),))
            e0.record()
            body()
            e1.record()
            e1.synchronize()
            out.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)   # us
        return statistics.median(out[1:]), min(out[1:])

    pair = timed(lambda: None)
    empt = timed(lambda: empty((1,), (32,), ()))
    ev = {n: timed(lambda n=n: launch_copy(n)) for n in SIZES}

    # ncu on the same launches (a child of this script, under ncu).
    ncu = os.environ.get("NCU", "/usr/local/cuda/bin/ncu")
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "r")
        subprocess.run([ncu, "--clock-control", "none", "--cache-control", "all", "--metrics", "gpu__time_duration.sum",
                        "--kernel-name", "regex:^probe_(copy|empty)$", "--export", rep, "--force-overwrite",
                        sys.executable, os.path.abspath(__file__), "--ncu-child"], check=True,
                       stdout=subprocess.DEVNULL)
        text = subprocess.run([ncu, "--import", rep + ".ncu-rep", "--csv", "--page", "raw", "--print-units", "base"],
                              capture_output=True, text=True, check=True).stdout
    rows = list(csv.reader(text.splitlines()))
    head = rows[0]
    col = head.index("gpu__time_duration.sum")
    kname = head.index("Kernel Name")
    durs = [(r[kname], float(r[col].replace(",", "")) / 1e3) for r in rows[2:]]   # ns -> us
    copies = [d for k, d in durs if k.startswith("probe_copy")]
    empties = [d for k, d in durs if k.startswith("probe_empty")]
    ncu_us = {n: statistics.median(copies[8 * i + 1: 8 * i + 8]) for i, n in enumerate(SIZES)}
    ncu_empty = statistics.median(empties[1:])

    print(f"GPU {dev.id}: {cp.cuda.runtime.getDeviceProperties(dev.id)['name'].decode()}, L2 {l2 >> 20} MiB")
    print(f"empty event pair: median {pair[0]:.3f} us, min {pair[1]:.3f}")
    print(f"empty kernel: events {empt[0]:.3f} us (min {empt[1]:.3f}), ncu {ncu_empty:.3f} us")
    print(f"{'floats':>10} {'ncu us':>8} {'events':>8} {'ev/ncu':>7} {'ev-pair':>8} {'ratio':>7} {'ev-(emptyk-ncuempty)':>21} {'ratio':>7}")
    for n in SIZES:
        e = ev[n][0]
        c1 = e - pair[0]
        c2 = e - (empt[0] - ncu_empty)
        print(f"{n:>10} {ncu_us[n]:8.3f} {e:8.3f} {e / ncu_us[n]:7.3f} {c1:8.3f} {c1 / ncu_us[n]:7.3f} {c2:21.3f} {c2 / ncu_us[n]:7.3f}")


if __name__ == "__main__":
    main()
