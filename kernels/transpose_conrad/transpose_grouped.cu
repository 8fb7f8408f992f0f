// transpose_tile64_grouped: transpose_tile64_v2 (transpose_fast.cu) with the blocks dealt in a
// grouped order (issue 10: the H200's transposes reached 93-94 % of its copy). In launch order,
// blocks x-fastest cover whole bands of 64 input rows: they read long runs of those rows, but each
// writes 256 bytes into 64 output rows, so the blocks running at once write 256-byte pieces of tens
// of thousands of different output rows. Here consecutive blocks go GROUP tiles down one tile
// column before moving to the next column (as GEMM kernels group their tiles for L2 reuse): the
// blocks in flight read GROUP * 64 input rows and write GROUP * 256 contiguous bytes of each of
// their output rows, so DRAM rows are reused on both sides. A last band of fewer tile rows is
// grouped by what it has.
#ifndef GROUP
#define GROUP 8
#endif

__device__ __forceinline__ int swz64g(int row, int col)
{
    return row * 64 + (col ^ ((row / 2) & 31));
}

extern "C" __global__ void __launch_bounds__(512)
transpose_tile64_grouped(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[64 * 64];
    // The block's place in the grouped order: bands of GROUP tile rows, column by column.
    const unsigned id = blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned first = id / (GROUP * gridDim.x) * GROUP;   // the band's first tile row
    const unsigned g = min((unsigned)GROUP, gridDim.y - first);   // tile rows in this band
    const unsigned in_band = id - first * gridDim.x;
    const unsigned ty_tile = first + in_band % g, tx_tile = in_band / g;
    const int tx = threadIdx.x, ty = threadIdx.y;   // tx: a float2 column (0..31), ty: 0..15
    const size_t r0 = (size_t)ty_tile * 64, c0 = (size_t)tx_tile * 64;
    float2 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        v[k] = *reinterpret_cast<const float2*>(a + (r0 + ty + 16 * k) * cols + c0 + 2 * tx);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int r = ty + 16 * k;
        tile[swz64g(r, 2 * tx)] = v[k].x;
        tile[swz64g(r, 2 * tx + 1)] = v[k].y;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int c = ty + 16 * k;   // the tile's column = the output's row
        const float2 w = make_float2(tile[swz64g(2 * tx, c)], tile[swz64g(2 * tx + 1, c)]);
        __stcs(reinterpret_cast<float2*>(b + (c0 + c) * rows + r0 + 2 * tx), w);
    }
}
