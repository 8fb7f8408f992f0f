// Float-sum candidates (scripts/kernel_candidates.py): out[0] = sum of in[0..n).
// Grid-stride over float4 (16-byte) loads, U loads in flight per thread into U accumulators,
// warp shuffles, one shared word per warp. NT threads per block; the grid is the caller's choice.
// LD: 0 plain load, 1 __ldcs (streaming), 2 ld.global.nc.L1::no_allocate.L2::256B.
// MODE: 0 each block writes partial[blockIdx.x] (a second kernel, rsum_final, adds them);
//       1 each block atomicAdds into out[0] (the caller zeroes it first);
//       2 each block writes its partial, the last block to finish adds them (one kernel,
//         deterministic; the ticket counter is reset to 0 by that block).
template <int LD>
__device__ __forceinline__ float4 ld4(const float4* p)
{
    if (LD == 1) return __ldcs(p);
    if (LD == 2) {
        float4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
        return v;
    }
    return *p;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// The block's sum, valid in thread 0.
template <int NT>
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_sums[NT / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    float s = 0.0f;
    if (warp == 0) {
        s = lane < NT / 32 ? warp_sums[lane] : 0.0f;
        s = warp_sum(s);
    }
    __syncthreads();   // warp_sums may be reused by a later call
    return s;
}

template <int NT, int U, int LD, int MODE>
__global__ void __launch_bounds__(NT)
rsum(const float* __restrict__ in, float* __restrict__ partial, float* __restrict__ out,
     unsigned int* __restrict__ ticket, long long n)
{
    const long long n4 = n >> 2;
    const float4* __restrict__ in4 = reinterpret_cast<const float4*>(in);
    const long long nthreads = (long long)gridDim.x * NT;
    const long long gtid = (long long)blockIdx.x * NT + threadIdx.x;
    float s[U];
#pragma unroll
    for (int u = 0; u < U; ++u) s[u] = 0.0f;
    long long i = gtid;
    for (; i + (U - 1) * nthreads < n4; i += U * nthreads) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = ld4<LD>(in4 + i + u * nthreads);
#pragma unroll
        for (int u = 0; u < U; ++u) s[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += nthreads) {
        const float4 v = ld4<LD>(in4 + i);
        s[0] += (v.x + v.y) + (v.z + v.w);
    }
    for (long long j = 4 * n4 + gtid; j < n; j += nthreads) s[0] += in[j];   // n % 4 tail
#pragma unroll
    for (int w = 1; w < U; w <<= 1)
#pragma unroll
        for (int u = 0; u + w < U; u += 2 * w) s[u] += s[u + w];
    const float total = block_sum<NT>(s[0]);
    if (MODE == 1) {
        if (threadIdx.x == 0) atomicAdd(out, total);
        return;
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
    if (MODE == 0) return;
    __shared__ bool last;
    __threadfence();
    if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    float t = 0.0f;
    for (int k = threadIdx.x; k < (int)gridDim.x; k += NT) t += __ldcg(partial + k);
    t = block_sum<NT>(t);
    if (threadIdx.x == 0) {
        out[0] = t;
        *ticket = 0;
    }
}

// Second pass of MODE 0: one block adds count partial sums.
template <int NT>
__global__ void __launch_bounds__(NT) rsum_final(const float* __restrict__ partial, float* __restrict__ out, int count)
{
    float t = 0.0f;
    for (int k = threadIdx.x; k < count; k += NT) t += partial[k];
    t = block_sum<NT>(t);
    if (threadIdx.x == 0) out[0] = t;
}
