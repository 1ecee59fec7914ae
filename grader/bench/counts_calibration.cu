// The judge's own count against the candidate's, kernel by kernel (docs/grading.md, "The judge's
// own count"): for kernels of known instruction mixes, what a candidate-like process's range
// profiler reports (grader/serve/counters.cpp, as cudalab-serve runs it) next to what a second
// process counts device-wide with PM sampling (as grader/framework/device_counts.cpp does) while
// the same kernel runs again in the first. Not part of the build; on a machine with a GPU:
//
//   nvcc -std=c++17 -O2 -arch=native -I grader/serve -I grader/framework \
//        grader/bench/counts_calibration.cu \
//        grader/serve/counters.cpp -o /tmp/counts_calibration -lcuda -lcupti
//   /tmp/counts_calibration
//
// Each kernel runs in a child process of its own: once counted by the parent's PM sampling (two
// groups of counters, one run each, while the child's range profiler is enabled but not yet
// configured: once configured, the device's counters are that process's until it ends), then once
// under the child's range profiler.
#include <cuda.h>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "counters.h"

constexpr int N = 1 << 20, K = 8;
__constant__ float cmask[256];

__global__ void k_global(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < K; ++k) s += in[(i * 8 + k * 4099) & (N - 1)];
  out[i] = s;
}
__global__ void k_ldg(const float* __restrict__ in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < K; ++k) s += __ldg(&in[(i * 8 + k * 4099) & (N - 1)]);
  out[i] = s;
}
__global__ void k_vec4(const float4* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < K; ++k) {
    float4 v = in[(i + k * 4099) & (N / 4 - 1)];
    s += v.x + v.y + v.z + v.w;
  }
  out[i] = s;
}
__global__ void k_shared(const float* in, float* out) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = in[i];
  __syncthreads();
  float s = 0;
  for (int k = 0; k < K; ++k) s += t[(threadIdx.x + k * 33) & 255];
  out[i] = s;
}
__global__ void k_const(const int* idx, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = idx[i];
  float s = 0;
  for (int k = 0; k < K; ++k) s += cmask[(j + k) & 255];
  out[i] = s;
}
__global__ void k_cas(int* c, int* o) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (atomicCAS(&c[1024 + (i & 1023)], -5, 1) == 7) o[i] = 1;
}
__global__ void k_red(unsigned* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&c[i & 1023], 1u);
}
__global__ void k_atoms(const float* in, float* out) {
  __shared__ unsigned h[64];
  if (threadIdx.x < 64) h[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&h[i & 63], 1u);
  __syncthreads();
  if (threadIdx.x < 64) out[blockIdx.x * 64 + threadIdx.x] = h[threadIdx.x];
}
__global__ void k_tex(cudaTextureObject_t tex, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int k = 0; k < K; ++k) s += tex1Dfetch<float>(tex, (i * 8 + k * 4099) & (N - 1));
  out[i] = s;
}
__global__ void k_shfl(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = in[i];
  for (int k = 0; k < K; ++k) s += __shfl_xor_sync(0xffffffffu, s, 1 << (k % 5));
  out[i] = s;
}
__global__ void k_local(const float* in, float* out, int j) {
  float a[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 64; ++k) a[k] = in[(i + k) & (N - 1)];
  float s = 0;
  for (int k = 0; k < K; ++k) s += a[(j + k * 7 + i) & 63];
  out[i] = s;
}
__global__ void k_ldgsts(const float* in, float* out) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __pipeline_memcpy_async(&t[threadIdx.x], &in[i], 4);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[i] = t[(threadIdx.x + 1) & 255];
}
__global__ void k_ldsm(float* out) {
  __shared__ __align__(16) unsigned short t[8 * 8 * 32];
  int lane = threadIdx.x & 31;
  for (int k = threadIdx.x; k < 8 * 8 * 32; k += blockDim.x) t[k] = k;
  __syncthreads();
  unsigned r;
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&t[(lane & 7) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(addr));
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

const char* kKernels[] = {"global", "ldg", "vec4", "shared", "const",  "cas",  "red",
                          "atoms",  "tex", "shfl", "local",  "ldgsts", "ldsm", "none"};
constexpr int kCount = sizeof(kKernels) / sizeof(kKernels[0]);

struct Bufs {
  float *in, *out;
  int* idx;
  unsigned* c;
  cudaTextureObject_t tex;
};

void run(int which, Bufs& b) {
  const int bs = 256, g = N / bs;
  switch (which) {
    case 0: k_global<<<g, bs>>>(b.in, b.out); break;
    case 1: k_ldg<<<g, bs>>>(b.in, b.out); break;
    case 2: k_vec4<<<g, bs>>>((const float4*)b.in, b.out); break;
    case 3: k_shared<<<g, bs>>>(b.in, b.out); break;
    case 4: k_const<<<g, bs>>>(b.idx, b.out); break;
    case 5: k_cas<<<g, bs>>>((int*)b.c, b.idx); break;
    case 6: k_red<<<g, bs>>>(b.c); break;
    case 7: k_atoms<<<g, bs>>>(b.in, b.out); break;
    case 8: k_tex<<<g, bs>>>(b.tex, b.out); break;
    case 9: k_shfl<<<g, bs>>>(b.in, b.out); break;
    case 10: k_local<<<g, bs>>>(b.in, b.out, 3); break;
    case 11: k_ldgsts<<<g, bs>>>(b.in, b.out); break;
    case 12: k_ldsm<<<g, bs>>>(b.out); break;
    default: break;
  }
  cudaDeviceSynchronize();
}

// The child: a cudalab-serve stand-in. For each kernel: a counted run (printed), then 'p' to the
// parent and, on each 'g', an uncounted run answered with 'd'; 'n' moves to the next kernel.
int child(int in, int out) {
  CUdevice dev;
  CUcontext ctx;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  Bufs b;
  cudaMalloc(&b.in, N * 4);
  cudaMalloc(&b.out, N * 4);
  cudaMalloc(&b.idx, N * 4);
  cudaMalloc(&b.c, 8192 * 4);
  cudaMemset(b.in, 0, N * 4);
  cudaMemset(b.idx, 0, N * 4);
  cudaMemset(b.c, 0, 8192 * 4);
  cudaResourceDesc rd{};
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = b.in;
  rd.res.linear.desc = cudaCreateChannelDesc<float>();
  rd.res.linear.sizeInBytes = N * 4;
  cudaTextureDesc td{};
  cudaCreateTextureObject(&b.tex, &rd, &td, nullptr);
  cudaDeviceSynchronize();
  auto tc = std::chrono::steady_clock::now();
  fprintf(stderr, "child: counters...\n");
  cudalab::serve::KernelCounters counters(ctx);
  fprintf(stderr, "child: counters set up in %.1f ms: %s\n",
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tc).count(),
          counters.problem().c_str());
  if (!counters.problem().empty()) fprintf(stderr, "child: %s\n", counters.problem().c_str());
  const int which = atoi(getenv("WHICH"));
  {
    char c = 'p';
    write(out, &c, 1);
    for (;;) {
      read(in, &c, 1);
      if (c != 'g') break;
      run(which, b);
      c = 'd';
      write(out, &c, 1);
    }
    std::map<std::string, std::map<std::string, double>> sums;
    auto tb = std::chrono::steady_clock::now();
    counters.begin();
    double begin_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tb).count();
    run(which, b);
    std::vector<std::string> names(which == kCount - 1 ? 0 : 1, kKernels[which]);
    counters.end(names, &sums);
    printf("%-7s in-process (begin %.0f ms):", kKernels[which], begin_ms);
    for (auto& [k, v] : sums[kKernels[which]])
      if (v != 0) printf(" %s=%.0f", k.c_str(), v);
    if (!counters.problem().empty()) printf(" PROBLEM %s", counters.problem().c_str());
    printf("\n");
    fflush(stdout);
  }
  return 0;
}

