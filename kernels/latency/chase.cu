// Widuch (2010), section 2: "latency ... is 8 clock cycles for shared memory and 400-600 for global
// memory" (quoted from NVIDIA's guides). Measured here as a pointer chase: one thread follows a chain
// of dependent loads, idx = (chain[idx] + HOP) mod LEN, so each load waits for the one before it and
// the time per load is the latency of a load plus a few cycles of address arithmetic (an add and an
// and). The chain is `iota` (chain[i] = i), so the loaded value is the index and the next index is
// HOP elements further on; the compiler cannot know that, so every load is a real dependent load.
//
// chase_global: the chain in global memory, LEN elements (2^26 ints, 256 MiB, far past the L2) and a
//   hop of HOP ints (32 KB): every load touches a new line, so it goes to DRAM.
// chase_global_warm: the block first reads the first SLEN elements (32 KB) once, all threads together,
//   so they sit in the L1 cache, then thread 0 chases over them in global memory (L1 hits).
// chase_shared: the block copies the first SLEN elements into shared memory, then thread 0 chases.
//
// The output, idx mod SLEN after STEPS hops, is (STEPS*HOP) mod SLEN for all three (SLEN divides LEN).

#ifndef SLEN
#define SLEN 8192
#endif

extern "C" __global__ void chase_global(const int* chain, int* out, int len_mask, int hop, int steps)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned idx = 0;
    for (int k = 0; k < steps; k++) idx = ((unsigned)chain[idx] + (unsigned)hop) & (unsigned)len_mask;
    out[0] = (int)(idx & (SLEN - 1));
}

extern "C" __global__ void chase_global_warm(const int* chain, int* out, int len_mask, int hop, int steps)
{
    int acc = 0;
    for (int i = threadIdx.x; i < SLEN; i += blockDim.x) acc += chain[i];
    if (acc == 0x7fffffff) out[0] = acc;  // never true (the sums are small): keeps the warming loads
    __syncthreads();
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned idx = 0;
    for (int k = 0; k < steps; k++) idx = ((unsigned)chain[idx] + (unsigned)hop) & (unsigned)len_mask;
    out[0] = (int)(idx & (SLEN - 1));
}

extern "C" __global__ void chase_shared(const int* chain, int* out, int len_mask, int hop, int steps)
{
    __shared__ int s[SLEN];
    for (int i = threadIdx.x; i < SLEN; i += blockDim.x) s[i] = chain[i];
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned idx = 0;
    for (int k = 0; k < steps; k++) idx = ((unsigned)s[idx] + (unsigned)hop) & (unsigned)(SLEN - 1);
    out[0] = (int)idx;
}
