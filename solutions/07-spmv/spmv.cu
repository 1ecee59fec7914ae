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
// Beyond the lab's formats (panels.h; the bench's "reference panels" row):
//   spmv_panels_kernel       column-sorted row panels (cudalab::sparse::csr_to_panels): every
//                            kernel above gathers x in row order, one 32-byte L2 sector per
//                            entry when the columns are scattered, and those gathers are most of
//                            its time. Here a block takes a panel of rows whose y fits in shared
//                            memory and reads the panel's entries in column order, so a warp's 32
//                            gathers hit neighbouring columns (shared sectors and lines) and the
//                            block's warps sweep x together through L1. Products go to the
//                            panel's y with shared-memory atomics. On sm_90 a panel is split in
//                            two by columns over a cluster of two blocks (twice the rows per
//                            panel, so twice the entries per column range), and the two partial
//                            y are added through distributed shared memory. A long row (1024
//                            entries or more) adds into 32 accumulators, one per lane, so that
//                            lanes never contend for its address; a warp sums them at the end.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/check.h"
#include "panels.h"
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

// ---- Column-sorted row panels (reference only) ----

constexpr int PANEL_THREADS = 1024;
constexpr int PANEL_UNROLL = 4;  // groups of 32 entries per warp per step: 4 gathers in flight
constexpr unsigned PANEL_PADDING = 0xffffu;  // cudalab::sparse::kPanelPadding: no accumulator

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

// One block per run (PARTS runs per panel, one cluster). The run's groups of 32 entries are dealt
// to the warps in turn, so the block's warps move through the columns together; entries are
// streamed past L1 (no_allocate), which keeps L1 for x.
template <int PARTS>
__global__ void __launch_bounds__(PANEL_THREADS, 1)
    spmv_panels_kernel(PanelView a, const float* __restrict__ x, float* __restrict__ y) {
  extern __shared__ float panel_y[];  // the panel's accumulators: its rows, then 32 per long row
  const int run = static_cast<int>(blockIdx.x), panel = run / PARTS;
  const int first_row = __ldg(a.panel_row + panel);
  const int rows = __ldg(a.panel_row + panel + 1) - first_row;
  const int first_long = __ldg(a.split_ptr + panel);
  const int long_rows = __ldg(a.split_ptr + panel + 1) - first_long;
  for (int i = threadIdx.x; i < rows + WARP_SIZE * long_rows; i += PANEL_THREADS) panel_y[i] = 0.0f;
  __syncthreads();
  const int begin = __ldg(a.run_ptr + run), end = __ldg(a.run_ptr + run + 1);
  const int warp = static_cast<int>(threadIdx.x) / WARP_SIZE;
  const int lane = static_cast<int>(threadIdx.x) % WARP_SIZE;
  constexpr int WARPS = PANEL_THREADS / WARP_SIZE;
  for (int g0 = begin + warp * WARP_SIZE * PANEL_UNROLL; g0 < end;
       g0 += WARPS * WARP_SIZE * PANEL_UNROLL) {
    unsigned acc[PANEL_UNROLL];  // the entry's accumulator in panel_y
    int col[PANEL_UNROLL];
    float v[PANEL_UNROLL];
#pragma unroll
    for (int u = 0; u < PANEL_UNROLL; ++u) {
      const int g = g0 + u * WARP_SIZE;  // a group of 32: run ends are multiples of 32
      acc[u] = PANEL_PADDING;
      col[u] = 0;
      v[u] = 0.0f;
      if (g < end) {
        const auto packed = static_cast<unsigned>(
            load_streaming(reinterpret_cast<const int*>(a.packed) + g + lane));
        const auto base = static_cast<unsigned>(__ldg(a.group_col + g / WARP_SIZE));
        acc[u] = packed >> 16;
        col[u] = static_cast<int>(base + ((packed - base) & 0xffffu));
        v[u] = load_streaming(a.val + g + lane);
      }
    }
    float xv[PANEL_UNROLL];
#pragma unroll
    for (int u = 0; u < PANEL_UNROLL; ++u)
      xv[u] = acc[u] != PANEL_PADDING ? __ldg(x + col[u]) : 0.0f;
#pragma unroll
    for (int u = 0; u < PANEL_UNROLL; ++u)
      if (acc[u] != PANEL_PADDING) atomicAdd(&panel_y[acc[u]], v[u] * xv[u]);
  }
  // A long row's 32 lane accumulators into its own, a warp per long row.
  __syncthreads();
  for (int j = warp; j < long_rows; j += WARPS) {
    float sum = panel_y[rows + WARP_SIZE * j + lane];
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(FULL_MASK, sum, offset);
    if (lane == 0) panel_y[__ldg(a.split_row + first_long + j)] += sum;
  }
  if constexpr (PARTS == 1) {
    __syncthreads();
    for (int i = threadIdx.x; i < rows; i += PANEL_THREADS) y[first_row + i] = panel_y[i];
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // Each block writes its share of the panel's rows, adding the partial y of every block of
    // the cluster; the second cluster barrier keeps every block's shared memory alive until all
    // have read it.
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    const int part = static_cast<int>(cluster.block_rank());
    const int lo = static_cast<int>(static_cast<long long>(rows) * part / PARTS);
    const int hi = static_cast<int>(static_cast<long long>(rows) * (part + 1) / PARTS);
    for (int i = lo + static_cast<int>(threadIdx.x); i < hi; i += PANEL_THREADS) {
      float sum = 0.0f;
#pragma unroll
      for (int r = 0; r < PARTS; ++r) sum += cluster.map_shared_rank(panel_y, r)[i];
      y[first_row + i] = sum;
    }
    cluster.sync();
#elif defined(__CUDA_ARCH__)
    __trap();  // spmv_panels refuses parts = 2 below sm_90
#endif
  }
}

