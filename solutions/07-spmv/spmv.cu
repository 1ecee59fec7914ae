// Lab 07 reference solution: SpMV y = A x in CSR, ELL, COO and HYB.
//
// Kernels, each one idea more than the course's plain version:
//   spmv_csr_scalar_kernel   thread per row, x read through the read-only cache (__ldg), the row's
//                            bounds read once; grid-stride over rows.
//   spmv_csr_vector_kernel   a group of THREADS_PER_ROW lanes per row (2, 4, 8, 16 or 32, chosen
//                            from the mean row length: a 5-entry Poisson row wastes 27 of 32 lanes
//                            in a whole warp), lanes read consecutive entries (coalesced), partial
//                            sums combined with __shfl_down_sync inside the group. The loop over
//                            rows is warp-uniform, so every lane reaches every shuffle.
//   spmv_ell_kernel          thread per row over column-major slots: slot k of 32 neighbouring
//                            rows is one coalesced 128-byte load; the slot loop is unrolled by 4
//                            so several independent loads are in flight.
//   spmv_coo_kernel          thread per entry; a warp-level segmented reduction (an inclusive
//                            scan with shuffles that stops at row boundaries, the entries being
//                            sorted by row) leaves one partial sum per row run of the warp, and
//                            only that run's last lane adds it into y with atomicAdd: about
//                            32 / (mean row length) + 1 atomics per warp instead of 32.
//   HYB                      the ELL kernel writes every row, then the COO kernel adds the rest.
//
// Beyond the lab's formats (sell.h; the bench's "reference sell" row):
//   spmv_sell_kernel         sliced ELL: one block per window of rows, one warp per slice of 32
//                            row pieces sorted by length (cudalab::sparse::csr_to_sell), lane l
//                            walking its piece down the slice's column-major slots (each step
//                            one coalesced 128-byte load of col_idx and of val), no padding to the
//                            longest row of the matrix, no atomics in global memory. Each lane adds
//                            its piece's sum into the window's y in shared memory, and the block
//                            writes the window's y in one coalesced pass. The entries are streamed
//                            with ld.global.nc.L1::no_allocate, keeping L1 for the x gathers.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/check.h"
#include "sell.h"
#include "spmv.h"

namespace lab07 {
namespace CUDALAB_IMPL {

constexpr int BLOCK_SIZE = 256;
constexpr int WARP_SIZE = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;

int blocks_for(long long threads) {
  const long long blocks = (threads + BLOCK_SIZE - 1) / BLOCK_SIZE;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > 0x7fffffffLL ? 0x7fffffffLL : blocks));
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    spmv_csr_scalar_kernel(CsrView a, const float* __restrict__ x, float* __restrict__ y) {
  const int stride = gridDim.x * blockDim.x;
  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < a.rows; row += stride) {
    const int begin = __ldg(a.row_ptr + row), end = __ldg(a.row_ptr + row + 1);
    float sum = 0.0f;
    for (int k = begin; k < end; ++k) sum += __ldg(a.val + k) * __ldg(x + __ldg(a.col_idx + k));
    y[row] = sum;
  }
}

