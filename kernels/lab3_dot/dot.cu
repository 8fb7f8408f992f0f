// Lab 3, task 1: dot product of two float vectors, with a global-memory and a shared-memory kernel
// (and today's version). The engine repeats a kernel on ping-pong buffers until one value is left
// (`passes`); on the first pass (count == n) the kernel multiplies x[i]*y[i], later passes add up
// the partial sums of the previous pass.

#ifndef B
#define B 256
#endif
#ifndef CH
#define CH 32
#endif

__device__ __forceinline__ float load_term(const float* in, const float* y, int i, int first)
{
    return first ? in[i] * y[i] : in[i];
}

// Global memory only: thread t of T = ceil(count/CH) adds elements t, t+T, t+2T, ... (coalesced)
// and writes its partial sum to global memory; the next pass does the same to the partial sums.
extern "C" __global__ void dot_global(const float* in, const float* y, float* out, int count, int n)
{
    const int T = (count + CH - 1) / CH;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    const int first = count == n;
    float s = 0.0f;
    for (int i = t; i < count; i += T) s += load_term(in, y, i, first);
    out[t] = s;
}

// Shared memory: each block of B threads loads 2*B products (first add during load) and reduces
// them with sequential addressing in shared memory (as reduce4 of the lab's reduction example).
extern "C" __global__ void dot_shared(const float* in, const float* y, float* out, int count, int n)
{
    __shared__ float data[B];
    const int tid = threadIdx.x;
    const int i = 2 * blockIdx.x * B + tid;
    const int first = count == n;
    data[tid] = (i < count ? load_term(in, y, i, first) : 0.0f)
              + (i + B < count ? load_term(in, y, i + B, first) : 0.0f);
    __syncthreads();
    for (int s = B / 2; s > 0; s >>= 1) {
        if (tid < s) data[tid] += data[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = data[0];
}

// Today: float4 loads in a grid-stride loop, warp shuffles, one shared slot per warp.
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void dot_shfl(const float* __restrict__ in, const float* __restrict__ y,
                                    float* __restrict__ out, int count, int n)
{
    __shared__ float warp_sums[32];
    const int first = count == n;
    const int nthreads = gridDim.x * blockDim.x;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = count >> 2;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    float s0 = 0.0f, s1 = 0.0f;
    int i = tid;
    if (first) {
        for (; i + nthreads < n4; i += 2 * nthreads) {
            const float4 a = in4[i], b = y4[i];
            const float4 c = in4[i + nthreads], d = y4[i + nthreads];
            s0 += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
            s1 += c.x * d.x + c.y * d.y + c.z * d.z + c.w * d.w;
        }
        for (; i < n4; i += nthreads) {
            const float4 a = in4[i], b = y4[i];
            s0 += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
        }
        for (int j = 4 * n4 + tid; j < count; j += nthreads) s0 += in[j] * y[j];
    } else {
        for (; i < n4; i += nthreads) {
            const float4 a = in4[i];
            s0 += (a.x + a.y) + (a.z + a.w);
        }
        for (int j = 4 * n4 + tid; j < count; j += nthreads) s0 += in[j];
    }
    float sum = warp_sum(s0 + s1);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
        sum = warp_sum(sum);
        if (lane == 0) out[blockIdx.x] = sum;
    }
}
