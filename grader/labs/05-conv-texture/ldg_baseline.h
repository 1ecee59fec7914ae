// A baseline for the runner's --bench: the plain global-memory convolution with every image and
// mask load through __ldg (the read-only data cache, the path textures share on current GPUs).
#pragma once

#include <cuda_runtime.h>

#include "texture_check.h"

namespace lab05::baseline {

void conv2d_ldg(const float* img, const float* mask, float* out, int w, int h, int radius,
                cudaStream_t stream);

inline const ConvVariant kLdgGlobal{"__ldg global", nullptr, &conv2d_ldg};

}  // namespace lab05::baseline
