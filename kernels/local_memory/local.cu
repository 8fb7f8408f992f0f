// Kalgin & Baldin, "Local memory": a per-thread array indexed by a loop counter. For small ARR the
// compiler can unroll the loops and keep the array in registers; for large ARR it lives in local
// memory (a per-thread region of global memory, cached in L1/L2). The engine records the kernel's
// local_bytes attribute for every ARR.
//
// The article's kernel sums l[j]*j; to make every element checkable by the `formula` reference we
// write the array back reversed and scaled instead: out[ind + j] = l[ARR-1-j] * (j+1).
// Layout as in the article: thread t owns elements t*ARR ... t*ARR + ARR-1.

#ifndef ARR
#define ARR 16
#endif

extern "C" __global__ void local_array(const float* __restrict__ a, float* __restrict__ out, int nthreads)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    float l[ARR];
    const size_t ind = (size_t)t * ARR;
    for (int j = 0; j < ARR; j++) l[j] = a[ind + j];
    for (int j = 0; j < ARR; j++) out[ind + j] = l[ARR - 1 - j] * (float)(j + 1);
}

// The same result without the array: nothing to spill.
extern "C" __global__ void no_array(const float* __restrict__ a, float* __restrict__ out, int nthreads)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const size_t ind = (size_t)t * ARR;
    for (int j = 0; j < ARR; j++) out[ind + j] = a[ind + ARR - 1 - j] * (float)(j + 1);
}