constexpr int kPanelClusterParts = 2;

int panel_smem_limit(int device) {
  int bytes = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

template <int PARTS>
cudaLaunchConfig_t panel_config(const PanelView& a, cudaLaunchAttribute* cluster, int smem_bytes,
                                cudaStream_t stream) {
  static int allowed = 48 * 1024;  // without asking; raised once to the largest size used
  if (smem_bytes > allowed) {
    CUDA_CHECK(cudaFuncSetAttribute(spmv_panels_kernel<PARTS>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
    allowed = smem_bytes;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(a.panels * PARTS));
  config.blockDim = dim3(PANEL_THREADS);
  config.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
  config.stream = stream;
  cluster->id = cudaLaunchAttributeClusterDimension;
  cluster->val.clusterDim.x = PARTS;
  cluster->val.clusterDim.y = 1;
  cluster->val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = PARTS > 1 ? 1 : 0;
  return config;
}

PanelShape panel_shape() {
  int device = 0, major = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PanelShape shape;
  shape.max_accumulators = std::min(65535, panel_smem_limit(device) / 4);
  if (major < 9) {  // no clusters: one block per SM
    shape.panels = sms;
    return shape;
  }
  shape.parts = kPanelClusterParts;
  PanelView probe;
  probe.panels = 1;
  cudaLaunchAttribute cluster;
  const cudaLaunchConfig_t config =
      panel_config<kPanelClusterParts>(probe, &cluster, 4 * shape.max_accumulators, nullptr);
  int clusters = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveClusters(&clusters, spmv_panels_kernel<kPanelClusterParts>, &config));
  shape.panels = std::max(1, clusters);
  return shape;
}

void spmv_panels(const PanelView& a, const float* x, float* y, cudaStream_t stream) {
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (a.parts != 1 && !(a.parts == kPanelClusterParts && major >= 9))
    throw std::invalid_argument("spmv_panels: parts must be 1, or 2 on sm_90 and newer, got " +
                                std::to_string(a.parts));
  const long long smem = 4LL * a.max_accumulators;
  if (smem > panel_smem_limit(device))
    throw std::invalid_argument("spmv_panels: a panel of " + std::to_string(a.max_accumulators) +
                                " accumulators needs more shared memory than a block gets");
  if (a.panels == 0) return;
  cudaLaunchAttribute cluster;
  if (a.parts == 1) {
    const cudaLaunchConfig_t config = panel_config<1>(a, &cluster, static_cast<int>(smem), stream);
    CUDA_CHECK(cudaLaunchKernelEx(&config, spmv_panels_kernel<1>, a, x, y));
  } else {
    const cudaLaunchConfig_t config =
        panel_config<kPanelClusterParts>(a, &cluster, static_cast<int>(smem), stream);
    CUDA_CHECK(cudaLaunchKernelEx(&config, spmv_panels_kernel<kPanelClusterParts>, a, x, y));
  }
}

}  // namespace CUDALAB_IMPL
}  // namespace lab07