#define CK(x)                                                        \
  do {                                                               \
    CUptiResult r_ = (x);                                            \
    if (r_ != CUPTI_SUCCESS) {                                       \
      const char* s_;                                                \
      cuptiGetResultString(r_, &s_);                                 \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); \
      exit(1);                                                       \
    }                                                                \
  } while (0)

template <typename T>
T P(size_t s) {
  T p{};
  p.structSize = s;
  return p;
}

struct Group {
  std::vector<const char*> metrics;
  CUpti_Profiler_Host_Object* host;
  std::vector<uint8_t> config;
};

int main(int argc, char** argv) {
  if (argc == 4 && !strcmp(argv[1], "child")) return child(atoi(argv[2]), atoi(argv[3]));
  cuInit(0);
  auto init = P<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  CK(cuptiProfilerInitialize(&init));
  auto chip = P<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  CK(cuptiDeviceGetChipName(&chip));
  auto av = P<CUpti_PmSampling_GetCounterAvailability_Params>(
      CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  CK(cuptiPmSamplingGetCounterAvailability(&av));
  std::vector<uint8_t> avail(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = avail.data();
  CK(cuptiPmSamplingGetCounterAvailability(&av));
  std::vector<Group> groups = {
      {{"sm__inst_executed_pipe_lsu_mem_lg_cmd_read.sum",
        "sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum", "idc__requests.sum"}},
      {{"sm__inst_executed_pipe_tex.sum", "sm__inst_executed_pipe_lsu.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}},
  };
  for (Group& g : groups) {
    auto hi =
        P<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = chip.pChipName;
    hi.pCounterAvailabilityImage = avail.data();
    CK(cuptiProfilerHostInitialize(&hi));
    g.host = hi.pHostObject;
    auto add = P<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = g.host;
    add.ppMetricNames = g.metrics.data();
    add.numMetrics = g.metrics.size();
    CK(cuptiProfilerHostConfigAddMetrics(&add));
    auto cs = P<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    cs.pHostObject = g.host;
    CK(cuptiProfilerHostGetConfigImageSize(&cs));
    g.config.resize(cs.configImageSize);
    auto ci = P<CUpti_Profiler_Host_GetConfigImage_Params>(
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    ci.pHostObject = g.host;
    ci.configImageSize = g.config.size();
    ci.pConfigImage = g.config.data();
    CK(cuptiProfilerHostGetConfigImage(&ci));
  }
  printf(
      "chip %s; per kernel %d warps x %d = %d warp instructions for 8-per-thread ops, %d for "
      "one-per-thread\n",
      chip.pChipName, N / 32, K, N / 32 * K, N / 32);
  fflush(stdout);
  for (int which = 0; which < kCount; ++which) {
    int to_child[2], from_child[2];
    pipe(to_child);
    pipe(from_child);
    char wv[8];
    snprintf(wv, sizeof wv, "%d", which);
    setenv("WHICH", wv, 1);
    pid_t pid = fork();
    if (pid == 0) {
      char a[8], b[8];
      snprintf(a, sizeof a, "%d", to_child[0]);
      snprintf(b, sizeof b, "%d", from_child[1]);
      execl(argv[0], argv[0], "child", a, b, (char*)nullptr);
      _exit(127);
    }
    {
      char c;
      if (read(from_child[0], &c, 1) != 1) break;
      printf("%-7s PM:        ", kKernels[which]);
      for (Group& g : groups) {
        auto en = P<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
        auto te = std::chrono::steady_clock::now();
        CK(cuptiPmSamplingEnable(&en));
        fprintf(stderr, "parent: PM enable %.1f ms\n",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - te)
                    .count());
        auto sc =
            P<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
        sc.pPmSamplingObject = en.pPmSamplingObject;
        sc.configSize = g.config.size();
        sc.pConfig = g.config.data();
        sc.hardwareBufferSize = 64ull << 20;
        sc.samplingInterval = 50000;
        sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
        sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
        CK(cuptiPmSamplingSetConfig(&sc));
        auto ds = P<CUpti_PmSampling_GetCounterDataSize_Params>(
            CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
        ds.pPmSamplingObject = en.pPmSamplingObject;
        ds.pMetricNames = g.metrics.data();
        ds.numMetrics = g.metrics.size();
        ds.maxSamples = 512;
        CK(cuptiPmSamplingGetCounterDataSize(&ds));
        std::vector<uint8_t> data(ds.counterDataSize);
        auto st = P<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
        st.pPmSamplingObject = en.pPmSamplingObject;
        CK(cuptiPmSamplingStart(&st));
        c = 'g';
        write(to_child[1], &c, 1);
        read(from_child[0], &c, 1);
        std::this_thread::sleep_for(std::chrono::microseconds(500));
        auto sp = P<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
        sp.pPmSamplingObject = en.pPmSamplingObject;
        CK(cuptiPmSamplingStop(&sp));
        std::vector<double> sum(g.metrics.size(), 0), v(g.metrics.size());
        for (;;) {
          auto di = P<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
              CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
          di.pPmSamplingObject = en.pPmSamplingObject;
          di.counterDataSize = data.size();
          di.pCounterData = data.data();
          CK(cuptiPmSamplingCounterDataImageInitialize(&di));
          auto dd =
              P<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
          dd.pPmSamplingObject = en.pPmSamplingObject;
          dd.pCounterDataImage = data.data();
          dd.counterDataImageSize = data.size();
          CK(cuptiPmSamplingDecodeData(&dd));
          auto info = P<CUpti_PmSampling_GetCounterDataInfo_Params>(
              CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
          info.pCounterDataImage = data.data();
          info.counterDataImageSize = data.size();
          CK(cuptiPmSamplingGetCounterDataInfo(&info));
          for (size_t s = 0; s < info.numCompletedSamples; ++s) {
            auto ev = P<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
            ev.pHostObject = g.host;
            ev.pCounterDataImage = data.data();
            ev.counterDataImageSize = data.size();
            ev.rangeIndex = s;
            ev.ppMetricNames = g.metrics.data();
            ev.numMetrics = g.metrics.size();
            ev.pMetricValues = v.data();
            CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
            for (size_t m = 0; m < v.size(); ++m) sum[m] += v[m];
          }
          if (dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) {
            if (dd.overflow) printf(" OVERFLOW");
            break;
          }
        }
        auto dis = P<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
        dis.pPmSamplingObject = en.pPmSamplingObject;
        CK(cuptiPmSamplingDisable(&dis));
        static const char* shorts[] = {"lg_read",  "shared_read",  "idc",         "pipe_tex",
                                       "pipe_lsu", "wf_shared_ld", "wf_shared_st"};
        static int o = 0;
        for (size_t m = 0; m < g.metrics.size(); ++m)
          printf(" %s=%.0f", shorts[(o + m) % 7], sum[m]);
        o = (o + g.metrics.size()) % 7;
      }
      printf("\n");
      fflush(stdout);
      c = 'n';
      write(to_child[1], &c, 1);
    }
    waitpid(pid, nullptr, 0);
    close(to_child[0]);
    close(to_child[1]);
    close(from_child[0]);
    close(from_child[1]);
  }
  return 0;
}
