// SGEMM candidates (scripts/kernel_candidates.py): C = A·B, square N x N, row-major float32, FP32
// FMAs only. A generalisation of kernels/sgemm/sgemm.cu's sgemm_warptile:
//   block tile BM x BN x BKT, warps of WM x WN; lanes 8 (M) x 4 (N), each lane owns (WM/32) x (WN/16)
//   sub-tiles of 4 x 4, so every shared-memory read is a conflict-free float4 (A) or a broadcast (B);
//   A stored transposed in shared memory (padded by 4), two shared stages, the next tile prefetched
//   into registers during the FMAs, and the next k's fragments prefetched into registers
//   (fragment double buffering); GROUP > 1: blocks rasterised in groups of GROUP block-rows (L2 reuse
//   of B across a wave). MINB: __launch_bounds__ minimum blocks per SM (register budget).
// Needs N % BM == 0, N % BN == 0, N % BKT == 0; the grid is 1-D, (N/BM) * (N/BN) blocks.
template <int BM, int BN, int BKT, int WM, int WN, int MINB, int GROUP>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
sgemm_t(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    constexpr int NT = (BM / WM) * (BN / WN) * 32;
    constexpr int WARPS_N = BN / WN;
    constexpr int MI = WM / 32, NI = WN / 16;
    constexpr int AS = BM + 4;
    constexpr int A4 = BM * BKT / 4, B4 = BKT * BN / 4;   // float4 per tile
    constexpr int LA = (A4 + NT - 1) / NT, LB = (B4 + NT - 1) / NT;
    static_assert(WM % 32 == 0 && WN % 16 == 0 && BKT % 4 == 0, "tile shape");
    __shared__ __align__(16) float As[2][BKT][AS];   // As[s][k][m]
    __shared__ __align__(16) float Bs[2][BKT][BN];   // Bs[s][k][n]

    const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
    const int lm = (lane & 7) * 4, ln = (lane >> 3) * 4;

    const int num_m = N / BM, num_n = N / BN;
    const int pid = blockIdx.x;
    int bm, bn;
    if (GROUP > 1) {
        const int in_group = GROUP * num_n;
        const int first_m = (pid / in_group) * GROUP;
        const int gsz = min(num_m - first_m, GROUP);
        bm = first_m + (pid % in_group) % gsz;
        bn = (pid % in_group) / gsz;
    } else {
        bm = pid / num_n;
        bn = pid % num_n;
    }
    const float* Ab = A + (size_t)bm * BM * N;
    const float* Bb = B + (size_t)bn * BN;

    float acc[4 * MI][4 * NI];
#pragma unroll
    for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
        for (int j = 0; j < 4 * NI; ++j) acc[i][j] = 0.0f;

    float4 ra[LA], rb[LB];
    auto load = [&](int kt) {
#pragma unroll
        for (int p = 0; p < LA; ++p) {
            const int idx = t + p * NT;
            if (A4 % NT == 0 || idx < A4) {
                const int r = idx / (BKT / 4), c = idx % (BKT / 4);
                ra[p] = *reinterpret_cast<const float4*>(&Ab[(size_t)r * N + kt * BKT + c * 4]);
            }
        }
#pragma unroll
        for (int p = 0; p < LB; ++p) {
            const int idx = t + p * NT;
            if (B4 % NT == 0 || idx < B4) {
                const int r = idx / (BN / 4), c = idx % (BN / 4);
                rb[p] = *reinterpret_cast<const float4*>(&Bb[(size_t)(kt * BKT + r) * N + c * 4]);
            }
        }
    };
    auto store = [&](int s) {
#pragma unroll
        for (int p = 0; p < LA; ++p) {
            const int idx = t + p * NT;
            if (A4 % NT == 0 || idx < A4) {
                const int r = idx / (BKT / 4), c = idx % (BKT / 4);
                As[s][c * 4 + 0][r] = ra[p].x;
                As[s][c * 4 + 1][r] = ra[p].y;
                As[s][c * 4 + 2][r] = ra[p].z;
                As[s][c * 4 + 3][r] = ra[p].w;
            }
        }
#pragma unroll
        for (int p = 0; p < LB; ++p) {
            const int idx = t + p * NT;
            if (B4 % NT == 0 || idx < B4) {
                const int r = idx / (BN / 4), c = idx % (BN / 4);
                *reinterpret_cast<float4*>(&Bs[s][r][c * 4]) = rb[p];
            }
        }
    };
    float fa[2][4 * MI], fb[2][4 * NI];
    auto frag = [&](int s, int k, int f) {
#pragma unroll
        for (int i = 0; i < MI; ++i) {
            const float4 x = *reinterpret_cast<const float4*>(&As[s][k][wm + i * 32 + lm]);
            fa[f][4 * i + 0] = x.x; fa[f][4 * i + 1] = x.y; fa[f][4 * i + 2] = x.z; fa[f][4 * i + 3] = x.w;
        }
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const float4 y = *reinterpret_cast<const float4*>(&Bs[s][k][wn + j * 16 + ln]);
            fb[f][4 * j + 0] = y.x; fb[f][4 * j + 1] = y.y; fb[f][4 * j + 2] = y.z; fb[f][4 * j + 3] = y.w;
        }
    };

    const int tiles = N / BKT;
    load(0);
    store(0);
    __syncthreads();
    for (int kt = 0; kt < tiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < tiles;
        if (more) load(kt + 1);   // in flight during the FMAs
        frag(cur, 0, 0);
#pragma unroll
        for (int k = 0; k < BKT; ++k) {
            if (k + 1 < BKT) frag(cur, k + 1, (k + 1) & 1);
#pragma unroll
            for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
                for (int j = 0; j < 4 * NI; ++j) acc[i][j] += fa[k & 1][i] * fb[k & 1][j];
        }
        if (more) store(cur ^ 1);   // everyone left that stage a sync ago
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const size_t row = (size_t)bm * BM + wm + i * 32 + lm + r;
            float* Cp = C + row * N + (size_t)bn * BN + wn + ln;
#pragma unroll
            for (int j = 0; j < NI; ++j)
                *reinterpret_cast<float4*>(&Cp[j * 16]) =
                    make_float4(acc[4 * i + r][4 * j + 0], acc[4 * i + r][4 * j + 1],
                                acc[4 * i + r][4 * j + 2], acc[4 * i + r][4 * j + 3]);
        }
}

