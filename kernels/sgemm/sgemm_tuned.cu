// Step 7 tuned (the candidate search of commit 4508dbd: sgemm_t<BM, BN, 8, 64, 32, MINB, GROUP>):
// C = A·B, square N×N, row-major float32, FP32 FMAs only.
//
// sgemm_warptile_bk8: the warp-tiled kernel of sgemm.cu with k-depth 8 and one more prefetch.
//   Block tile BM × BN × 8 (default 128 × 128 × 8, 256 threads); warp tiles of 64 × 32; the lanes
//   of a warp form 8 (M) × 4 (N), and each owns 2 × 2 sub-tiles of 4 × 4 outputs spaced 32 rows
//   and 16 columns apart, so every shared-memory read is a conflict-free float4 (A) or a
//   broadcast (B). A is stored transposed (As[k][m], rows padded by 4 floats); two shared stages;
//   the next tile is loaded from global memory into registers (float4) during the FMAs and
//   stored into the other stage afterwards (one __syncthreads per tile); and the fragments of
//   step k + 1 are read from shared memory while step k's 64 FMAs run (fragment double
//   buffering). __launch_bounds__(threads, MINB) caps the registers so MINB blocks share an SM.
//   GROUP > 1: the 1-D grid is rasterised in groups of GROUP block-rows, so the blocks running
//   together share columns of B in L2.
//   -D BN=64 -D MINB=4: 128 × 64 tiles of four warps, four blocks per SM: the same 8 × 8 outputs
//   and shared-memory reads per thread, but a barrier stalls 4 warps instead of 8.
// Needs N % BM == 0, N % BN == 0; the grid is (N/BM)·(N/BN) blocks, 1-D.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef MINB
#define MINB 2
#endif
#ifndef GROUP
#define GROUP 1
#endif
#define TK 8                                  // k-depth of a tile
#define WM 64                                 // warp tile
#define WN 32
#define WARPS_N (BN / WN)
#define NT ((BM / WM) * WARPS_N * 32)         // threads per block
#define MI (WM / 32)                          // 4×4 sub-tiles per lane, down and across
#define NI (WN / 16)
#define AS (BM + 4)                           // padded row of the transposed A tile
#define A4 (BM * TK / 4)                      // float4 per A tile, per B tile
#define B4 (TK * BN / 4)
#define LA ((A4 + NT - 1) / NT)               // float4 loads per thread per tile
#define LB ((B4 + NT - 1) / NT)

extern "C" __global__ void __launch_bounds__(NT, MINB)
sgemm_warptile_bk8(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    __shared__ __align__(16) float As[2][TK][AS];   // As[stage][k][m]
    __shared__ __align__(16) float Bs[2][TK][BN];   // Bs[stage][k][n]

    const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
    const int lm = (lane & 7) * 4, ln = (lane >> 3) * 4;

    // Which tile of C this block computes.
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

    float4 ra[LA], rb[LB];   // the next tile, on its way from global memory
    float fa[2][4 * MI], fb[2][4 * NI];   // fragments of steps k and k + 1

    // Tile kt of A (BM × TK) and B (TK × BN) into registers, float4 at a time.
    auto load_tile = [&](int kt) {
#pragma unroll
        for (int p = 0; p < LA; ++p) {
            const int idx = t + p * NT;
            if (A4 % NT == 0 || idx < A4) {
                const int r = idx / (TK / 4), c = idx % (TK / 4);
                ra[p] = *reinterpret_cast<const float4*>(&Ab[(size_t)r * N + kt * TK + c * 4]);
            }
        }
#pragma unroll
        for (int p = 0; p < LB; ++p) {
            const int idx = t + p * NT;
            if (B4 % NT == 0 || idx < B4) {
                const int r = idx / (BN / 4), c = idx % (BN / 4);
                rb[p] = *reinterpret_cast<const float4*>(&Bb[(size_t)(kt * TK + r) * N + c * 4]);
            }
        }
    };
    // The registers into shared stage s (A transposed).
    auto store_tile = [&](int s) {
#pragma unroll
        for (int p = 0; p < LA; ++p) {
            const int idx = t + p * NT;
            if (A4 % NT == 0 || idx < A4) {
                const int r = idx / (TK / 4), c = idx % (TK / 4);
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
    // This lane's fragments of step k from stage s into fragment buffer f.
    auto load_fragments = [&](int s, int k, int f) {
#pragma unroll
        for (int i = 0; i < MI; ++i) {
            const float4 x = *reinterpret_cast<const float4*>(&As[s][k][wm + i * 32 + lm]);
            fa[f][4 * i + 0] = x.x;
            fa[f][4 * i + 1] = x.y;
            fa[f][4 * i + 2] = x.z;
            fa[f][4 * i + 3] = x.w;
        }
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const float4 y = *reinterpret_cast<const float4*>(&Bs[s][k][wn + j * 16 + ln]);
            fb[f][4 * j + 0] = y.x;
            fb[f][4 * j + 1] = y.y;
            fb[f][4 * j + 2] = y.z;
            fb[f][4 * j + 3] = y.w;
        }
    };

    const int tiles = N / TK;
    load_tile(0);
    store_tile(0);
    __syncthreads();
    for (int kt = 0; kt < tiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < tiles;
        if (more) load_tile(kt + 1);   // in flight during the FMAs
        load_fragments(cur, 0, 0);
#pragma unroll
        for (int k = 0; k < TK; ++k) {
            if (k + 1 < TK) load_fragments(cur, k + 1, (k + 1) & 1);
#pragma unroll
            for (int i = 0; i < 4 * MI; ++i)
#pragma unroll
                for (int j = 0; j < 4 * NI; ++j) acc[i][j] += fa[k & 1][i] * fb[k & 1][j];
        }
        if (more) store_tile(cur ^ 1);   // everyone left that stage a __syncthreads ago
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
