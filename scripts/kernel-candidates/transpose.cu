// Transpose candidates (scripts/kernel_candidates.py): b = a^T, a is rows x cols floats, row-major.
// One template, instantiated by name: a T x T tile per block of (T/V) x R threads; each thread
// moves T/R vectors of V floats (all its loads are issued before any shared-memory store, so
// T/R * V * 4 bytes per thread are in flight). SW = 0: tile rows padded to T + 1 words;
// SW = 1: no padding, column index XOR-swizzled by the row. CS = 1: streaming stores (__stcs).
// Needs rows, cols % T == 0.
template <int V> struct VecT;
template <> struct VecT<1> { typedef float T; };
template <> struct VecT<2> { typedef float2 T; };
template <> struct VecT<4> { typedef float4 T; };

template <int V, int SW>
__device__ __forceinline__ int swz(int r, int c)
{
    return SW ? (c ^ ((r / V) & 31)) : c;
}

template <int T, int R, int V, int SW, int CS>
__global__ void __launch_bounds__((T / V) * R)
transpose_t(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    typedef typename VecT<V>::T vec;
    constexpr int P = SW ? T : T + 1;
    __shared__ float tile[T * P];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t r0 = (size_t)blockIdx.y * T, c0 = (size_t)blockIdx.x * T;
    vec v[T / R];
#pragma unroll
    for (int k = 0; k < T / R; ++k)
        v[k] = *reinterpret_cast<const vec*>(a + (r0 + ty + k * R) * cols + c0 + V * tx);
#pragma unroll
    for (int k = 0; k < T / R; ++k) {
        const int r = ty + k * R;
        const float* f = reinterpret_cast<const float*>(&v[k]);
#pragma unroll
        for (int e = 0; e < V; ++e) tile[r * P + swz<V, SW>(r, V * tx + e)] = f[e];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T / R; ++k) {
        const int c = ty + k * R;
        vec w;
        float* f = reinterpret_cast<float*>(&w);
#pragma unroll
        for (int e = 0; e < V; ++e) {
            const int r = V * tx + e;
            f[e] = tile[r * P + swz<V, SW>(r, c)];
        }
        vec* dst = reinterpret_cast<vec*>(b + (c0 + c) * rows + r0 + V * tx);
        if (CS) __stcs(dst, w);
        else *dst = w;
    }
}

// Several 64 x 64 tiles per block (the issue-10 follow-up aimed at the H200): TR / 64 tiles down
// and TC / 64 across, each moved as transpose_t<64, 16, 2, 1, 1> moves its one tile (32 x 16
// threads, float2, swizzled, __stcs), every load of the block issued before the first
// shared-memory store (TR * TC / 64 bytes in flight per thread). Dynamic shared memory:
// 4 * TR * TC bytes; registers capped for 4 blocks per SM (3 above 128 x 64).
// kernels/transpose_conrad/transpose_fast.cu's transpose_multi is this with -D.
template <int TR, int TC>
__global__ void __launch_bounds__(512, TR * TC > 128 * 64 ? 3 : 4)
transpose_multi(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    constexpr int TI = TR / 64, TJ = TC / 64;
    extern __shared__ float tiles[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t r0 = (size_t)blockIdx.y * TR, c0 = (size_t)blockIdx.x * TC;
    float2 v[TI][TJ][4];
#pragma unroll
    for (int i = 0; i < TI; ++i)
#pragma unroll
        for (int j = 0; j < TJ; ++j)
#pragma unroll
            for (int k = 0; k < 4; ++k)
                v[i][j][k] = *reinterpret_cast<const float2*>(
                    a + (r0 + 64 * i + ty + 16 * k) * cols + c0 + 64 * j + 2 * tx);
#pragma unroll
    for (int i = 0; i < TI; ++i)
#pragma unroll
        for (int j = 0; j < TJ; ++j) {
            float* tile = tiles + (i * TJ + j) * 64 * 64;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int r = ty + 16 * k;
                tile[r * 64 + swz<2, 1>(r, 2 * tx)] = v[i][j][k].x;
                tile[r * 64 + swz<2, 1>(r, 2 * tx + 1)] = v[i][j][k].y;
            }
        }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TJ; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int i = 0; i < TI; ++i) {
                const float* tile = tiles + (i * TJ + j) * 64 * 64;
                const int c = ty + 16 * k;
                const float2 w = make_float2(tile[(2 * tx) * 64 + swz<2, 1>(2 * tx, c)],
                                             tile[(2 * tx + 1) * 64 + swz<2, 1>(2 * tx + 1, c)]);
                __stcs(reinterpret_cast<float2*>(b + (c0 + 64 * j + c) * rows + r0 + 64 * i + 2 * tx), w);
            }
}

