// Laboratory work No. 3: float matrix product C = A·B, N×N row-major, N a multiple of BLOCK_SIZE.
// Table 3.1: without shared memory (matMultNaive) and with 16×16 shared tiles (matMult).
// Block BLOCK_SIZE×BLOCK_SIZE, grid (N/BLOCK_SIZE)²; each thread computes one element.
// Argument order as in the lab text: (a, b, n, c).
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

// Without shared memory: 2N global reads per element (the lab prints only the tail of this
// kernel; the head — ia, ib — follows from it).
extern "C" __global__ void matMultNaive(const float* a, const float* b, int n, float* c)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    float sum = 0.0f;
    int ia = n * BLOCK_SIZE * by + n * ty;   // a[i][0]
    int ib = BLOCK_SIZE * bx + tx;           // b[0][j]
    for (int k = 0; k < n; k++)
        sum += a[ia + k] * b[ib + k * n];
    int ic = n * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    c[ic + n * ty + tx] = sum;
}

// With shared memory: N/16 steps; per step one 16×16 tile of A and one of B in shared memory.
extern "C" __global__ void matMult(const float* a, const float* b, int n, float* c)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = n * BLOCK_SIZE * by;   // first tile of A for this block
    int aEnd = aBegin + n - 1;
    int aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx;       // first tile of B
    int bStep = BLOCK_SIZE * n;
    float sum = 0.0f;
    for (int ia = aBegin, ib = bBegin; ia <= aEnd; ia += aStep, ib += bStep) {
        __shared__ float as[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float bs[BLOCK_SIZE][BLOCK_SIZE];
        as[ty][tx] = a[ia + n * ty + tx];
        bs[ty][tx] = b[ib + n * ty + tx];
        __syncthreads();
        for (int k = 0; k < BLOCK_SIZE; k++)
            sum += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    int ic = n * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    c[ic + n * ty + tx] = sum;
}
