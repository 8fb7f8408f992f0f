// Conrad (2010), sections 4.3-4.4, Figs. 4.7 and 4.11: matrix copy and transposition of floats.
// `a` is rows x cols, `b` = transpose(a) is cols x rows (the paper's matrices are square; rows =
// N + ROWPAD lets the "padded matrix" variant give the output a pitch that is not a multiple of 512).
// The paper's kernels use TILE x TILE = 16 x 16 blocks, one element per thread.

#ifndef TILE
#define TILE 16
#endif

// Plain coalesced copy with the same blocks (the upper line of Fig. 4.7).
extern "C" __global__ void copy_tile(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    b[(size_t)y * cols + x] = a[(size_t)y * cols + x];
}

// Direct transposition in global memory: reads coalesced, writes with a stride of `rows` floats.
extern "C" __global__ void transpose_naive(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    const int x = blockIdx.x * TILE + threadIdx.x;   // column of a
    const int y = blockIdx.y * TILE + threadIdx.y;   // row of a
    b[(size_t)x * rows + y] = a[(size_t)y * cols + x];
}

// Tile staged in shared memory: both global accesses coalesced. `pitch` = TILE reads the tile by
// columns with a stride of TILE words (bank conflicts); pitch = TILE + 1 is the padding fix.
// (Conrad writes the tile transposed and reads it by rows: there the conflicts fall on the stores,
// with the same degree.)
__device__ __forceinline__ void tile_transpose(const float* __restrict__ a, float* __restrict__ b,
                                               int rows, int cols, int bx, int by,
                                               float* tile, const int pitch)
{
    int x = bx * TILE + threadIdx.x;
    int y = by * TILE + threadIdx.y;
    tile[threadIdx.y * pitch + threadIdx.x] = a[(size_t)y * cols + x];
    __syncthreads();
    x = by * TILE + threadIdx.x;   // column of b = row of a
    y = bx * TILE + threadIdx.y;   // row of b = column of a
    b[(size_t)y * rows + x] = tile[threadIdx.x * pitch + threadIdx.y];
}

extern "C" __global__ void transpose_shared(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[TILE * TILE];
    tile_transpose(a, b, rows, cols, blockIdx.x, blockIdx.y, tile, TILE);
}

extern "C" __global__ void transpose_shared_pad(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[TILE * (TILE + 1)];
    tile_transpose(a, b, rows, cols, blockIdx.x, blockIdx.y, tile, TILE + 1);
}

// Diagonal block ordering (Ruetsch & Micikevicius 2009, Conrad section 4.4.1): the linear block id
// is re-read so that blocks running together touch different memory partitions. General
// (rectangular) form; for a square grid it is bx = (blockIdx.x + blockIdx.y) % gridDim.x.
__device__ __forceinline__ void diagonal_block(int& bx, int& by)
{
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    by = bid % gridDim.y;
    bx = ((bid / gridDim.y) + by) % gridDim.x;
}

extern "C" __global__ void transpose_diag_shared(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[TILE * TILE];
    int bx, by;
    diagonal_block(bx, by);
    tile_transpose(a, b, rows, cols, bx, by, tile, TILE);
}

extern "C" __global__ void transpose_diag_shared_pad(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[TILE * (TILE + 1)];
    int bx, by;
    diagonal_block(bx, by);
    tile_transpose(a, b, rows, cols, bx, by, tile, TILE + 1);
}

// ---- Today's kernels, for the >= 1 GiB targets ----

// Bandwidth ceiling: float4 grid-stride copy, four loads in flight per thread.
extern "C" __global__ void copy_vec4(const float4* __restrict__ in, float4* __restrict__ out, long long n4)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 v0 = in[i];
        const float4 v1 = in[i + stride];
        const float4 v2 = in[i + 2 * stride];
        const float4 v3 = in[i + 3 * stride];
        out[i] = v0;
        out[i + stride] = v1;
        out[i + 2 * stride] = v2;
        out[i + 3 * stride] = v3;
    }
    for (; i < n4; i += stride) out[i] = in[i];
}

// 32x32 tile, 32x8 threads, 4 elements per thread, padded tile (Ruetsch & Micikevicius layout).
// Needs rows and cols multiples of 32.
extern "C" __global__ void transpose_tile32(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = a[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) b[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 64x64 tile, 16x16 threads, float4 global loads and stores (4 per thread). Tile pitch 65: the
// scalar shared stores and column reads are at most 2-way conflicted. Needs rows, cols % 64 == 0.
extern "C" __global__ void transpose_tile64_vec4(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[64][65];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t r0 = (size_t)blockIdx.y * 64;
    const size_t c0 = (size_t)blockIdx.x * 64;
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        v[k] = *reinterpret_cast<const float4*>(a + (r0 + ty + 16 * k) * cols + c0 + 4 * tx);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int r = ty + 16 * k;
        tile[r][4 * tx + 0] = v[k].x;
        tile[r][4 * tx + 1] = v[k].y;
        tile[r][4 * tx + 2] = v[k].z;
        tile[r][4 * tx + 3] = v[k].w;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int c = ty + 16 * k;
        const float4 w = make_float4(tile[4 * tx + 0][c], tile[4 * tx + 1][c],
                                     tile[4 * tx + 2][c], tile[4 * tx + 3][c]);
        *reinterpret_cast<float4*>(b + (c0 + c) * rows + r0 + 4 * tx) = w;
    }
}
