// Fast SGEMM on CUDA cores (no tensor cores): C = A·B, square N×N, row-major float32.
// One kernel per step of the walk in book/part1/sgemm.md; each step changes one thing.
// All kernels take (A, B, C, N) and assume N is a multiple of 128.
//
//   sgemm_naive          one output per thread, 16×16 blocks, operands from global memory
//   sgemm_shared         16×16 shared-memory tiles (the papers' best: Szczepański v3, lab3)
//   sgemm_blocktile_1d   64×64×8 block tile, 512 threads, 8 outputs (a column strip) per thread
//   sgemm_blocktile_2d   128×128×8 block tile, 256 threads, 8×8 outputs per thread in registers
//   sgemm_vectorized     + float4 global loads, A stored transposed in shared memory, float4 LDS
//   sgemm_double_buffer  + two shared-memory stages, next tile prefetched into registers,
//                          one __syncthreads per tile
//   sgemm_warptile       + warp tiling: 8 warps of 64×32, each lane 2×2 sub-tiles of 4×4 so that
//                          every shared-memory read is conflict-free (or a broadcast); BK = 16
//                          (-D BK=8|16), padded A tile
#ifndef BK
#define BK 16
#endif

// ------------------------------------------------------------------ 1. naive
extern "C" __global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int N)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int k = 0; k < N; ++k)
        s += A[row * N + k] * B[k * N + col];
    C[row * N + col] = s;
}

