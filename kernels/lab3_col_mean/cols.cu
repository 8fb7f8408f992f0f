// Lab 3, task 3 "(columns)": the arithmetic mean of every column of a matrix of `rows` rows of `cols`
// floats stored `pitch` floats apart (pitch = cols: unaligned; a multiple of 32 floats: aligned).
// The mirror image of the row kernels: here one thread per column is the coalesced layout (neighbouring
// threads read neighbouring floats of a row), and a block per column reads down the column, `pitch`
// floats apart.

#ifndef B
#define B 256
#endif

// Global memory: one thread per column walks down its column.
extern "C" __global__ void col_global(const float* __restrict__ x, float* __restrict__ out,
                                      int rows, int cols, int pitch)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.0f;
    for (int r = 0; r < rows; ++r) acc += x[(size_t)r * pitch + c];
    out[c] = acc / (float)rows;
}

// Shared memory: one block of B threads per column; the threads stride down the column, then
// combine their B partial sums in shared memory (sequential addressing).
extern "C" __global__ void col_shared(const float* __restrict__ x, float* __restrict__ out,
                                      int rows, int cols, int pitch)
{
    __shared__ float data[B];
    const int c = blockIdx.x;
    const int tid = threadIdx.x;
    float acc = 0.0f;
    for (int r = tid; r < rows; r += B) acc += x[(size_t)r * pitch + c];
    data[tid] = acc;
    __syncthreads();
    for (int s = B / 2; s > 0; s >>= 1) {
        if (tid < s) data[tid] += data[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[c] = data[0] / (float)rows;
}

// Shared memory, coalesced: a block of 32 x 8 threads covers 32 neighbouring columns; each of its 8 rows
// of threads walks every 8th matrix row reading 32 neighbouring floats, then the 8 partial sums per
// column are combined in shared memory.
extern "C" __global__ void col_tile(const float* __restrict__ x, float* __restrict__ out,
                                    int rows, int cols, int pitch)
{
    __shared__ float data[8][33];
    const int c = blockIdx.x * 32 + threadIdx.x;
    float acc = 0.0f;
    if (c < cols)
        for (int r = threadIdx.y; r < rows; r += 8) acc += x[(size_t)r * pitch + c];
    data[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        float sum = 0.0f;
        for (int k = 0; k < 8; ++k) sum += data[k][threadIdx.x];
        out[c] = sum / (float)rows;
    }
}
