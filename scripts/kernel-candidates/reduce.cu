// Sum candidates (scripts/kernel_candidates.py): out[0] = sum of in[0..n), E = float or int (the
// reduction experiment sums ints). Grid-stride over float4/int4 (16-byte) loads, U loads in flight
// per thread into U accumulators,// warp shuffles, one shared word per warp. NT threads per block; the grid is the caller's choice.
// LD: 0 plain load, 1 __ldcs (streaming), 2 ld.global.nc.L1::no_allocate.L2::256B.
// MODE: 0 each block writes partial[blockIdx.x] (a second kernel, rsum_final, adds them);
//       1 each block atomicAdds into out[0] (the caller zeroes it first);
//       2 each block writes its partial, the last block to finish adds them (one kernel,
//         deterministic; the ticket counter is reset to 0 by that block).
template <typename E> struct Vec4;
template <> struct Vec4<float> { typedef float4 T; };
template <> struct Vec4<int> { typedef int4 T; };

__device__ __forceinline__ void ld_nc256(const float4* p, float4& v)
{
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
}
__device__ __forceinline__ void ld_nc256(const int4* p, int4& v)
{
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p));
}

template <int LD, typename V>
__device__ __forceinline__ V ld4(const V* p)
{
    if (LD == 1) return __ldcs(p);
    if (LD == 2) {
        V v;
        ld_nc256(p, v);
        return v;
    }
    return *p;
}

template <typename E>
__device__ __forceinline__ E warp_sum(E v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// The block's sum, valid in thread 0.
template <typename E, int NT>
__device__ __forceinline__ E block_sum(E v)
{
    __shared__ E warp_sums[NT / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    E s = 0;
    if (warp == 0) {
        s = lane < NT / 32 ? warp_sums[lane] : E(0);
        s = warp_sum(s);
    }
    __syncthreads();   // warp_sums may be reused by a later call
    return s;
}

template <typename E, int NT, int U, int LD, int MODE>
__global__ void __launch_bounds__(NT)
rsum(const E* __restrict__ in, E* __restrict__ partial, E* __restrict__ out,
     unsigned int* __restrict__ ticket, long long n)
{
    typedef typename Vec4<E>::T V;
    const long long n4 = n >> 2;
    const V* __restrict__ in4 = reinterpret_cast<const V*>(in);
    const long long nthreads = (long long)gridDim.x * NT;
    const long long gtid = (long long)blockIdx.x * NT + threadIdx.x;
    E s[U];
#pragma unroll
    for (int u = 0; u < U; ++u) s[u] = 0;
    long long i = gtid;
    for (; i + (U - 1) * nthreads < n4; i += U * nthreads) {
        V v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = ld4<LD>(in4 + i + u * nthreads);
#pragma unroll
        for (int u = 0; u < U; ++u) s[u] += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += nthreads) {
        const V v = ld4<LD>(in4 + i);
        s[0] += (v.x + v.y) + (v.z + v.w);
    }
    for (long long j = 4 * n4 + gtid; j < n; j += nthreads) s[0] += in[j];   // n % 4 tail
#pragma unroll
    for (int w = 1; w < U; w <<= 1)
#pragma unroll
        for (int u = 0; u + w < U; u += 2 * w) s[u] += s[u + w];
    const E total = block_sum<E, NT>(s[0]);
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
    E t = 0;
    for (int k = threadIdx.x; k < (int)gridDim.x; k += NT) t += __ldcg(partial + k);
    t = block_sum<E, NT>(t);
    if (threadIdx.x == 0) {
        out[0] = t;
        *ticket = 0;
    }
}

// Second pass of MODE 0: one block adds count partial sums.
template <typename E, int NT>
__global__ void __launch_bounds__(NT) rsum_final(const E* __restrict__ partial, E* __restrict__ out, int count)
{
    E t = 0;
    for (int k = threadIdx.x; k < count; k += NT) t += partial[k];
    t = block_sum<E, NT>(t);
    if (threadIdx.x == 0) out[0] = t;
}
