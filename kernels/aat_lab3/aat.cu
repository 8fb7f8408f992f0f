// Laboratory work No. 3, Table 3.2: C = A·Aᵀ, N×N row-major float, N a multiple of BLOCK_SIZE.
// The tile of Aᵀ is read by columns (ats[tx][k]): in a warp, the threads with consecutive tx
// read addresses BLOCK_SIZE words apart. On the lab's GPU (16 banks, half-warp) a 16×16 tile
// gives a 16-way bank conflict; on today's GPUs (32 banks, whole warp) a 16-wide tile gives an
// 8-way conflict and a 32-wide tile a 32-way one. PAD = 1 adds one unused column and removes it.
// -D BLOCK_SIZE=16|32, -D PAD=0|1. Block BLOCK_SIZE×BLOCK_SIZE, grid (N/BLOCK_SIZE)².
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif
#ifndef PAD
#define PAD 0
#endif

extern "C" __global__ void matMultAAt(const float* a, int n, float* c)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = n * BLOCK_SIZE * by;   // rows of A for this block's rows of C
    int aEnd = aBegin + n - 1;
    int atBegin = n * BLOCK_SIZE * bx;  // rows of A that are this block's columns of Aᵀ
    float sum = 0.0f;
    for (int ia = aBegin, iat = atBegin; ia <= aEnd; ia += BLOCK_SIZE, iat += BLOCK_SIZE) {
        __shared__ float as[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float ats[BLOCK_SIZE][BLOCK_SIZE + PAD];
        as[ty][tx] = a[ia + n * ty + tx];
        ats[ty][tx] = a[iat + n * ty + tx];
        __syncthreads();
        for (int k = 0; k < BLOCK_SIZE; k++)
            sum += as[ty][k] * ats[tx][k];   // ats read down a column
        __syncthreads();
    }
    int ic = n * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    c[ic + n * ty + tx] = sum;
}
