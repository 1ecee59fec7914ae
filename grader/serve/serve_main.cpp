// cudalab-serve: the candidate process (docs/design.md, section 8; grader/framework/remote.h).
//
//   cudalab-serve <candidate library> [--kernel-records|--no-kernel-records [--counters]]
//   (started by a lab's grader, the channel on descriptor 3, the host-argument area on 4)
//
// In this order, before any code of the student's file exists in the process:
//   0. the host-argument area (wire.h, HostArea) mapped from descriptor 4, and then every
//      descriptor it inherited but the channel closed, the area's included: the student's code
//      sees only the mapping, where its host arguments are, never a descriptor to resize it by;
//   1. its CUDA context, a stream, an empty kernel of its own (launched once: compiled now), the
//      driver's PTX compiler loaded, and CUPTI's kernel records (not under compute-sanitizer: the
//      grader says so on the command line); for a technique check
//      (--counters), the GPU's performance counters too: then every launch of a call is counted
//      (counters.h), and the counts go back with the kernel records (the profile of a
//      performance case counts the candidate's process and the reference's in grader runs of
//      their own: the GPU's counters serve one process at a time);
//   2. an empty environment and an anonymous command line (nothing says how it is graded);
//   3. a seccomp filter: no threads, no processes, no programs, no signal handlers or timers, no
//      tracing of other processes, no signals but to itself, and, unless it reads the counters
//      (an untimed run), no file opened for writing (so no second CUDA context: the driver opens
//      its device files read-write for each; CUPTI's range profiler does too, for each range);
// then it loads the candidate library (the student's constructors run now, confined), forbids
// new executable memory, says it is ready, and answers the judge's calls one at a time. Between
// two calls no code of the student's file can run: there is no thread to run it, no handler to
// call it, and the whole context was synchronised before the previous answer.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "confine.h"
#include "counters.h"
#include "serve_api.h"
#include "wire.h"

extern char** environ;

namespace {

using namespace cudalab;

constexpr int kChannel = 3;

std::string driver_error(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  return std::string("CUDA error ") + (name != nullptr ? name : "?") + ": " +
         (text != nullptr ? text : "unknown");
}

// ---- CUPTI: the kernels that ran, by name ----------------------------------------------------

struct KernelRecord {
  long long launches = 0, static_shared = 0, dynamic_shared = -1, threads = 0;
};
std::mutex records_mutex;
std::map<std::string, KernelRecord> records;  // since the last collect
std::vector<std::string> record_order;
// Each launch once (a launch the counters replay is still one), with its name: the counters'
// ranges are the launches in this order (correlation ids grow with the launches).
std::map<std::uint32_t, std::string> launches;  // since the last collect, by correlation id
bool tracing = false;
std::string tracing_problem = "not recorded";

constexpr std::size_t kBufferBytes = 1u << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(records_mutex);
  CUpti_Activity* record = nullptr;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    const auto& k = *reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (k.name == nullptr) continue;
    if (!launches.emplace(k.correlationId, k.name).second) continue;
    auto [it, fresh] = records.try_emplace(k.name);
    if (fresh) record_order.push_back(k.name);
    KernelRecord& r = it->second;
    ++r.launches;
    r.static_shared = std::max<long long>(r.static_shared, k.staticSharedMemory);
    r.dynamic_shared = r.dynamic_shared < 0
                           ? k.dynamicSharedMemory
                           : std::min<long long>(r.dynamic_shared, k.dynamicSharedMemory);
    r.threads +=
        static_cast<long long>(k.gridX) * k.gridY * k.gridZ * k.blockX * k.blockY * k.blockZ;
  }
  std::free(buffer);
}

void start_tracing() {
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  // A flush now, so that whatever CUPTI starts for it exists before threads are forbidden.
  if (r == CUPTI_SUCCESS) r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (r != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    tracing_problem = std::string("CUPTI: ") + (text != nullptr ? text : "error");
    return;
  }
  tracing = true;
  tracing_problem.clear();
}

// An empty kernel of the loader's own (PTX, compiled by the driver for the device): what an empty
// call runs, so that its round trip includes the device's turn to this context. Launched once
// here, before the filter: with lazy loading the driver compiles the PTX at the first launch, and
// after the filter its compiler could not be loaded (no new executable memory). Without a
// compiler cache (a fresh sandbox's home) the first empty call in a performance check failed
// with cudaErrorJitCompilerNotFound, which the student's next cudaGetLastError() reported.
CUfunction load_empty_kernel(CUstream stream) {
  static const char ptx[] =
      ".version 6.0\n.target sm_50\n.address_size 64\n.visible .entry cudalab_empty()\n{\n  "
      "ret;\n}\n";
  CUmodule module = nullptr;
  CUfunction f = nullptr;
  if (cuModuleLoadData(&module, ptx) != CUDA_SUCCESS ||
      cuModuleGetFunction(&f, module, "cudalab_empty") != CUDA_SUCCESS ||
      cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr) != CUDA_SUCCESS ||
      cuStreamSynchronize(stream) != CUDA_SUCCESS)
    return nullptr;
  return f;
}

