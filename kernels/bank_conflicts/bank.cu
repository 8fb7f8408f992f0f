// Conrad (2010), section 4.3, Fig. 4.6: threads of a warp read shared memory with a stride of
// S 32-bit words, so thread t touches word t*S and bank (t*S) mod 32 (16 banks per half-warp on
// the paper's GTX 280). Each thread repeats the same read ITERS times through a volatile pointer,
// so every iteration is a real shared-memory load with the same conflict degree.
//
// Verification: the shared array holds smem[j] = j, so the accumulated value is ITERS * p for the
// word p the thread reads. Each thread writes acc/ITERS - p + gid, which equals its global index
// gid exactly when every load returned the right word (`formula` reference with expr "i").

#ifndef S
#define S 1
#endif
#ifndef ITERS
#define ITERS 4096
#endif
#define SMEM_WORDS 2048   /* 8 KiB; 31*S < 2048 for every S <= 64, so the 32 words stay distinct */

extern "C" __global__ void lds_stride(int* __restrict__ out)
{
    __shared__ int smem[SMEM_WORDS];
    for (int j = threadIdx.x; j < SMEM_WORDS; j += blockDim.x) smem[j] = j;
    __syncthreads();

    const int p = (int)((threadIdx.x * S) & (SMEM_WORDS - 1));
    volatile int* vs = smem;
    int acc = 0;
#pragma unroll 16
    for (int k = 0; k < ITERS; ++k) acc += vs[p];

    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    out[gid] = acc / ITERS - p + gid;
}