// The same warp tiling fed by cp.async (global -> shared without registers) through STAGES
// shared-memory stages (a (STAGES-1)-tile-deep pipeline, one __syncthreads per tile): B rows
// copied 16 bytes at a time, A scattered 4 bytes at a time into its transposed layout (As[k][m];
// a warp's 32 copies land in 32 distinct banks). Fragment double buffering as above.
__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async4(void* dst, const void* src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_addr(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async16(void* dst, const void* src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
template <int PENDING>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

template <int BM, int BN, int BKT, int WM, int WN, int MINB, int GROUP, int STAGES>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
sgemm_async(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    constexpr int NT = (BM / WM) * (BN / WN) * 32;
    constexpr int WARPS_N = BN / WN;
    constexpr int MI = WM / 32, NI = WN / 16;
    constexpr int AS = BM + 4;
    constexpr int A1 = BM * BKT, B4 = BKT * BN / 4;   // A in floats, B in float4
    constexpr int LA = (A1 + NT - 1) / NT, LB = (B4 + NT - 1) / NT;
    static_assert(WM % 32 == 0 && WN % 16 == 0 && BKT % 4 == 0 && STAGES >= 2, "tile shape");
    __shared__ __align__(16) float As[STAGES][BKT][AS];
    __shared__ __align__(16) float Bs[STAGES][BKT][BN];

    const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
    const int lm = (lane & 7) * 4, ln = (lane >> 3) * 4;

    const int num_m = N / BM, num_n = N / BN;
    const int pid = blockIdx.x;
    int bm, bn;
    if (GROUP > 1) {
        const int in_group = GROUP * num_n;
        const int first_m = (pid / in_group) * GROUP;
        const int gsz = min(num_m - first_m, GROUP);
        bm = first_m + (pid % in_group) % gsz;
        bn = (pid % in_group) / gsz;
    } else {
        bm = pid / num_n;
        bn = pid % num_n;
    }
    const float* Ab = A + (size_t)bm * BM * N;
    const float* Bb = B + (size_t)bn * BN;

    float acc[4 * MI][4 * NI];
#pragma unroll
    for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
        for (int j = 0; j < 4 * NI; ++j) acc[i][j] = 0.0f;

    auto issue = [&](int kt, int s) {
#pragma unroll
        for (int p = 0; p < LA; ++p) {
            const int idx = t + p * NT;
            if (A1 % NT == 0 || idx < A1) {
                const int m = idx / BKT, k = idx % BKT;
                cp_async4(&As[s][k][m], &Ab[(size_t)m * N + kt * BKT + k]);
            }
        }
#pragma unroll
        for (int p = 0; p < LB; ++p) {
            const int idx = t + p * NT;
            if (B4 % NT == 0 || idx < B4) {
                const int r = idx / (BN / 4), c = idx % (BN / 4);
                cp_async16(&Bs[s][r][c * 4], &Bb[(size_t)(kt * BKT + r) * N + c * 4]);
            }
        }
    };
    float fa[2][4 * MI], fb[2][4 * NI];
    auto frag = [&](int s, int k, int f) {
#pragma unroll
        for (int i = 0; i < MI; ++i) {
            const float4 x = *reinterpret_cast<const float4*>(&As[s][k][wm + i * 32 + lm]);
            fa[f][4 * i + 0] = x.x; fa[f][4 * i + 1] = x.y; fa[f][4 * i + 2] = x.z; fa[f][4 * i + 3] = x.w;
        }
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const float4 y = *reinterpret_cast<const float4*>(&Bs[s][k][wn + j * 16 + ln]);
            fb[f][4 * j + 0] = y.x; fb[f][4 * j + 1] = y.y; fb[f][4 * j + 2] = y.z; fb[f][4 * j + 3] = y.w;
        }
    };

    const int tiles = N / BKT;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles) issue(s, s);
        cp_async_commit();   // always commit, so that group counting stays uniform
    }
    for (int kt = 0; kt < tiles; ++kt) {
        cp_async_wait<STAGES - 2>();   // tile kt has landed (for this thread's copies) ...
        __syncthreads();               // ... and everyone's; everyone has left stage (kt-1) % STAGES
        const int nxt = kt + STAGES - 1;
        if (nxt < tiles) issue(nxt, nxt % STAGES);
        cp_async_commit();
        const int cur = kt % STAGES;
        frag(cur, 0, 0);
#pragma unroll
        for (int k = 0; k < BKT; ++k) {
            if (k + 1 < BKT) frag(cur, k + 1, (k + 1) & 1);
#pragma unroll
            for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
                for (int j = 0; j < 4 * NI; ++j) acc[i][j] += fa[k & 1][i] * fb[k & 1][j];
        }
    }
    cp_async_wait<0>();

#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const size_t row = (size_t)bm * BM + wm + i * 32 + lm + r;
            float* Cp = C + row * N + (size_t)bn * BN + wn + ln;
#pragma unroll
            for (int j = 0; j < NI; ++j)
                *reinterpret_cast<float4*>(&Cp[j * 16]) =
                    make_float4(acc[4 * i + r][4 * j + 0], acc[4 * i + r][4 * j + 1],
                                acc[4 * i + r][4 * j + 2], acc[4 * i + r][4 * j + 3]);
        }
}