// The driver's PTX compiler, loaded while new executable memory is allowed: a student's file
// built without code for this GPU (PTX only: a GPU newer than the build's architectures) is
// compiled at its first launch, after the filter, by the library already there. Absent (no
// driver library of that name): such a launch fails as it would have.
void preload_ptx_compiler() {
  for (const char* name : {"libnvidia-ptxjitcompiler.so.1", "libnvidia-ptxjitcompiler.so"})
    if (dlopen(name, RTLD_NOW | RTLD_LOCAL) != nullptr) return;
}

// Nothing left of how the process was started: the environment (which /proc/self/environ shows
// from its original block) and the command line.
void forget_start(int argc, char** argv) {
  for (char** e = environ; *e != nullptr; ++e) std::memset(*e, 0, std::strlen(*e));
  clearenv();
  for (int i = 1; i < argc; ++i) std::memset(argv[i], 0, std::strlen(argv[i]));
}

// ---- serving ------------------------------------------------------------------------------------

struct Mapping {
  CUdeviceptr base = 0;
  std::size_t size = 0;
};

class Server {
 public:
  static constexpr std::size_t kScratchBytes = 4096;
  Server(cudalab_dispatch_fn dispatch, const wire::HostArea* area, CUstream stream,
         CUdeviceptr scratch, CUfunction empty, serve::KernelCounters* counters)
      : dispatch_(dispatch),
        area_(area),
        stream_(stream),
        scratch_(scratch),
        empty_(empty),
        counters_(counters) {}

  void serve() {
    std::string body;
    while (wire::receive_message(kChannel, &body, -1) == 1) {
      wire::Reader r(body);
      wire::Writer reply;
      const auto request = static_cast<wire::Request>(r.u8());
      reply.u64(r.u64());  // the nonce, echoed
      if (request == wire::Request::fence) {
        const CUresult sync = cuCtxSynchronize();
        reply.u8(sync != CUDA_SUCCESS ? 1 : 0).text(sync != CUDA_SUCCESS ? driver_error(sync) : "");
      } else if (request == wire::Request::call) {
        call(r, reply);
      } else if (request == wire::Request::ping) {
        if (empty_ != nullptr)
          cuLaunchKernel(empty_, 1, 1, 1, 32, 1, 1, 0, stream_, nullptr, nullptr);
        else
          cuMemsetD8Async(scratch_, 0, kScratchBytes, stream_);
        cuCtxSynchronize();
        reply.u8(0);
      } else if (request == wire::Request::collect) {
        collect(reply);
      } else {
        break;
      }
      if (!wire::send_message(kChannel, reply.body())) break;
      release_unused();
    }
  }

