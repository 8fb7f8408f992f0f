// Lab 3, tasks 2-6: one value per matrix row (OP: 1 sum, 2 mean, 3 max, 4 sum of squares, 5 min).
// The matrix has `rows` rows of `cols` floats stored `pitch` floats apart: pitch = cols is the
// unaligned layout, pitch rounded up to a multiple of 32 floats (128 bytes) the aligned one.
// Shared by the five lab3_row_* experiments (their specs name it as ../lab3_rows/rows.cu); each
// sets only the OP define.

#ifndef OP
#define OP 1
#endif
#ifndef B
#define B 256
#endif

#if OP == 3
#define INIT (__int_as_float(0xff800000))          /* -inf */
#define TERM(v) (v)
#define COMB(a, b) fmaxf((a), (b))
#elif OP == 5
#define INIT (__int_as_float(0x7f800000))          /* +inf */
#define TERM(v) (v)
#define COMB(a, b) fminf((a), (b))
#elif OP == 4
#define INIT 0.0f
#define TERM(v) ((v) * (v))
#define COMB(a, b) ((a) + (b))
#else
#define INIT 0.0f
#define TERM(v) (v)
#define COMB(a, b) ((a) + (b))
#endif

#if OP == 2
#define FINISH(a, cols) ((a) / (float)(cols))
#else
#define FINISH(a, cols) (a)
#endif

// Global memory: one thread per row walks its row. Neighbouring threads of a warp read addresses
// `pitch` floats apart, so every load instruction touches 32 different rows.
extern "C" __global__ void row_global(const float* __restrict__ x, float* __restrict__ out,
                                      int rows, int cols, int pitch)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = x + (size_t)r * pitch;
    float acc = INIT;
    for (int c = 0; c < cols; ++c) acc = COMB(acc, TERM(row[c]));
    out[r] = FINISH(acc, cols);
}

// Shared memory: one block of B threads per row; the threads stride along the row (coalesced),
// then combine their B partial results in shared memory (sequential addressing).
extern "C" __global__ void row_shared(const float* __restrict__ x, float* __restrict__ out,
                                      int rows, int cols, int pitch)
{
    __shared__ float data[B];
    const int r = blockIdx.x;
    const int tid = threadIdx.x;
    const float* row = x + (size_t)r * pitch;
    float acc = INIT;
    for (int c = tid; c < cols; c += B) acc = COMB(acc, TERM(row[c]));
    data[tid] = acc;
    __syncthreads();
    for (int s = B / 2; s > 0; s >>= 1) {
        if (tid < s) data[tid] = COMB(data[tid], data[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[r] = FINISH(data[0], cols);
}

// Today: one warp per row, lanes stride along the row, warp shuffles combine (no shared memory).
extern "C" __global__ void row_warp(const float* __restrict__ x, float* __restrict__ out,
                                    int rows, int cols, int pitch)
{
    const int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* row = x + (size_t)r * pitch;
    float acc = INIT;
    for (int c = lane; c < cols; c += 32) acc = COMB(acc, TERM(row[c]));
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc = COMB(acc, __shfl_down_sync(0xffffffffu, acc, o));
    if (lane == 0) out[r] = FINISH(acc, cols);
}
