#!/usr/bin/env python3
"""Copy-kernel shapes against the driver's device-to-device copy, 1 GiB per buffer, clean L2.

An exploration kept for the record (kernels/PART2-NOTES.md quotes it): each candidate is
compiled from the repository's sources with CuPy, verified, and timed with CUDA events (median of
30, each sample after an L2 flush that leaves only clean lines). Run on the GPU machine:
    python3 scripts/copy-candidates.py
"""
import cupy as cp

from copy_ceiling import device_summary, l2_flushes, median_ms

CHUNKED = r"""
// Each block copies one contiguous range, 4 float4 per thread in flight per step.
extern "C" __global__ void copy_chunked(const float4* __restrict__ in, float4* __restrict__ out,
                                        long long n4)
{
    const long long per = (n4 + gridDim.x - 1) / gridDim.x;
    const long long lo = blockIdx.x * per;
    const long long hi = min(lo + per, n4);
    long long i = lo + threadIdx.x;
    const int b = blockDim.x;
    for (; i + 3 * b < hi; i += 4 * b) {
        float4 v0 = in[i], v1 = in[i + b], v2 = in[i + 2 * b], v3 = in[i + 3 * b];
        out[i] = v0; out[i + b] = v1; out[i + 2 * b] = v2; out[i + 3 * b] = v3;
    }
    for (; i < hi; i += b) out[i] = in[i];
}
extern "C" __global__ void copy_flat(const float4* __restrict__ in, float4* __restrict__ out,
                                     long long n4)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = in[i];
}
"""
OPTS = ("-std=c++17", "--gpu-architecture=sm_90")


def main():
    _, sms, l2, peak = device_summary()
    _, clean = l2_flushes(sms, l2)

    n = 2**30 // 4
    a = cp.arange(n, dtype=cp.float32)
    b = cp.empty_like(a)
    nbytes = a.nbytes
    cands = []

    def memcpy():
        cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, nbytes, cp.cuda.runtime.memcpyDeviceToDevice, 0)
    cands.append(("cudaMemcpy D2D", memcpy))
    base = cp.RawModule(code=open("kernels/coalescing/coalescing.cu").read(), options=OPTS).get_function("copy_vec4")
    for per_sm in (4, 8, 16, 64):
        cands.append((f"copy_vec4 grid SM*{per_sm} x256", lambda g=per_sm: base((sms * g,), (256,), (a, b, cp.int64(n // 4)))))
    extra = cp.RawModule(code=CHUNKED, options=OPTS)
    chunked, flat = extra.get_function("copy_chunked"), extra.get_function("copy_flat")
    cands.append(("copy_flat 1 float4/thread x256", lambda: flat(((n // 4 + 255) // 256,), (256,), (a, b, cp.int64(n // 4)))))
    for per_sm, blk in ((8, 256), (16, 256), (4, 512), (32, 128)):
        cands.append((f"copy_chunked SM*{per_sm} x{blk}", lambda g=per_sm, t=blk: chunked((sms * g,), (t,), (a, b, cp.int64(n // 4)))))
    src = open("kernels/coalescing/bulk_copy.cu").read()
    for chunk, stages, per_sm in ((16384, 4, 3), (16384, 4, 2), (8192, 8, 3), (32768, 3, 2), (16384, 2, 6), (4096, 8, 6), (65536, 3, 1)):
        opts = OPTS + (f"-DCHUNK={chunk}", f"-DSTAGES={stages}")
        fn = cp.RawModule(code=src, options=opts).get_function("copy_bulk")
        shared = chunk * stages
        fn.max_dynamic_shared_size_bytes = shared
        cands.append((f"copy_bulk {chunk // 1024}K x{stages} SM*{per_sm}",
                      lambda f=fn, g=per_sm, s=shared: f((sms * g,), (32,), (a, b, cp.int64(nbytes)), shared_mem=s)))
    print(f"{'candidate':34} {'ms':>8} {'GB/s':>6} {'% peak':>7}  verified")
    for label, run in cands:
        try:
            b.fill(-1)
            run()
            cp.cuda.Device().synchronize()
            ok = bool((b == a).all())
            ms = median_ms(run, clean)
            gbps = 2 * nbytes / ms / 1e6
            print(f"{label:34} {ms:8.4f} {gbps:6.0f} {100 * gbps / peak:7.1f}  {'yes' if ok else 'NO'}")
        except Exception as e:  # noqa: BLE001 - print and go on to the next candidate
            print(f"{label:34} error: {e}")


if __name__ == "__main__":
    main()