template <int THREADS_PER_ROW>
__global__ void __launch_bounds__(BLOCK_SIZE)
    spmv_csr_vector_kernel(CsrView a, const float* __restrict__ x, float* __restrict__ y) {
  constexpr int ROWS_PER_BLOCK = BLOCK_SIZE / THREADS_PER_ROW;
  const int lane = threadIdx.x % THREADS_PER_ROW;
  const int group = threadIdx.x / THREADS_PER_ROW;
  // Warp-uniform loop: `first` is the same for the whole block, so all 32 lanes of a warp run the
  // same iterations and take part in every shuffle, rows past the end included.
  for (long long first = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK; first < a.rows;
       first += static_cast<long long>(gridDim.x) * ROWS_PER_BLOCK) {
    const long long row = first + group;
    float sum = 0.0f;
    if (row < a.rows) {
      const int begin = __ldg(a.row_ptr + row), end = __ldg(a.row_ptr + row + 1);
      for (int k = begin + lane; k < end; k += THREADS_PER_ROW)
        sum += __ldg(a.val + k) * __ldg(x + __ldg(a.col_idx + k));
    }
#pragma unroll
    for (int offset = THREADS_PER_ROW / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(FULL_MASK, sum, offset, THREADS_PER_ROW);
    if (lane == 0 && row < a.rows) y[row] = sum;
  }
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    spmv_ell_kernel(EllView a, const float* __restrict__ x, float* __restrict__ y) {
  const int stride = gridDim.x * blockDim.x;
  const std::size_t rows = static_cast<std::size_t>(a.rows);
  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < a.rows; row += stride) {
    float sum = 0.0f;
    std::size_t slot = static_cast<std::size_t>(row);
#pragma unroll 4
    for (int k = 0; k < a.width; ++k, slot += rows) {
      const int col = __ldg(a.col_idx + slot);
      // Padding (column -1) adds nothing and reads no x: a predicated load, not a branch.
      const float xv = col >= 0 ? __ldg(x + col) : 0.0f;
      sum += __ldg(a.val + slot) * xv;
    }
    y[row] = sum;
  }
}

__global__ void __launch_bounds__(BLOCK_SIZE)
    spmv_coo_kernel(CooView a, const float* __restrict__ x, float* __restrict__ y) {
  const int lane = threadIdx.x % WARP_SIZE;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  // Warp-uniform loop (the bound is the same for the warp's 32 lanes): every lane reaches the
  // shuffles; entries past the end take row -1, which matches no real row.
  for (long long base = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x - lane;
       base < a.nnz; base += stride) {
    const long long k = base + lane;
    int row = -1;
    float v = 0.0f;
    if (k < a.nnz) {
      row = __ldg(a.row + k);
      v = __ldg(a.val + k) * __ldg(x + __ldg(a.col + k));
    }
    // Segmented inclusive scan: lane l gets the sum of the lanes of its row run up to l.
#pragma unroll
    for (int offset = 1; offset < WARP_SIZE; offset *= 2) {
      const float other = __shfl_up_sync(FULL_MASK, v, offset);
      const int other_row = __shfl_up_sync(FULL_MASK, row, offset);
      if (lane >= offset && other_row == row) v += other;
    }
    // The last lane of each run holds the run's sum.
    const int next_row = __shfl_down_sync(FULL_MASK, row, 1);
    if (row >= 0 && (lane == WARP_SIZE - 1 || next_row != row)) atomicAdd(y + row, v);
  }
}

void launch_coo(const CooView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.nnz == 0) return;
  spmv_coo_kernel<<<blocks_for(a.nnz), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------

void spmv_csr_scalar(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  spmv_csr_scalar_kernel<<<blocks_for(a.rows), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

// Threads per row: the largest power of two not above the mean row length, within [2, 32], so
// that the first pass over a row keeps every lane of its group busy.
int threads_per_row(const CsrView& a) {
  const double mean = a.rows > 0 ? static_cast<double>(a.nnz) / a.rows : 0.0;
  int t = 2;
  while (t < WARP_SIZE && 2.0 * t <= mean) t *= 2;
  return t;
}

template <int T>
void launch_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  spmv_csr_vector_kernel<T>
      <<<blocks_for(static_cast<long long>(a.rows) * T), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_csr_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  switch (threads_per_row(a)) {
    case 2: return launch_vector<2>(a, x, y, stream);
    case 4: return launch_vector<4>(a, x, y, stream);
    case 8: return launch_vector<8>(a, x, y, stream);
    case 16: return launch_vector<16>(a, x, y, stream);
    default: return launch_vector<32>(a, x, y, stream);
  }
}

void spmv_ell(const EllView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  spmv_ell_kernel<<<blocks_for(a.rows), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_coo(const CooView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  CUDA_CHECK(cudaMemsetAsync(y, 0, sizeof(float) * static_cast<std::size_t>(a.rows), stream));
  launch_coo(a, x, y, stream);
}

void spmv_hyb(const HybView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.ell.rows == 0) return;
  spmv_ell(a.ell, x, y, stream);
  launch_coo(a.coo, x, y, stream);
}

// ---- Sliced ELL (reference only) ----

constexpr int SELL_WARPS = 8;  // warps per block: a window's slices are dealt out among them
constexpr int SELL_UNROLL = 4;

__device__ __forceinline__ int load_streaming(const int* p) {
  int v;
  asm("ld.global.nc.L1::no_allocate.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ float load_streaming(const float* p) {
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

__global__ void __launch_bounds__(SELL_WARPS* WARP_SIZE)
    spmv_sell_kernel(SellView a, const float* __restrict__ x, float* __restrict__ y) {
  extern __shared__ float window_y[];  // a.window floats
  for (int i = threadIdx.x; i < a.window; i += blockDim.x) window_y[i] = 0.0f;
  __syncthreads();
  const int warp = static_cast<int>(threadIdx.x) / WARP_SIZE;
  const int lane = static_cast<int>(threadIdx.x) % WARP_SIZE;
  const int first = __ldg(a.window_slice + blockIdx.x),
            last = __ldg(a.window_slice + blockIdx.x + 1);
  for (int s = first + warp; s < last; s += SELL_WARPS) {
    const int begin = __ldg(a.slice_ptr + s);
    const int width = (__ldg(a.slice_ptr + s + 1) - begin) / WARP_SIZE;
    const int* col = a.col_idx + begin + lane;
    const float* val = a.val + begin + lane;
    float sum = 0.0f;
    int k = 0;
    for (; k + SELL_UNROLL <= width; k += SELL_UNROLL) {  // SELL_UNROLL gathers in flight
      int c[SELL_UNROLL];
      float v[SELL_UNROLL];
#pragma unroll
      for (int u = 0; u < SELL_UNROLL; ++u) {
        c[u] = load_streaming(col + (k + u) * WARP_SIZE);
        v[u] = load_streaming(val + (k + u) * WARP_SIZE);
      }
#pragma unroll
      for (int u = 0; u < SELL_UNROLL; ++u) sum = fmaf(v[u], __ldg(x + c[u]), sum);
    }
    for (; k < width; ++k)
      sum = fmaf(load_streaming(val + k * WARP_SIZE),
                 __ldg(x + load_streaming(col + k * WARP_SIZE)), sum);
    // Padding slots hold column 0 and value 0: they add 0 (x is finite) to a used lane, and an
    // unused lane has nothing to add.
    const int row = a.lane_row[static_cast<long long>(s) * WARP_SIZE + lane];
    if (row >= 0) atomicAdd(&window_y[row], sum);
  }
  __syncthreads();
  const long long row0 = static_cast<long long>(blockIdx.x) * a.window;
  for (int i = threadIdx.x; i < a.window && row0 + i < a.rows; i += blockDim.x)
    y[row0 + i] = window_y[i];
}

void spmv_sell(const SellView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.window < 1 || a.window > kMaxSellWindow)
    throw std::invalid_argument("spmv_sell: the window must be in [1, " +
                                std::to_string(kMaxSellWindow) + "] rows, got " +
                                std::to_string(a.window));
  if (a.rows == 0) return;
  spmv_sell_kernel<<<a.windows, SELL_WARPS * WARP_SIZE, sizeof(float) * a.window, stream>>>(a, x,
                                                                                            y);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab07
