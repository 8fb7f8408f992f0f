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
