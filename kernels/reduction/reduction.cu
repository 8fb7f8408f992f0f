// Lab 3 (Table 3.3) / Harris (2007): sum of an int array, one partial sum per block per pass.
// The engine runs the kernel repeatedly on ping-pong buffers until one value is left
// (`passes` in experiment.toml), so every kernel takes the current element count n and pads
// the last block with zeros. B is the block size (a define, like the lab's BLOCK_SIZE).

#ifndef B
#define B 128
#endif

// reduce1: interleaved addressing, divergent branch (tid % (2s) == 0).
extern "C" __global__ void reduce1(const int* __restrict__ inData, int* __restrict__ outData, int n)
{
    __shared__ int data[B];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[tid] = i < n ? inData[i] : 0;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) data[tid] += data[tid + s];
        __syncthreads();
    }
    if (tid == 0) outData[blockIdx.x] = data[0];
}

// reduce2: interleaved addressing without divergence (index = 2*s*tid) but with bank conflicts.
extern "C" __global__ void reduce2(const int* __restrict__ inData, int* __restrict__ outData, int n)
{
    __shared__ int data[B];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[tid] = i < n ? inData[i] : 0;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s <<= 1) {
        const int index = 2 * s * tid;
        if (index < blockDim.x) data[index] += data[index + s];
        __syncthreads();
    }
    if (tid == 0) outData[blockIdx.x] = data[0];
}

// reduce3: sequential addressing (pairs blockDim.x/2 apart, halving each step).
extern "C" __global__ void reduce3(const int* __restrict__ inData, int* __restrict__ outData, int n)
{
    __shared__ int data[B];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[tid] = i < n ? inData[i] : 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) data[tid] += data[tid + s];
        __syncthreads();
    }
    if (tid == 0) outData[blockIdx.x] = data[0];
}

// reduce4: half the blocks, the first addition done while loading (2*B elements per block).
extern "C" __global__ void reduce4(const int* __restrict__ inData, int* __restrict__ outData, int n)
{
    __shared__ int data[B];
    const int tid = threadIdx.x;
    const int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;
    data[tid] = (i < n ? inData[i] : 0) + (i + (int)blockDim.x < n ? inData[i + blockDim.x] : 0);
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) data[tid] += data[tid + s];
        __syncthreads();
    }
    if (tid == 0) outData[blockIdx.x] = data[0];
}

// Last-warp step for reduce5/6. The lab (and Harris 2007) rely on implicit warp lock-step with a
// plain shared array; since Volta that is a race, so each step reads, __syncwarp()s, then writes
// through a volatile pointer. Needs B >= 64.
__device__ __forceinline__ void warp_tail(volatile int* v, int tid)
{
    int t;
    t = v[tid] + v[tid + 32]; __syncwarp(); v[tid] = t; __syncwarp();
    t = v[tid] + v[tid + 16]; __syncwarp(); v[tid] = t; __syncwarp();
    t = v[tid] + v[tid + 8];  __syncwarp(); v[tid] = t; __syncwarp();
    t = v[tid] + v[tid + 4];  __syncwarp(); v[tid] = t; __syncwarp();
    t = v[tid] + v[tid + 2];  __syncwarp(); v[tid] = t; __syncwarp();
    t = v[tid] + v[tid + 1];  __syncwarp(); v[tid] = t;
}

// reduce5: reduce4 with the last warp (s <= 32) unrolled, no __syncthreads there.
extern "C" __global__ void reduce5(const int* __restrict__ inData, int* __restrict__ outData, int n)
{
    __shared__ int data[B];
    const int tid = threadIdx.x;
    const int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;
    data[tid] = (i < n ? inData[i] : 0) + (i + (int)blockDim.x < n ? inData[i + blockDim.x] : 0);
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) data[tid] += data[tid + s];
        __syncthreads();
    }
    if (tid < 32) warp_tail(data, tid);
    if (tid == 0) outData[blockIdx.x] = data[0];
}

// reduce6 (Harris's kernel 6): the block-size loop completely unrolled at compile time.
extern "C" __global__ void reduce6(const int* __restrict__ inData, int* __restrict__ outData, int n)
{
    __shared__ int data[B];
    const int tid = threadIdx.x;
    const int i = 2 * blockIdx.x * B + threadIdx.x;
    data[tid] = (i < n ? inData[i] : 0) + (i + B < n ? inData[i + B] : 0);
    __syncthreads();
#if B >= 1024
    if (tid < 512) data[tid] += data[tid + 512]; __syncthreads();
#endif
#if B >= 512
    if (tid < 256) data[tid] += data[tid + 256]; __syncthreads();
#endif
#if B >= 256
    if (tid < 128) data[tid] += data[tid + 128]; __syncthreads();
#endif
#if B >= 128
    if (tid < 64) data[tid] += data[tid + 64]; __syncthreads();
#endif
    if (tid < 32) warp_tail(data, tid);
    if (tid == 0) outData[blockIdx.x] = data[0];
}

// reduce7 (Harris's kernel 7): a fixed grid, each thread first adds many elements (pairs B apart,
// grid-stride), then the reduce6 tree.
extern "C" __global__ void reduce7(const int* __restrict__ inData, int* __restrict__ outData, int n)
{
    __shared__ int data[B];
    const int tid = threadIdx.x;
    const int gridSize = 2 * B * gridDim.x;
    int sum = 0;
    for (int i = 2 * blockIdx.x * B + tid; i < n; i += gridSize) {
        sum += inData[i];
        if (i + B < n) sum += inData[i + B];
    }
    data[tid] = sum;
    __syncthreads();
#if B >= 1024
    if (tid < 512) data[tid] += data[tid + 512]; __syncthreads();
#endif
#if B >= 512
    if (tid < 256) data[tid] += data[tid + 256]; __syncthreads();
#endif
#if B >= 256
    if (tid < 128) data[tid] += data[tid + 128]; __syncthreads();
#endif
#if B >= 128
    if (tid < 64) data[tid] += data[tid + 64]; __syncthreads();
#endif
    if (tid < 32) warp_tail(data, tid);
    if (tid == 0) outData[blockIdx.x] = data[0];
}

// Today's version: int4 (16-byte) loads, four of them in flight per thread in a grid-stride loop,
// then warp shuffles; shared memory only to combine the block's warps. Block size 256.
__device__ __forceinline__ int warp_sum(int v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void reduce_best(const int* __restrict__ in, int* __restrict__ out, int n)
{
    __shared__ int warp_sums[32];
    const int nthreads = gridDim.x * blockDim.x;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = n >> 2;
    const int4* __restrict__ in4 = reinterpret_cast<const int4*>(in);
    int s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = tid;
    for (; i + 3 * nthreads < n4; i += 4 * nthreads) {
        const int4 a = in4[i];
        const int4 b = in4[i + nthreads];
        const int4 c = in4[i + 2 * nthreads];
        const int4 d = in4[i + 3 * nthreads];
        s0 += a.x + a.y + a.z + a.w;
        s1 += b.x + b.y + b.z + b.w;
        s2 += c.x + c.y + c.z + c.w;
        s3 += d.x + d.y + d.z + d.w;
    }
    for (; i < n4; i += nthreads) {
        const int4 a = in4[i];
        s0 += a.x + a.y + a.z + a.w;
    }
    for (int j = 4 * n4 + tid; j < n; j += nthreads) s0 += in[j];   // tail, n % 4 elements
    int sum = warp_sum((s0 + s1) + (s2 + s3));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        sum = warp_sum(sum);
        if (lane == 0) out[blockIdx.x] = sum;
    }
}
