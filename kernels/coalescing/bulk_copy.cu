// Copies through Hopper's bulk copy engine (TMA, plain sm_90): one thread per block moves
// CHUNK-byte pieces global -> shared (cp.async.bulk, completing on an mbarrier) and shared ->
// global (cp.async.bulk ... bulk_group), STAGES pieces in flight. No thread touches the data:
// the SMs only issue the copies, as the driver's device-to-device copy does with its engines.
// Pieces are dealt to blocks round-robin; block 0's threads copy a tail shorter than CHUNK.
#ifndef CHUNK
#define CHUNK 16384
#endif
#ifndef STAGES
#define STAGES 4
#endif

__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void load_piece(unsigned dst, const char* src, unsigned bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(CHUNK)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
        "l"(src), "r"(CHUNK), "r"(bar)
        : "memory");
}

__device__ __forceinline__ void wait_piece(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    }
}

extern "C" __global__ void copy_bulk(const char* __restrict__ in, char* __restrict__ out,
                                     long long n_bytes)
{
    extern __shared__ __align__(128) char stage[];
    __shared__ __align__(8) unsigned long long bars[STAGES];
    const long long pieces = n_bytes / CHUNK;
    if (blockIdx.x == 0)
        for (long long i = pieces * CHUNK + threadIdx.x; i < n_bytes; i += blockDim.x) out[i] = in[i];
    if (threadIdx.x != 0) return;
    const long long mine = pieces > blockIdx.x ? (pieces - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    for (int s = 0; s < STAGES; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n fence.proxy.async.shared::cta;" ::: "memory");
    auto piece = [&](long long k) { return (blockIdx.x + k * gridDim.x) * (long long)CHUNK; };
    for (long long k = 0; k < STAGES && k < mine; ++k)
        load_piece(smem_addr(stage + k * CHUNK), in + piece(k), smem_addr(&bars[k]));
    for (long long k = 0; k < mine; ++k) {
        const int s = (int)(k % STAGES);
        wait_piece(smem_addr(&bars[s]), (unsigned)((k / STAGES) & 1));
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
                     " cp.async.bulk.commit_group;" ::"l"(out + piece(k)),
                     "r"(smem_addr(stage + s * CHUNK)), "r"(CHUNK)
                     : "memory");
        // Refill the previous piece's stage once its store has read it.
        const long long next = k - 1 + STAGES;
        if (k >= 1 && next < mine) {
            asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
            const int p = (int)((k - 1) % STAGES);
            load_piece(smem_addr(stage + p * CHUNK), in + piece(next), smem_addr(&bars[p]));
        }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