// Pipelined and hinted 64 x 64 tiles (issue 10, session 7, aimed at the H200's 93.7 %): each tile
// moved as transpose_t<64, 16, 2, 1, 1> moves it (32 x 16 threads, float2, swizzled, __stcs), with
//   PERSIST = 1: blocks loop over tiles (grid-stride) and issue the next tile's loads before they
//                write the current tile out, so loads stay in flight during the stores;
//   ORDER = 1:   tiles walked diagonally (tile column shifted by the tile row);
//   LD = 1:      loads hinted to fetch whole 256-byte L2 lines (ld.global.nc.L2::256B).
// A 1-D grid: the tile count (PERSIST = 0) or MB blocks per SM (PERSIST = 1; registers capped so
// that MB blocks of 512 threads fit on an SM).
template <int LD>
__device__ __forceinline__ float2 ld2(const float* p)
{
    if (LD == 1) {
        float2 v;
        asm volatile("ld.global.nc.L2::256B.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
        return v;
    }
    return *reinterpret_cast<const float2*>(p);
}

template <int ORDER>
__device__ __forceinline__ void tile_of(int t, int gx, size_t& r0, size_t& c0)
{
    const int by = t / gx;
    int bx = t % gx;
    if (ORDER == 1) bx = (bx + by) % gx;
    r0 = (size_t)by * 64;
    c0 = (size_t)bx * 64;
}

template <int PERSIST, int ORDER, int LD, int MB>
__global__ void __launch_bounds__(512, MB)
transpose_p(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[64 * 64];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int gx = cols / 64, n = gx * (rows / 64);
    int t = blockIdx.x;
    if (t >= n) return;
    size_t r0, c0;
    tile_of<ORDER>(t, gx, r0, c0);
    float2 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = ld2<LD>(a + (r0 + ty + 16 * k) * cols + c0 + 2 * tx);
    while (true) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int r = ty + 16 * k;
            tile[r * 64 + swz<2, 1>(r, 2 * tx)] = v[k].x;
            tile[r * 64 + swz<2, 1>(r, 2 * tx + 1)] = v[k].y;
        }
        __syncthreads();
        const int tn = PERSIST ? t + (int)gridDim.x : n;
        size_t nr0 = 0, nc0 = 0;
        if (tn < n) {   // the next tile's loads, in flight while this tile is written out
            tile_of<ORDER>(tn, gx, nr0, nc0);
#pragma unroll
            for (int k = 0; k < 4; ++k) v[k] = ld2<LD>(a + (nr0 + ty + 16 * k) * cols + nc0 + 2 * tx);
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int c = ty + 16 * k;
            const float2 w = make_float2(tile[(2 * tx) * 64 + swz<2, 1>(2 * tx, c)],
                                         tile[(2 * tx + 1) * 64 + swz<2, 1>(2 * tx + 1, c)]);
            __stcs(reinterpret_cast<float2*>(b + (c0 + c) * rows + r0 + 2 * tx), w);
        }
        if (tn >= n) break;
        __syncthreads();   // everyone has read the tile before it is overwritten
        t = tn;
        r0 = nr0;
        c0 = nc0;
    }
}

// Session 8 (aimed at the H200's 94.3 %): transpose_t<64, 16, 2, 1, 1> (tile64_v2) with cache
// hints on its loads and stores:
//   LDH 0: ld.global; 1: ld.global.nc.L1::no_allocate; 2: ld.global with an L2 evict_first policy
//          (read once: leave the L2 to the writes); 3: both
//   STH 0: st.global; 1: st.global.cs (__stcs); 2: st.global.L1::no_allocate;
//          3: st.global with an L2 evict_first policy; 4: with an L2 evict_last policy
template <int LDH>
__device__ __forceinline__ float2 ldh(const float* p, unsigned long long pol)
{
    float2 v;
    if (LDH == 1)
        asm volatile("ld.global.nc.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
    else if (LDH == 2)
        asm volatile("ld.global.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;" : "=f"(v.x), "=f"(v.y) : "l"(p), "l"(pol));
    else if (LDH == 3)
        asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;"
                     : "=f"(v.x), "=f"(v.y) : "l"(p), "l"(pol));
    else
        v = *reinterpret_cast<const float2*>(p);
    return v;
}
template <int STH>
__device__ __forceinline__ void sth(float* p, float2 w, unsigned long long pol)
{
    if (STH == 1)
        __stcs(reinterpret_cast<float2*>(p), w);
    else if (STH == 2)
        asm volatile("st.global.L1::no_allocate.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(w.x), "f"(w.y) : "memory");
    else if (STH == 3 || STH == 4)
        asm volatile("st.global.L2::cache_hint.v2.f32 [%0], {%1, %2}, %3;" ::"l"(p), "f"(w.x), "f"(w.y), "l"(pol) : "memory");
    else
        *reinterpret_cast<float2*>(p) = w;
}

template <int LDH, int STH>
__global__ void __launch_bounds__(512)
transpose_h(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[64 * 64];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t r0 = (size_t)blockIdx.y * 64, c0 = (size_t)blockIdx.x * 64;
    unsigned long long lpol = 0, spol = 0;
    if (LDH >= 2) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(lpol));
    if (STH == 3) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(spol));
    if (STH == 4) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(spol));
    float2 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = ldh<LDH>(a + (r0 + ty + 16 * k) * cols + c0 + 2 * tx, lpol);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int r = ty + 16 * k;
        tile[r * 64 + swz<2, 1>(r, 2 * tx)] = v[k].x;
        tile[r * 64 + swz<2, 1>(r, 2 * tx + 1)] = v[k].y;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int c = ty + 16 * k;
        const float2 w = make_float2(tile[(2 * tx) * 64 + swz<2, 1>(2 * tx, c)],
                                     tile[(2 * tx + 1) * 64 + swz<2, 1>(2 * tx + 1, c)]);
        sth<STH>(b + (c0 + c) * rows + r0 + 2 * tx, w, spol);
    }
}

