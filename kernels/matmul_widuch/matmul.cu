// J. Widuch (2010): integer matrix product C = A·B, N×N, row-major int matrices.
//
// Twelve kernels = {global memory only, shared memory} × {block M×M, block M×2M}
//                  × {2D grid (one launch), 1D grid (one launch per block row),
//                     single-block grid (one launch per block)}.
// Names follow the paper (GPU_SM_2D_M_2M is printed in section 3.2.1; the others are
// "done the same way" there, so we write them in the same style).
//
// -D M=<block side>.  N must be a multiple of 2*M (the paper: N mod 2M = 0).
// Block M×M   = dim3(M, M):   one output per thread.
// Block M×2M  = dim3(2*M, M): each thread computes c[i][j] and c[i+M][j]; the block
//               computes a 2M×2M tile of C; shared tiles sm_a[2M][M], sm_b[M][2M].
//
// Integer arithmetic wraps (two's complement); the inputs are small enough that it never does.

#ifndef M
#define M 16
#endif

// ---------------------------------------------------------------- global memory only

// Block M×M: the thread (tx, ty) of block (bx, by) computes c[by*M + ty][bx*M + tx].
__device__ __forceinline__ void gm_m_m(const int* a, const int* b, int* c, int N, int bx, int by)
{
    int row = by * M + threadIdx.y;
    int col = bx * M + threadIdx.x;
    int s = 0;
    for (int k = 0; k < N; k++)
        s += a[row * N + k] * b[k * N + col];
    c[row * N + col] = s;
}

// Block M×2M (dim3(2M, M)): the thread computes c[i][j] and c[i+M][j] with
// i = 2M*by + ty, j = 2M*bx + tx, reading A and B straight from global memory.
__device__ __forceinline__ void gm_m_2m(const int* a, const int* b, int* c, int N, int bx, int by)
{
    int i = 2 * M * by + threadIdx.y;
    int j = 2 * M * bx + threadIdx.x;
    int c_1 = 0, c_2 = 0;
    for (int k = 0; k < N; k++) {
        int bkj = b[k * N + j];
        c_1 += a[i * N + k] * bkj;
        c_2 += a[(i + M) * N + k] * bkj;
    }
    c[i * N + j] = c_1;
    c[(i + M) * N + j] = c_2;
}

// ---------------------------------------------------------------- shared memory

// Block M×M: two M×M shared tiles; each thread copies one element of A and one of B per
// step (N/M steps). Written in the style of the paper's printed M×2M kernel (A's tile is
// filled with threadIdx.x running down the rows).
__device__ __forceinline__ void sm_m_m(const int* a, const int* b, int* c, int N, int bx, int by)
{
    __shared__ int sm_a[M][M], sm_b[M][M];
    int a_pocz = N * M * by;          // first element of the block's row strip of A
    int a_kon = a_pocz + N - 1;
    int b_pocz = M * bx;              // first element of the block's column strip of B
    int s = 0;
    for (int i = a_pocz, j = b_pocz; i <= a_kon; i += M, j += N * M) {
        sm_a[threadIdx.x][threadIdx.y] = a[i + N * threadIdx.x + threadIdx.y];
        sm_b[threadIdx.y][threadIdx.x] = b[j + N * threadIdx.y + threadIdx.x];
        __syncthreads();
        for (int k = 0; k < M; k++)
            s += sm_a[threadIdx.y][k] * sm_b[k][threadIdx.x];
        __syncthreads();
    }
    c[a_pocz + b_pocz + N * threadIdx.y + threadIdx.x] = s;
}

