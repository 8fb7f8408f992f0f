// Lab 3's naive transpose example ("Пример: транспонирование матрицы"), as printed: N x N floats,
// N a multiple of 16, 16 x 16 blocks, one thread per element. Neighbouring threads (x) read
// neighbouring elements of a row (coalesced) and write elements N floats apart (a column of the
// output: scattered). Only the OCR damage is repaired (`transposel` -> transpose1, `blockIdx,x`).

extern "C" __global__ void transpose1(float* inData, float* outData, int n)
{
    unsigned int xIndex = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int yIndex = blockDim.y * blockIdx.y + threadIdx.y;
    unsigned int inIndex = xIndex + n * yIndex;
    unsigned int outIndex = yIndex + n * xIndex;
    outData[outIndex] = inData[inIndex];
}
