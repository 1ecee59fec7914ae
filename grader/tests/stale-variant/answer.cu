// The base of the stale-variant test: a plain answer that changed after its variant was made.
__global__ void scale_kernel(const float* x, float* y, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

void scale(const float* x, float* y, int n, float a, cudaStream_t stream) {
  const int block = 256;
  const int grid = (n + block - 1) / block;  // the variant was made when this said "n / block + 1"
  scale_kernel<<<grid, block, 0, stream>>>(x, y, n, a);
}
