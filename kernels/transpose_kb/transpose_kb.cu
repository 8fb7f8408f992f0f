// Kalgin & Baldin: transposition of an N x N float matrix, B[j][i] = A[i][j].
// Kernels as printed in the article (only the index types widened where noted).

#ifndef TILE
#define TILE 16
#endif

// Variant 1: one thread per element; thread (i, j) copies A(i, j) to B(j, i). With threadIdx.x
// running along i, a warp reads down a column of A (scattered) and writes along a row of B.
extern "C" __global__ void transpose_1(const float* A, float* B, int N)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int j = threadIdx.y + blockIdx.y * blockDim.y;
    B[j * N + i] = A[i * N + j];
}

// The same kernel with the scattered reads cached in L2 only (ld.global.cg, the per-access form
// of the article's -Xptxas -dlcm=cg) ...
extern "C" __global__ void transpose_1_ldcg(const float* A, float* B, int N)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int j = threadIdx.y + blockIdx.y * blockDim.y;
    B[j * N + i] = __ldcg(&A[i * N + j]);
}

// ... and through the read-only (texture) data path.
extern "C" __global__ void transpose_1_ldg(const float* A, float* B, int N)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int j = threadIdx.y + blockIdx.y * blockDim.y;
    B[j * N + i] = __ldg(&A[i * N + j]);
}

// Variant 2: a TILE x TILE sub-matrix is transposed in shared memory (square blocks only).
extern "C" __global__ void transpose_2(const float* a, float* b, int N)
{
    __shared__ float sh[TILE][TILE];
    int x = blockIdx.x * blockDim.x;
    int y = blockIdx.y * blockDim.y;
    sh[threadIdx.y][threadIdx.x] = a[(y + threadIdx.y) * N + (x + threadIdx.x)];
    __syncthreads();
    b[(x + threadIdx.y) * N + (y + threadIdx.x)] = sh[threadIdx.x][threadIdx.y];
}

// Variant 3 (printed as transpose_4 in the article's listing): rows padded to TILE + 1 words,
// so the column read sh[threadIdx.x][threadIdx.y] hits distinct banks.
extern "C" __global__ void transpose_3(const float* a, float* b, int N)
{
    __shared__ float sh[TILE][TILE + 1];
    int x = blockIdx.x * blockDim.x;
    int y = blockIdx.y * blockDim.y;
    sh[threadIdx.y][threadIdx.x] = a[(y + threadIdx.y) * N + (x + threadIdx.x)];
    __syncthreads();
    b[(x + threadIdx.y) * N + (y + threadIdx.x)] = sh[threadIdx.x][threadIdx.y];
}
