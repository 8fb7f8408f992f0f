// Conrad (2010), section 4.2, Fig. 4.4: copy of a square float matrix in global memory.
// The paper launches 16x16 blocks, one element per thread; the copy is aligned, misaligned
// (every read shifted by `offset` elements) or strided (element i read from in[i*stride]).
// One kernel covers all three: out[i] = in[offset + i*stride] (the `gather` reference).

extern "C" __global__ void copy_gather(const float* __restrict__ in, float* __restrict__ out,
                                       int n, int offset, int stride)
{
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;   // column
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;   // row
    const size_t i = (size_t)y * (size_t)n + x;
    out[i] = in[(size_t)offset + i * (size_t)stride];
}

// Today's bandwidth ceiling: 16-byte loads and stores, a grid-stride loop sized to fill the
// GPU once, and four independent loads in flight per thread before the stores.
extern "C" __global__ void copy_vec4(const float4* __restrict__ in, float4* __restrict__ out,
                                     long long n4)
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