 private:
  void call(wire::Reader& r, wire::Writer& reply) {
    cudalab_call c{};
    std::vector<cudalab_value> args;
    std::string problem;
    used_.clear();
    try {
      c.function = r.u32();
      const std::uint32_t n = r.u32();
      if (n > 64) throw std::runtime_error("too many arguments");
      for (std::uint32_t i = 0; i < n; ++i) {
        cudalab_value v{};
        v.tag = static_cast<char>(r.u8());
        switch (static_cast<wire::Arg>(v.tag)) {
          case wire::Arg::integer: v.i = r.i64(); break;
          case wire::Arg::real: v.f = r.f64(); break;
          case wire::Arg::null:
            v.tag = 'p';
            v.ptr = nullptr;
            break;
          case wire::Arg::device: {
            std::string handle(wire::kIpcHandleBytes, '\0');
            r.raw(handle.data(), handle.size());
            const std::uint64_t offset = r.u64();
            const std::uint64_t size = r.u64();
            v.ptr = map(handle, offset, size);
            break;
          }
          case wire::Arg::host: {
            // In place in the area: the judge copied it in and copies it back after the answer.
            const std::uint64_t offset = r.u64();
            const std::uint64_t size = r.u64();
            v.ptr = area_->at(offset, size);
            v.bytes = static_cast<std::size_t>(size);
            break;
          }
          default: throw std::runtime_error("an argument of unknown kind");
        }
        args.push_back(v);
      }
    } catch (const std::exception& e) {
      problem = e.what();
    }
    if (!problem.empty()) {
      reply.u8(static_cast<std::uint8_t>(wire::Status::bad_request)).text(problem).u8(0).text("");
      return;
    }
    c.args = args.data();
    c.nargs = static_cast<std::uint32_t>(args.size());
    c.stream = reinterpret_cast<cudaStream_t>(stream_);
    std::size_t launched_before = 0;
    const bool counted = counters_ != nullptr;
    if (counted) {
      launched_before = launched_so_far();
      counters_->begin();
    }
    const int rc = dispatch_(&c);
    // Everything the call started, on any stream of the context, is done before the answer.
    const CUresult sync = cuCtxSynchronize();
    if (counted) {
      // The counters' ranges are this call's launches, in order.
      std::vector<std::string> names;
      {
        launched_so_far();
        std::lock_guard<std::mutex> lock(records_mutex);
        std::size_t i = 0;
        for (const auto& [id, name] : launches)
          if (i++ >= launched_before) names.push_back(name);
      }
      counters_->end(names, &counted_);
    }
    wire::Status status = wire::Status::ok;
    std::string error;
    if (rc == kBadArguments) {
      status = wire::Status::bad_request;
      error = c.error;
    } else if (rc == kThrewInvalidArgument) {
      status = wire::Status::threw_invalid_argument;
      error = c.error;
    } else if (rc < 0) {
      status = wire::Status::threw;
      error = c.error;
    } else if (rc > 0) {
      status = wire::Status::cuda_error;
      error = c.error[0] != '\0' ? c.error : "CUDA error " + std::to_string(rc);
    }
    if (sync != CUDA_SUCCESS && status == wire::Status::ok) {
      status = wire::Status::cuda_error;
      if (error.empty()) error = driver_error(sync);
    }
    reply.u8(static_cast<std::uint8_t>(status)).text(error).u8(sync != CUDA_SUCCESS ? 1 : 0);
    reply.bytes(c.result, c.result_bytes);
  }

  // Launches recorded since the last collect, every record of the context's work so far in.
  static std::size_t launched_so_far() {
    if (tracing) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(records_mutex);
    return launches.size();
  }

  void collect(wire::Writer& reply) {
    cuCtxSynchronize();
    if (tracing) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(records_mutex);
    reply.text(tracing_problem);
    reply.u32(static_cast<std::uint32_t>(record_order.size()));
    for (const std::string& name : record_order) {
      const KernelRecord& k = records[name];
      reply.text(name)
          .i64(k.launches)
          .i64(k.static_shared)
          .i64(std::max(0LL, k.dynamic_shared))
          .i64(k.threads);
    }
    records.clear();
    record_order.clear();
    launches.clear();
    // What each kernel executed (the counters, when this process reads them).
    reply.text(counters_ == nullptr ? "not counted" : counters_->problem());
    reply.u32(static_cast<std::uint32_t>(counted_.size()));
    for (const auto& [name, values] : counted_) {
      reply.text(name).u32(static_cast<std::uint32_t>(values.size()));
      for (const auto& [key, value] : values) reply.text(key).f64(value);
    }
    counted_.clear();
  }

