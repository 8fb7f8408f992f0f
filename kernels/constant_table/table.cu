// Lab 3, "Working with constant memory": a table of y = sin(sqrt(x)) with a given step.
// The lab launches n/256 blocks of 256 threads, one table entry per thread. The step is a kernel
// argument in `table`, a __constant__ variable written by the host in `table_const`, and
// `table_xin` reads its x values from a global array instead of computing them.
// With step = 1 the x values are 0, 1, 2, ... = the `iota` buffer the `sin_sqrt` reference reads.

__constant__ float c_step[1];

extern "C" __global__ void table(float* __restrict__ out, float step)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    out[idx] = sinf(sqrtf((float)idx * step));
}

extern "C" __global__ void table_const(float* __restrict__ out)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    out[idx] = sinf(sqrtf((float)idx * c_step[0]));
}

extern "C" __global__ void table_xin(const float* __restrict__ x, float* __restrict__ out)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    out[idx] = sinf(sqrtf(x[idx]));
}