// Session 8: 16-byte loads and stores only. A TR x TC tile per block of 256 threads; every thread
// owns 4 x 4 blocks of the tile: it loads each with four float4 (four input rows; a warp covers
// 512 contiguous bytes of input per load), transposes it in registers and stores it as four float4
// into the transposed tile in shared memory, out[c][r] (TC rows of TR floats). Row c of out starts
// at 16-byte unit c * S + ((c / 4) % 8), S = TR / 4 + 8 units: the eight lanes of a quarter warp,
// eight consecutive 4-column blocks, hit eight different 16-byte bank groups, and so do eight
// consecutive 4-float pieces of one out row when they are read back. Write-out:
//   ST 0: float4 st.global; 1: float4 __stcs (a warp writes 512 contiguous bytes when TR >= 128,
//         else 512 / (TR * 4) rows of TR * 4 bytes);
//   ST 2: one bulk copy (cp.async.bulk shared::cta -> global, TR * 4 bytes) per out row, issued by
//         TC threads after a proxy fence and the barrier: the copy engine writes the rows out.
// Dynamic shared memory: TC * S * 16 bytes. Needs rows % TR == 0, cols % TC == 0.
template <int TR, int TC>
struct R4 {
    static constexpr int S = TR / 4 + 8;   // out row stride, 16-byte units
    static constexpr int BYTES = TC * S * 16;
    static __device__ __forceinline__ int base(int c) { return c * S + ((c >> 2) & 7); }   // 16-byte units
};

template <int TR, int TC, int ST>
__global__ void __launch_bounds__(256)
transpose_r4(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    typedef R4<TR, TC> L;
    constexpr int Q = TR * TC / 16 / 256;   // 4 x 4 blocks per thread
    static_assert(Q >= 1 && TC / 4 >= 8 && TR / 4 >= 8 && (TR * TC / 16) % 256 == 0, "tile shape");
    extern __shared__ float4 out4[];
    const int t = threadIdx.x;
    const size_t r0 = (size_t)blockIdx.y * TR, c0 = (size_t)blockIdx.x * TC;
    float4 v[Q][4];
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const int idx = t + 256 * q, cb = idx % (TC / 4), rb = idx / (TC / 4);
#pragma unroll
        for (int i = 0; i < 4; ++i)
            v[q][i] = *reinterpret_cast<const float4*>(a + (r0 + 4 * rb + i) * cols + c0 + 4 * cb);
    }
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const int idx = t + 256 * q, cb = idx % (TC / 4), rb = idx / (TC / 4);
        out4[L::base(4 * cb + 0) + rb] = make_float4(v[q][0].x, v[q][1].x, v[q][2].x, v[q][3].x);
        out4[L::base(4 * cb + 1) + rb] = make_float4(v[q][0].y, v[q][1].y, v[q][2].y, v[q][3].y);
        out4[L::base(4 * cb + 2) + rb] = make_float4(v[q][0].z, v[q][1].z, v[q][2].z, v[q][3].z);
        out4[L::base(4 * cb + 3) + rb] = make_float4(v[q][0].w, v[q][1].w, v[q][2].w, v[q][3].w);
    }
    if (ST == 2) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (ST == 2) {
        if (t < TC) {
            const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(out4 + L::base(t)));
            float* dst = b + (c0 + t) * rows + r0;
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                         ::"l"(dst), "r"(src), "n"(TR * 4) : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");   // before the block exits
        }
    } else {
#pragma unroll
        for (int q = 0; q < Q * 4; ++q) {
            const int idx = t + 256 * q, rb = idx % (TR / 4), c = idx / (TR / 4);
            const float4 w = out4[L::base(c) + rb];
            float4* dst = reinterpret_cast<float4*>(b + (c0 + c) * rows + r0 + 4 * rb);
            if (ST == 1) __stcs(dst, w);
            else *dst = w;
        }
    }
}
