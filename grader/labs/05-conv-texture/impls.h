// The implementations a lab-05 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as two
// ConvVariants (global, texture) and a RotationVariant. Each keeps its textures in its own state
// (different namespaces), so both can be prepared and run side by side.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "conv_texture.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "conv_texture.h"
#undef CUDALAB_IMPL

#include "texture_check.h"

namespace lab05 {

inline const ConvVariant kCandidateGlobal{
    "student global", nullptr,
    [](const float* img, const float* mask, float* out, int w, int h, int r, cudaStream_t s) {
      candidate::conv2d_global(img, mask, out, w, h, r, s);
    }};
inline const ConvVariant kCandidateTexture{
    "student texture",
    [](const float* host_img, int w, int h) { candidate::prepare_texture(host_img, w, h); },
    [](const float*, const float* mask, float* out, int w, int h, int r, cudaStream_t s) {
      candidate::conv2d_texture(mask, out, w, h, r, s);
    }};
inline const RotationVariant kCandidateRotation{
    "student",
    [](const float* host_img, int w, int h, cudaTextureAddressMode mode) {
      candidate::prepare_rotation(host_img, w, h, mode);
    },
    [](float* out, int w, int h, float theta, cudaStream_t s) {
      candidate::rotate(out, w, h, theta, s);
    }};

inline const ConvVariant kReferenceGlobal{
    "reference global", nullptr,
    [](const float* img, const float* mask, float* out, int w, int h, int r, cudaStream_t s) {
      reference::conv2d_global(img, mask, out, w, h, r, s);
    }};
inline const ConvVariant kReferenceTexture{
    "reference texture",
    [](const float* host_img, int w, int h) { reference::prepare_texture(host_img, w, h); },
    [](const float*, const float* mask, float* out, int w, int h, int r, cudaStream_t s) {
      reference::conv2d_texture(mask, out, w, h, r, s);
    }};
inline const RotationVariant kReferenceRotation{
    "reference",
    [](const float* host_img, int w, int h, cudaTextureAddressMode mode) {
      reference::prepare_rotation(host_img, w, h, mode);
    },
    [](float* out, int w, int h, float theta, cudaStream_t s) {
      reference::rotate(out, w, h, theta, s);
    }};

}  // namespace lab05