// Block M×2M: the paper's GPU_SM_2D_M_2M body (section 3.2.1), with blockIdx replaced by
// (bx, by) so the 1D-grid and single-block versions can pass them in.
__device__ __forceinline__ void sm_m_2m(const int* a, const int* b, int* c, int N, int bx, int by)
{
    // first and last index of the row strip of A (2M rows), first index of B's strip (2M columns)
    int a_pocz = N * (2 * M) * by;
    int a_kon = a_pocz + N - 1;
    int b_pocz = (2 * M) * bx;
    int c_1 = 0, c_2 = 0;
    __shared__ int sm_a[2 * M][M], sm_b[M][2 * M];
    for (int i = a_pocz, j = b_pocz; i <= a_kon; i += M, j += N * M) {
        sm_a[threadIdx.x][threadIdx.y] = a[i + N * threadIdx.x + threadIdx.y];
        sm_b[threadIdx.y][threadIdx.x] = b[j + N * threadIdx.y + threadIdx.x];
        __syncthreads();
        for (int k = 0; k < M; k++) {
            c_1 += sm_a[threadIdx.y][k] * sm_b[k][threadIdx.x];
            c_2 += sm_a[threadIdx.y + M][k] * sm_b[k][threadIdx.x];
        }
        __syncthreads();
    }
    c[a_pocz + b_pocz + N * threadIdx.y + threadIdx.x] = c_1;
    c[a_pocz + b_pocz + N * threadIdx.y + threadIdx.x + N * M] = c_2;
}

// ---------------------------------------------------------------- the 12 kernels
// 2D grid: grid (N/M, N/M) resp. (N/2M, N/2M), one launch.
// 1D grid: grid N/M resp. N/2M blocks; the host launches it once per block row y.
// single block: grid 1; the host launches it once per block, blk = y * K + x (y outer, x inner,
//               as the paper's two nested loops), K = N/M resp. N/2M.

extern "C" __global__ void GPU_GM_2D_M_M(const int* a, const int* b, int* c, int N)
{ gm_m_m(a, b, c, N, blockIdx.x, blockIdx.y); }
extern "C" __global__ void GPU_GM_1D_M_M(const int* a, const int* b, int* c, int N, int y)
{ gm_m_m(a, b, c, N, blockIdx.x, y); }
extern "C" __global__ void GPU_GM_1_M_M(const int* a, const int* b, int* c, int N, int blk)
{ int K = N / M; gm_m_m(a, b, c, N, blk % K, blk / K); }

extern "C" __global__ void GPU_GM_2D_M_2M(const int* a, const int* b, int* c, int N)
{ gm_m_2m(a, b, c, N, blockIdx.x, blockIdx.y); }
extern "C" __global__ void GPU_GM_1D_M_2M(const int* a, const int* b, int* c, int N, int y)
{ gm_m_2m(a, b, c, N, blockIdx.x, y); }
extern "C" __global__ void GPU_GM_1_M_2M(const int* a, const int* b, int* c, int N, int blk)
{ int K = N / (2 * M); gm_m_2m(a, b, c, N, blk % K, blk / K); }

extern "C" __global__ void GPU_SM_2D_M_M(const int* a, const int* b, int* c, int N)
{ sm_m_m(a, b, c, N, blockIdx.x, blockIdx.y); }
extern "C" __global__ void GPU_SM_1D_M_M(const int* a, const int* b, int* c, int N, int y)
{ sm_m_m(a, b, c, N, blockIdx.x, y); }
extern "C" __global__ void GPU_SM_1_M_M(const int* a, const int* b, int* c, int N, int blk)
{ int K = N / M; sm_m_m(a, b, c, N, blk % K, blk / K); }

extern "C" __global__ void GPU_SM_2D_M_2M(const int* a, const int* b, int* c, int N)
{ sm_m_2m(a, b, c, N, blockIdx.x, blockIdx.y); }
extern "C" __global__ void GPU_SM_1D_M_2M(const int* a, const int* b, int* c, int N, int y)
{ sm_m_2m(a, b, c, N, blockIdx.x, y); }
extern "C" __global__ void GPU_SM_1_M_2M(const int* a, const int* b, int* c, int N, int blk)
{ int K = N / (2 * M); sm_m_2m(a, b, c, N, blk % K, blk / K); }
