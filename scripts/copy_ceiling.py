#!/usr/bin/env python3
"""The device's copy ceiling, and what the L2 flush before a sample costs a timed copy.

METHOD: measure the memory ceiling once with a large device-to-device copy (bytes read plus
written). This prints, at 1 GiB and 4 GiB per buffer:
  - cudaMemcpy device-to-device (the driver's copy engine path),
  - the handbook's `copy_vec4` kernel (kernels/coalescing/coalescing.cu) timed three ways:
      hot      back to back, no flush,
      dirty    after writing an L2-sized buffer (the flush leaves dirty lines in L2 that the
               timed copy must write back first),
      clean    after that write, reading another L2-sized buffer (the dirty lines are written
               back before the timed region; L2 holds only clean lines),
Each figure is the median of 30 samples timed with CUDA events. Run on the GPU machine:
    python3 scripts/copy_ceiling.py
"""
import statistics

import cupy as cp

SRC = open("kernels/coalescing/coalescing.cu").read()
READ_SRC = r"""
extern "C" __global__ void read_all(const int4* __restrict__ in, long long n4, int* sink)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    int acc = 0;
    for (; i < n4; i += stride) { int4 v = in[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w; }
    if (acc == 0x7fffffff) *sink = acc;
}
"""


def device_summary():
    """(name, SM count, L2 bytes, theoretical bandwidth in GB/s: 2 x memory clock x bus width / 8)."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    clock_khz = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrMemoryClockRate, 0)
    bus = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrGlobalMemoryBusWidth, 0)
    peak = 2 * clock_khz * 1e3 * bus / 8 / 1e9
    return props["name"].decode(), props["multiProcessorCount"], props["l2CacheSize"], peak


def l2_flushes(sms, l2):
    """Two ways to empty L2 before a sample: `dirty` writes an L2-sized buffer (nvbench's way, the
    engine's), `clean` then reads another one, so that only clean lines are left."""
    read = cp.RawModule(code=READ_SRC, options=("--gpu-architecture=sm_90",)).get_function("read_all")
    flush_w = cp.empty(2 * l2, dtype=cp.uint8)
    flush_r = cp.ones(2 * l2, dtype=cp.uint8)
    sink = cp.zeros(1, dtype=cp.int32)

    def dirty():
        flush_w.fill(1)

    def clean():
        flush_w.fill(1)
        read((sms * 8,), (256,), (flush_r, cp.int64(flush_r.size // 16), sink))

    return dirty, clean


def median_ms(run, before, samples=30):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    run()
    times = []
    for _ in range(samples):
        before()
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def main():
    name, sms, l2, peak = device_summary()
    print(f"{name}: {sms} SMs, L2 {l2 / 2**20:.0f} MiB, theoretical {peak:.0f} GB/s")
    copy = cp.RawModule(code=SRC, options=("-std=c++17", "--gpu-architecture=sm_90")).get_function("copy_vec4")
    dirty, clean = l2_flushes(sms, l2)

    def nothing():
        pass

    print(f"{'GiB':>4} {'path':34} {'ms':>9} {'GB/s':>7} {'% peak':>7}")
    for gib in (1, 4):
        n = gib * 2**30 // 4
        a = cp.ones(n, dtype=cp.float32)
        b = cp.empty_like(a)
        moved = 2 * a.nbytes

        def memcpy():
            cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes,
                                        cp.cuda.runtime.memcpyDeviceToDevice, 0)

        def kernel():
            copy((sms * 8,), (256,), (a, b, cp.int64(n // 4)))

        for label, run, before in [
            ("cudaMemcpy D2D, dirty L2", memcpy, dirty),
            ("cudaMemcpy D2D, clean L2", memcpy, clean),
            ("copy_vec4 hot (no flush)", kernel, nothing),
            ("copy_vec4 after write flush", kernel, dirty),
            ("copy_vec4 after write+read flush", kernel, clean),
        ]:
            ms = median_ms(run, before)
            gbps = moved / ms / 1e6
            print(f"{gib:4} {label:34} {ms:9.4f} {gbps:7.0f} {100 * gbps / peak:7.1f}")
        assert bool((b == 1).all()), "copy result wrong"
        del a, b


if __name__ == "__main__":
    main()
