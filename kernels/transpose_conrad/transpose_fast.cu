// Today's fastest transposes (chosen by the candidate search of commit 4508dbd, whose
// transpose_t<64, 16, 2, 1, 1> and transpose_multi<TR, TC> these are). b = a^T, a is rows x cols
// floats, row-major; rows and cols must be multiples of the tile.
//
// transpose_tile64_v2: a 64 x 64 tile per block of 32 x 16 threads. Each thread reads four float2
// (8 bytes each, all four issued before any shared-memory store: 32 bytes in flight per thread)
// and writes four float2 of the transposed tile. No padding: a float's column in the tile is
// XOR-swizzled by its row (col ^ (row / 2) % 32), so the column walk of the write phase is
// conflict-free. The stores are streaming (__stcs): the output is not read again.
//
// transpose_tile64_grouped: the same tiles with the blocks dealt GROUP tile rows at a time, column
// by column (issue 10: aimed at the H200's transposes, which reached 93-94 % of its copy).
//
// transpose_multi: the same 64 x 64 tiles, TR / 64 of them down and TC / 64 across per block
// (-D TR=128 -D TC=64: two tiles stacked, so a warp writes 512 contiguous bytes of each output
// row; TR = TC = 128: four tiles, 128 bytes in flight per thread). Every load of the block's tiles
// is issued before the first shared-memory store. Dynamic shared memory: 4 * TR * TC bytes. The
// launch bounds cap the registers so that 4 blocks (3 of 128 x 128, 64 KiB each) share an SM.
#ifndef GROUP
#define GROUP 8
#endif
#ifndef TR
#define TR 128
#endif
#ifndef TC
#define TC 64
#endif

// The swizzled position of (row, col) in a 64 x 64 tile of floats.
__device__ __forceinline__ int swz64(int row, int col)
{
    return row * 64 + (col ^ ((row / 2) & 31));
}

// One 64 x 64 tile of a (tile row tr, tile column tc) written transposed to b by the block's
// 32 x 16 threads, through the swizzled tile in shared memory.
__device__ __forceinline__ void tile64_v2(const float* __restrict__ a, float* __restrict__ b,
                                          int rows, int cols, size_t tr, size_t tc, float* tile)
{
    const int tx = threadIdx.x, ty = threadIdx.y;   // tx: a float2 column (0..31), ty: 0..15
    const size_t r0 = tr * 64, c0 = tc * 64;
    float2 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        v[k] = *reinterpret_cast<const float2*>(a + (r0 + ty + 16 * k) * cols + c0 + 2 * tx);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int r = ty + 16 * k;
        tile[swz64(r, 2 * tx)] = v[k].x;
        tile[swz64(r, 2 * tx + 1)] = v[k].y;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int c = ty + 16 * k;   // the tile's column = the output's row
        const float2 w = make_float2(tile[swz64(2 * tx, c)], tile[swz64(2 * tx + 1, c)]);
        __stcs(reinterpret_cast<float2*>(b + (c0 + c) * rows + r0 + 2 * tx), w);
    }
}

extern "C" __global__ void __launch_bounds__(512)
transpose_tile64_v2(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[64 * 64];
    tile64_v2(a, b, rows, cols, blockIdx.y, blockIdx.x, tile);
}

// The blocks of transpose_tile64_v2 dealt in a grouped order: consecutive blocks go GROUP tiles
// down one tile column before moving to the next column (as GEMM kernels group their tiles for L2
// reuse). In launch order, blocks x-fastest cover whole bands of 64 input rows, so the blocks
// running at once write 256-byte pieces of tens of thousands of output rows; grouped, the blocks
// in flight read GROUP * 64 input rows and write GROUP * 256 contiguous bytes of each of their
// output rows. A last band of fewer tile rows is grouped by what it has.
extern "C" __global__ void __launch_bounds__(512)
transpose_tile64_grouped(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    __shared__ float tile[64 * 64];
    const unsigned id = blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned first = id / (GROUP * gridDim.x) * GROUP;      // the band's first tile row
    const unsigned g = min((unsigned)GROUP, gridDim.y - first);   // tile rows in this band
    const unsigned in_band = id - first * gridDim.x;
    tile64_v2(a, b, rows, cols, first + in_band % g, in_band / g, tile);
}

extern "C" __global__ void __launch_bounds__(512, TR * TC > 128 * 64 ? 3 : 4)
transpose_multi(const float* __restrict__ a, float* __restrict__ b, int rows, int cols)
{
    constexpr int TI = TR / 64, TJ = TC / 64;   // 64 x 64 tiles down and across
    extern __shared__ float tiles[];            // TI * TJ tiles of 64 * 64 floats
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
                tile[swz64(r, 2 * tx)] = v[i][j][k].x;
                tile[swz64(r, 2 * tx + 1)] = v[i][j][k].y;
            }
        }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TJ; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int i = 0; i < TI; ++i) {   // consecutive stores continue the same output row
                const float* tile = tiles + (i * TJ + j) * 64 * 64;
                const int c = ty + 16 * k;
                const float2 w = make_float2(tile[swz64(2 * tx, c)], tile[swz64(2 * tx + 1, c)]);
                __stcs(reinterpret_cast<float2*>(b + (c0 + 64 * j + c) * rows + r0 + 64 * i + 2 * tx), w);
            }
}
