// Lab 3, constant memory: every thread evaluates the same degree-15 polynomial (Horner's rule)
// at its own x, so all threads of a warp read the same coefficient at the same time - the
// broadcast pattern constant memory is built for. The coefficients come from
//   coef_global : a plain global pointer,
//   coef_ldg    : a const __restrict__ pointer read with __ldg (read-only data path),
//   coef_const  : a __constant__ array filled by the host.
// Both coefficient buffers are initialised with 0, 1, ..., 15 (the `formula` reference reads coefg).

#define DEG 16

__constant__ float coef[DEG];

extern "C" __global__ void horner_global(const float* x, const float* c, float* y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i];
    float p = c[DEG - 1];
#pragma unroll
    for (int k = DEG - 2; k >= 0; --k) p = p * xi + c[k];
    y[i] = p;
}

extern "C" __global__ void horner_ldg(const float* __restrict__ x, const float* __restrict__ c,
                                      float* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = __ldg(&x[i]);
    float p = __ldg(&c[DEG - 1]);
#pragma unroll
    for (int k = DEG - 2; k >= 0; --k) p = p * xi + __ldg(&c[k]);
    y[i] = p;
}

extern "C" __global__ void horner_const(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i];
    float p = coef[DEG - 1];
#pragma unroll
    for (int k = DEG - 2; k >= 0; --k) p = p * xi + coef[k];
    y[i] = p;
}