  // The judge's allocation, mapped once and kept while calls use it.
  void* map(const std::string& handle, std::uint64_t offset, std::uint64_t size) {
    auto it = mappings_.find(handle);
    if (it == mappings_.end()) {
      CUipcMemHandle h;
      std::memcpy(&h, handle.data(), sizeof h);
      Mapping m;
      const CUresult r = cuIpcOpenMemHandle(&m.base, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
      if (r != CUDA_SUCCESS)
        throw std::runtime_error("cannot map a buffer of the grader's: " + driver_error(r));
      m.size = size;
      it = mappings_.emplace(handle, m).first;
    }
    if (offset > it->second.size) throw std::runtime_error("a pointer past its allocation");
    used_.insert(handle);
    return reinterpret_cast<void*>(it->second.base + offset);
  }

  // Buffers the last call did not use are the judge's to free: unmapped (after the answer, so
  // that it costs no call any time).
  void release_unused() {
    for (auto it = mappings_.begin(); it != mappings_.end();) {
      if (used_.count(it->first) == 0) {
        cuIpcCloseMemHandle(it->second.base);
        it = mappings_.erase(it);
      } else {
        ++it;
      }
    }
  }

  cudalab_dispatch_fn dispatch_;
  const wire::HostArea* area_;  // where the host arguments are
  CUstream stream_;
  CUdeviceptr scratch_;  // what an empty call clears, without the empty kernel
  CUfunction empty_;
  serve::KernelCounters* counters_;  // null unless the grader asked for the counters
  std::map<std::string, std::map<std::string, double>> counted_;  // since the last collect
  std::map<std::string, Mapping> mappings_;
  std::set<std::string> used_;
};

int not_serving(const std::string& why) {
  wire::Writer w;
  w.u8(static_cast<std::uint8_t>(wire::Status::not_serving)).text(why);
  wire::send_message(kChannel, w.body());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool records_wanted = argc >= 3 && std::strcmp(argv[2], "--no-kernel-records") != 0;
  // --counters: every call's kernels counted (a technique check, or one side of a profile).
  const bool counted = argc == 4 && std::strcmp(argv[3], "--counters") == 0;
  if (argc < 2 || argc > 4 || fcntl(kChannel, F_GETFD) < 0 ||
      fcntl(wire::kHostAreaDescriptor, F_GETFD) < 0) {
    std::fprintf(stderr,
                 "cudalab-serve: started by a lab's grader only (usage: cudalab-serve LIBRARY "
                 "[--kernel-records|--no-kernel-records [--counters]], with the grader's channel "
                 "on descriptor 3 and its host-argument area on descriptor 4)\n");
    return 2;
  }
  const std::string library = argv[1];
  // Signals: every handler the default one.
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
  // 0. The area mapped; then nothing the process inherited stays open but the channel, the area's
  // descriptor included (before the driver opens its own).
  wire::HostArea area;
  std::string area_problem;
  try {
    area = wire::HostArea::map(wire::kHostAreaDescriptor);
  } catch (const std::exception& e) {
    area_problem = e.what();
  }
  close_range(kChannel + 1, ~0U, 0);
  if (!area_problem.empty()) return not_serving(area_problem);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // Not open to the other cudalab-serve process of the check (confine.h).
  if (!serve::make_undumpable())
    return not_serving(std::string("PR_SET_DUMPABLE: ") + std::strerror(errno));

  // 1. The context, made while threads are allowed (the driver starts some of its own).
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUresult r = cuInit(0);
  if (r == CUDA_SUCCESS) r = cuDeviceGet(&device, 0);
  if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&context, device);
  if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(context);
  if (r == CUDA_SUCCESS) r = cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  CUdeviceptr warm = 0;
  if (r == CUDA_SUCCESS) r = cuMemAlloc(&warm, 1 << 20);
  if (r == CUDA_SUCCESS) r = cuMemsetD8Async(warm, 0, 1 << 20, stream);
  if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
  if (r != CUDA_SUCCESS) return not_serving("no CUDA context: " + driver_error(r));
  // Before the records start: its warm-up launch is not one of the calls' kernels.
  const CUfunction empty = load_empty_kernel(stream);
  preload_ptx_compiler();
  if (records_wanted)
    start_tracing();
  else
    tracing_problem = "not recorded (under compute-sanitizer, which CUPTI does not run beside)";
  // The performance counters, for a technique check or a profile: set up while threads are
  // allowed.
  serve::KernelCounters* counters = counted ? new serve::KernelCounters(context) : nullptr;

  // 2. and 3.
  forget_start(argc, argv);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return not_serving(std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno));
  if (const std::string e = serve::confine_before_loading(counters == nullptr); !e.empty())
    return not_serving(e);
  // A counted process may open files for writing (the range profiler opens the driver's), but
  // only the device files and the scratch folders: not /proc/self/mem, through which the file's
  // code could rewrite this process's code or the counts. A kernel without Landlock leaves that
  // open (docs/grading.md, "What it does not guarantee").
  if (counters != nullptr) {
    if (const std::string e = serve::writes_beneath_only({"/dev", "/tmp"});
        !e.empty() && e != serve::kNoLandlock)
      return not_serving(e);
  }

  // The student's code, confined from its first constructor on.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    return not_serving(std::string("cannot load the candidate: ") + (e != nullptr ? e : "?"));
  }
  auto dispatch = reinterpret_cast<cudalab_dispatch_fn>(dlsym(handle, "cudalab_serve_dispatch"));
  if (dispatch == nullptr) return not_serving("the candidate library has no dispatch");
  if (const std::string e = serve::confine_after_loading(); !e.empty()) return not_serving(e);

  wire::Writer ready;
  ready.u8(static_cast<std::uint8_t>(wire::Status::ok));
  if (!wire::send_message(kChannel, ready.body())) _exit(1);
  Server(dispatch, &area, stream, warm, empty, counters).serve();
  // No exit handlers, no destructors: nothing of the student's runs after the last call.
  _exit(0);
}
