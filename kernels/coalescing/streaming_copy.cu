// The float4 grid-stride copy with streaming cache hints: loads and stores are evict-first
// (__ldcs / __stcs), so the copy's data does not push other lines (e.g. dirty ones) out of L2.
extern "C" __global__ void copy_vec4_cs(const float4* __restrict__ in, float4* __restrict__ out,
                                        long long n4)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 v0 = __ldcs(in + i);
        const float4 v1 = __ldcs(in + i + stride);
        const float4 v2 = __ldcs(in + i + 2 * stride);
        const float4 v3 = __ldcs(in + i + 3 * stride);
        __stcs(out + i, v0);
        __stcs(out + i + stride, v1);
        __stcs(out + i + 2 * stride, v2);
        __stcs(out + i + 3 * stride, v3);
    }
    for (; i < n4; i += stride) __stcs(out + i, __ldcs(in + i));
}

// Eight 16-byte loads in flight per thread before any store, 1024-thread blocks, one wave of
// blocks (SM_COUNT * 2): more bytes in flight per SM to cover HBM latency.
extern "C" __global__ void copy_vec4_x8(const float4* __restrict__ in, float4* __restrict__ out,
                                        long long n4)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 7 * stride < n4; i += 8 * stride) {
        float4 v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = __ldcs(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < 8; ++k) __stcs(out + i + k * stride, v[k]);
    }
    for (; i < n4; i += stride) __stcs(out + i, __ldcs(in + i));
}