// ------------------------------------------------------------------ 2. shared-memory tiles
#define SH_TS 16
extern "C" __global__ void sgemm_shared(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int N)
{
    __shared__ float As[SH_TS][SH_TS];
    __shared__ float Bs[SH_TS][SH_TS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * SH_TS + ty;
    const int col = blockIdx.x * SH_TS + tx;
    float s = 0.0f;
    for (int k0 = 0; k0 < N; k0 += SH_TS) {
        As[ty][tx] = A[row * N + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SH_TS; ++k)
            s += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = s;
}

// ------------------------------------------------------------------ 3. 1D block tiling
#define B1_BM 64
#define B1_BN 64
#define B1_BK 8
#define B1_TM 8   // 512 threads = B1_BM * B1_BN / B1_TM
extern "C" __global__ void __launch_bounds__(512) sgemm_blocktile_1d(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    __shared__ float As[B1_BM * B1_BK];   // As[m][k]
    __shared__ float Bs[B1_BK * B1_BN];   // Bs[k][n]
    const int t = threadIdx.x;
    const int threadCol = t % B1_BN;      // output column in the tile
    const int threadRow = t / B1_BN;      // 0..7: rows threadRow*8 .. +7
    const int innerRowA = t / B1_BK, innerColA = t % B1_BK;   // 64 × 8 tile of A
    const int innerRowB = t / B1_BN, innerColB = t % B1_BN;   // 8 × 64 tile of B
    const float* Ap = A + (size_t)blockIdx.y * B1_BM * N;
    const float* Bp = B + blockIdx.x * B1_BN;
    float acc[B1_TM];
#pragma unroll
    for (int i = 0; i < B1_TM; ++i) acc[i] = 0.0f;

    for (int k0 = 0; k0 < N; k0 += B1_BK) {
        As[innerRowA * B1_BK + innerColA] = Ap[innerRowA * N + innerColA];
        Bs[innerRowB * B1_BN + innerColB] = Bp[innerRowB * N + innerColB];
        __syncthreads();
        Ap += B1_BK;
        Bp += B1_BK * N;
#pragma unroll
        for (int d = 0; d < B1_BK; ++d) {
            const float b = Bs[d * B1_BN + threadCol];
#pragma unroll
            for (int i = 0; i < B1_TM; ++i)
                acc[i] += As[(threadRow * B1_TM + i) * B1_BK + d] * b;
        }
        __syncthreads();
    }
    float* Cp = C + (size_t)(blockIdx.y * B1_BM + threadRow * B1_TM) * N + blockIdx.x * B1_BN + threadCol;
#pragma unroll
    for (int i = 0; i < B1_TM; ++i)
        Cp[i * N] = acc[i];
}

// ------------------------------------------------------------------ 4. 2D register tiling
#define T_BM 128
#define T_BN 128
#define T_BK 8
#define T_TM 8
#define T_TN 8    // 256 threads = (128/8) × (128/8)
extern "C" __global__ void __launch_bounds__(256) sgemm_blocktile_2d(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    __shared__ float As[T_BM * T_BK];   // As[m][k]
    __shared__ float Bs[T_BK * T_BN];   // Bs[k][n]
    const int t = threadIdx.x;
    const int threadCol = t % (T_BN / T_TN);   // 0..15
    const int threadRow = t / (T_BN / T_TN);   // 0..15
    const int innerRowA = t / T_BK, innerColA = t % T_BK;   // 32 rows per pass, 4 passes
    const int innerRowB = t / T_BN, innerColB = t % T_BN;   // 2 rows per pass, 4 passes
    const float* Ap = A + (size_t)blockIdx.y * T_BM * N;
    const float* Bp = B + blockIdx.x * T_BN;
    float acc[T_TM][T_TN];
#pragma unroll
    for (int i = 0; i < T_TM; ++i)
#pragma unroll
        for (int j = 0; j < T_TN; ++j) acc[i][j] = 0.0f;
    float regM[T_TM], regN[T_TN];

    for (int k0 = 0; k0 < N; k0 += T_BK) {
#pragma unroll
        for (int off = 0; off < T_BM; off += 256 / T_BK)
            As[(innerRowA + off) * T_BK + innerColA] = Ap[(innerRowA + off) * N + innerColA];
#pragma unroll
        for (int off = 0; off < T_BK; off += 256 / T_BN)
            Bs[(innerRowB + off) * T_BN + innerColB] = Bp[(innerRowB + off) * N + innerColB];
        __syncthreads();
        Ap += T_BK;
        Bp += T_BK * N;
#pragma unroll
        for (int d = 0; d < T_BK; ++d) {
#pragma unroll
            for (int i = 0; i < T_TM; ++i) regM[i] = As[(threadRow * T_TM + i) * T_BK + d];
#pragma unroll
            for (int j = 0; j < T_TN; ++j) regN[j] = Bs[d * T_BN + threadCol * T_TN + j];
#pragma unroll
            for (int i = 0; i < T_TM; ++i)
#pragma unroll
                for (int j = 0; j < T_TN; ++j) acc[i][j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < T_TM; ++i) {
        float* Cp = C + (size_t)(blockIdx.y * T_BM + threadRow * T_TM + i) * N + blockIdx.x * T_BN + threadCol * T_TN;
#pragma unroll
        for (int j = 0; j < T_TN; ++j) Cp[j] = acc[i][j];
    }
}

// ------------------------------------------------------------------ 5. vectorised (float4, A^T in smem)
// Same tiles as step 4. Each thread loads one float4 of A (stored transposed: As[k][m]) and one
// float4 of B per tile; the inner loop reads 2+2 float4 from shared memory for 64 FMAs.
__device__ __forceinline__ void vec_load_tile(const float* __restrict__ A, const float* __restrict__ B,
                                              int N, int k0, int t, float4& ra, float4& rb)
{
    const int rowA = t >> 1, c4A = t & 1;     // 128 rows × 2 float4
    const int rowB = t >> 5, c4B = t & 31;    // 8 rows × 32 float4
    ra = *reinterpret_cast<const float4*>(&A[(size_t)(blockIdx.y * T_BM + rowA) * N + k0 + c4A * 4]);
    rb = *reinterpret_cast<const float4*>(&B[(size_t)(k0 + rowB) * N + blockIdx.x * T_BN + c4B * 4]);
}
__device__ __forceinline__ void vec_store_tile(float* As, float* Bs, int t, const float4& ra, const float4& rb)
{
    const int rowA = t >> 1, c4A = t & 1;
    const int rowB = t >> 5, c4B = t & 31;
    As[(c4A * 4 + 0) * T_BM + rowA] = ra.x;
    As[(c4A * 4 + 1) * T_BM + rowA] = ra.y;
    As[(c4A * 4 + 2) * T_BM + rowA] = ra.z;
    As[(c4A * 4 + 3) * T_BM + rowA] = ra.w;
    *reinterpret_cast<float4*>(&Bs[rowB * T_BN + c4B * 4]) = rb;
}
__device__ __forceinline__ void vec_compute_tile(const float* As, const float* Bs, int threadRow, int threadCol,
                                                 float (&acc)[T_TM][T_TN])
{
#pragma unroll
    for (int d = 0; d < T_BK; ++d) {
        float regM[T_TM], regN[T_TN];
        const float4 m0 = *reinterpret_cast<const float4*>(&As[d * T_BM + threadRow * T_TM]);
        const float4 m1 = *reinterpret_cast<const float4*>(&As[d * T_BM + threadRow * T_TM + 4]);
        const float4 n0 = *reinterpret_cast<const float4*>(&Bs[d * T_BN + threadCol * T_TN]);
        const float4 n1 = *reinterpret_cast<const float4*>(&Bs[d * T_BN + threadCol * T_TN + 4]);
        regM[0] = m0.x; regM[1] = m0.y; regM[2] = m0.z; regM[3] = m0.w;
        regM[4] = m1.x; regM[5] = m1.y; regM[6] = m1.z; regM[7] = m1.w;
        regN[0] = n0.x; regN[1] = n0.y; regN[2] = n0.z; regN[3] = n0.w;
        regN[4] = n1.x; regN[5] = n1.y; regN[6] = n1.z; regN[7] = n1.w;
#pragma unroll
        for (int i = 0; i < T_TM; ++i)
#pragma unroll
            for (int j = 0; j < T_TN; ++j) acc[i][j] += regM[i] * regN[j];
    }
}
__device__ __forceinline__ void vec_write_c(float* __restrict__ C, int N, int threadRow, int threadCol,
                                            const float (&acc)[T_TM][T_TN])
{
#pragma unroll
    for (int i = 0; i < T_TM; ++i) {
        float* Cp = C + (size_t)(blockIdx.y * T_BM + threadRow * T_TM + i) * N + blockIdx.x * T_BN + threadCol * T_TN;
        *reinterpret_cast<float4*>(&Cp[0]) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(&Cp[4]) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

extern "C" __global__ void __launch_bounds__(256) sgemm_vectorized(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    __shared__ __align__(16) float As[T_BK * T_BM];   // As[k][m] (transposed)
    __shared__ __align__(16) float Bs[T_BK * T_BN];   // Bs[k][n]
    const int t = threadIdx.x;
    const int threadCol = t % (T_BN / T_TN), threadRow = t / (T_BN / T_TN);
    float acc[T_TM][T_TN];
#pragma unroll
    for (int i = 0; i < T_TM; ++i)
#pragma unroll
        for (int j = 0; j < T_TN; ++j) acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < N; k0 += T_BK) {
        float4 ra, rb;
        vec_load_tile(A, B, N, k0, t, ra, rb);
        vec_store_tile(As, Bs, t, ra, rb);
        __syncthreads();
        vec_compute_tile(As, Bs, threadRow, threadCol, acc);
        __syncthreads();
    }
    vec_write_c(C, N, threadRow, threadCol, acc);
}

// ------------------------------------------------------------------ 6. double buffering
extern "C" __global__ void __launch_bounds__(256) sgemm_double_buffer(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    __shared__ __align__(16) float As[2][T_BK * T_BM];
    __shared__ __align__(16) float Bs[2][T_BK * T_BN];
    const int t = threadIdx.x;
    const int threadCol = t % (T_BN / T_TN), threadRow = t / (T_BN / T_TN);
    float acc[T_TM][T_TN];
#pragma unroll
    for (int i = 0; i < T_TM; ++i)
#pragma unroll
        for (int j = 0; j < T_TN; ++j) acc[i][j] = 0.0f;
    const int tiles = N / T_BK;
    float4 ra, rb;
    vec_load_tile(A, B, N, 0, t, ra, rb);
    vec_store_tile(As[0], Bs[0], t, ra, rb);
    __syncthreads();
    for (int kt = 0; kt < tiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < tiles;
        if (more) vec_load_tile(A, B, N, (kt + 1) * T_BK, t, ra, rb);   // in flight during the FMAs
        vec_compute_tile(As[cur], Bs[cur], threadRow, threadCol, acc);
        if (more) vec_store_tile(As[cur ^ 1], Bs[cur ^ 1], t, ra, rb);  // the other stage is free:
        __syncthreads();                                                 // everyone left it a sync ago
    }
    vec_write_c(C, N, threadRow, threadCol, acc);
}

// ------------------------------------------------------------------ 7. warp tiling
// Block tile 128×128×BK, 256 threads = 8 warps arranged 2 (M) × 4 (N); warp tile 64×32.
// Lanes arranged 8 (M) × 4 (N); lane (lm, ln) owns rows  wm + {0,32} + 4*lm + {0..3}
//                                           and columns wn + {0,16} + 4*ln + {0..3}: 8×8 outputs.
// Per k: 2 float4 of A^T (8 lanes of a quarter-warp read 128 contiguous bytes: conflict-free) and
// 2 float4 of B (a quarter-warp shares ln: broadcast) for 64 FMAs.
// Two shared-memory stages + register prefetch as in step 6; the A tile is padded (stride BM+4).
#define W_BM 128
#define W_BN 128
#define W_AS (W_BM + 4)
#define W_NT 256
#define W_LD (BK / 8)          // float4 loads per thread per tile, for A and for B each
#if (BK != 8) && (BK != 16)
#error "sgemm_warptile: BK must be 8 or 16"
#endif
extern "C" __global__ void __launch_bounds__(W_NT, 2) sgemm_warptile(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int N)
{
    __shared__ __align__(16) float As[2][BK][W_AS];   // As[s][k][m]
    __shared__ __align__(16) float Bs[2][BK][W_BN];   // Bs[s][k][n]
    const int t = threadIdx.x;
    const int warp = t >> 5, lane = t & 31;
    const int wm = (warp >> 2) * 64;    // warp's first row in the block tile
    const int wn = (warp & 3) * 32;     // warp's first column
    const int lm = (lane & 7) * 4;      // lane's first row inside a 32-row sub-tile
    const int ln = (lane >> 3) * 4;     // lane's first column inside a 16-column sub-tile

    const float* Ab = A + (size_t)blockIdx.y * W_BM * N;
    const float* Bb = B + blockIdx.x * W_BN;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    float4 ra[W_LD], rb[W_LD];
    const int tiles = N / BK;

#define W_LOAD(kt)                                                                              \
    _Pragma("unroll") for (int p = 0; p < W_LD; ++p) {                                          \
        const int idx = t + p * W_NT;                                                           \
        const int r = idx / (BK / 4), c = idx % (BK / 4);      /* A: 128 rows × BK/4 float4 */  \
        ra[p] = *reinterpret_cast<const float4*>(&Ab[(size_t)r * N + (kt) * BK + c * 4]);       \
        const int rB = idx >> 5, cB = idx & 31;                /* B: BK rows × 32 float4 */     \
        rb[p] = *reinterpret_cast<const float4*>(&Bb[(size_t)((kt) * BK + rB) * N + cB * 4]);   \
    }
#define W_STORE(s)                                                                              \
    _Pragma("unroll") for (int p = 0; p < W_LD; ++p) {                                          \
        const int idx = t + p * W_NT;                                                           \
        const int r = idx / (BK / 4), c = idx % (BK / 4);                                       \
        As[s][c * 4 + 0][r] = ra[p].x;                                                          \
        As[s][c * 4 + 1][r] = ra[p].y;                                                          \
        As[s][c * 4 + 2][r] = ra[p].z;                                                          \
        As[s][c * 4 + 3][r] = ra[p].w;                                                          \
        const int rB = idx >> 5, cB = idx & 31;                                                 \
        *reinterpret_cast<float4*>(&Bs[s][rB][cB * 4]) = rb[p];                                 \
    }

    W_LOAD(0)
    W_STORE(0)
    __syncthreads();

    for (int kt = 0; kt < tiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < tiles;
        if (more) { W_LOAD(kt + 1) }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[cur][k][wm + lm]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[cur][k][wm + 32 + lm]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][k][wn + ln]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][k][wn + 16 + ln]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }
        if (more) { W_STORE(cur ^ 1) }
        __syncthreads();
    }
#undef W_LOAD
#undef W_STORE

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = blockIdx.y * W_BM + wm + (i >> 2) * 32 + lm + (i & 3);
        float* Cp = C + (size_t)row * N + blockIdx.x * W_BN + wn + ln;
        *reinterpret_cast<float4*>(&Cp[0])  = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(&Cp[16]) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}
