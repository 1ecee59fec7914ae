// RAII owners for the two texture resources of lab 05: a cudaArray (the texels) and a
// cudaTextureObject_t (how they are sampled). Each owns what it is given and frees it when it is
// reset or destroyed; destroy the texture object before its array (declare the array first: C++
// destroys members in reverse order). Errors while freeing are ignored: a destructor must not
// throw.
//
// The labs keep their resources in a TextureState that is created once and never destroyed
// (texture_state() below): a namespace-scope object would be destroyed after the CUDA runtime has
// shut down at exit, and its cudaFreeArray would fail. The driver frees everything with the
// context at exit anyway.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace lab05 {

class CudaArray {
 public:
  CudaArray() = default;
  ~CudaArray() { reset(); }
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;

  cudaArray_t get() const { return array_; }
  // Frees the array held (if any) and takes ownership of `array`.
  void reset(cudaArray_t array = nullptr) noexcept {
    if (array_ != nullptr) cudaFreeArray(array_);
    array_ = array;
  }

 private:
  cudaArray_t array_ = nullptr;
};

class TextureObject {
 public:
  TextureObject() = default;
  ~TextureObject() { reset(); }
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;

  cudaTextureObject_t get() const { return texture_; }
  // Destroys the texture object held (if any) and takes ownership of `texture`.
  void reset(cudaTextureObject_t texture = 0) noexcept {
    if (texture_ != 0) cudaDestroyTextureObject(texture_);
    texture_ = texture;
  }

 private:
  cudaTextureObject_t texture_ = 0;
};

// One texture and the array it reads. reset() frees both, texture first.
struct TextureState {
  CudaArray array;  // declared first: destroyed last
  TextureObject texture;
  int width = 0, height = 0;
  void reset() noexcept {
    texture.reset();
    array.reset();
    width = height = 0;
  }
};

}  // namespace lab05
