# Dependencies from the distribution's packages only (scripts/setup installs them on Debian/Ubuntu).

# Catch2: v3 (Debian 13, Ubuntu 24.04) or v2 (Debian 12, Ubuntu 22.04).
find_package(Catch2 3 QUIET CONFIG)
if(Catch2_FOUND)
  set(CUDALAB_CATCH2_MAJOR 3)
  set(CUDALAB_CATCH2_TARGET Catch2::Catch2)
else()
  find_package(Catch2 2 QUIET CONFIG)
  if(NOT Catch2_FOUND)
    message(FATAL_ERROR "Catch2 not found. Install it with: scripts/setup (Debian/Ubuntu: apt-get install catch2)")
  endif()
  set(CUDALAB_CATCH2_MAJOR 2)
  set(CUDALAB_CATCH2_TARGET Catch2::Catch2)
endif()
# Catch.cmake (catch_discover_tests) sits next to the package's config file.
list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")
include(Catch)
message(STATUS "Catch2 ${Catch2_VERSION} (v${CUDALAB_CATCH2_MAJOR})")

# cxxopts: header-only; its CMake package is not shipped everywhere, so look for the header too.
find_package(cxxopts QUIET CONFIG)
if(NOT TARGET cxxopts::cxxopts)
  find_path(CXXOPTS_INCLUDE_DIR cxxopts.hpp)
  if(NOT CXXOPTS_INCLUDE_DIR)
    message(FATAL_ERROR "cxxopts not found. Install it with: scripts/setup (Debian/Ubuntu: apt-get install libcxxopts-dev)")
  endif()
  add_library(cxxopts::cxxopts INTERFACE IMPORTED)
  target_include_directories(cxxopts::cxxopts INTERFACE "${CXXOPTS_INCLUDE_DIR}")
endif()

# stb (image files; used by the image labs).
find_path(STB_INCLUDE_DIR stb_image.h PATH_SUFFIXES stb)
if(NOT STB_INCLUDE_DIR)
  message(FATAL_ERROR "stb not found. Install it with: scripts/setup (Debian/Ubuntu: apt-get install libstb-dev)")
endif()
add_library(cudalab_stb INTERFACE)
target_include_directories(cudalab_stb SYSTEM INTERFACE "${STB_INCLUDE_DIR}")

# libseccomp: the candidate process (cudalab-serve) confines itself with a seccomp filter before
# it loads the student's file.
find_path(CUDALAB_SECCOMP_INCLUDE_DIR seccomp.h)
find_library(CUDALAB_SECCOMP_LIBRARY seccomp)
if(NOT CUDALAB_SECCOMP_INCLUDE_DIR OR NOT CUDALAB_SECCOMP_LIBRARY)
  message(FATAL_ERROR "libseccomp not found. Install it with: scripts/setup (Debian/Ubuntu: apt-get install libseccomp-dev)")
endif()
add_library(cudalab_seccomp INTERFACE)
target_include_directories(cudalab_seccomp SYSTEM INTERFACE "${CUDALAB_SECCOMP_INCLUDE_DIR}")
target_link_libraries(cudalab_seccomp INTERFACE "${CUDALAB_SECCOMP_LIBRARY}")

find_program(CUDALAB_COMPUTE_SANITIZER compute-sanitizer
  HINTS "${CUDAToolkit_BIN_DIR}" /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer)
if(CUDALAB_COMPUTE_SANITIZER)
  message(STATUS "compute-sanitizer: ${CUDALAB_COMPUTE_SANITIZER}")
else()
  message(STATUS "compute-sanitizer: not found (sanitize tests will be skipped)")
endif()

# cuDNN (optional): the lab 04 bench compares with it when it is found. It is not part of every
# CUDA install; point CUDALAB_CUDNN_ROOT (or the CUDNN_ROOT environment variable) at a folder with
# include/cudnn.h and lib/libcudnn.so* (e.g. a cuDNN tarball or the nvidia/cudnn folder of the
# Python wheel).
set(CUDALAB_CUDNN_ROOT "" CACHE PATH "Folder holding include/cudnn.h and lib/libcudnn.so* (optional)")
find_path(CUDALAB_CUDNN_INCLUDE_DIR cudnn.h
  HINTS "${CUDALAB_CUDNN_ROOT}" ENV CUDNN_ROOT "${CUDAToolkit_INCLUDE_DIRS}/.."
  PATH_SUFFIXES include)
find_library(CUDALAB_CUDNN_LIBRARY NAMES cudnn libcudnn.so.9
  HINTS "${CUDALAB_CUDNN_ROOT}" ENV CUDNN_ROOT "${CUDAToolkit_LIBRARY_DIR}"
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
add_library(cudalab_cudnn INTERFACE)
if(CUDALAB_CUDNN_INCLUDE_DIR AND CUDALAB_CUDNN_LIBRARY)
  target_include_directories(cudalab_cudnn SYSTEM INTERFACE "${CUDALAB_CUDNN_INCLUDE_DIR}")
  target_link_libraries(cudalab_cudnn INTERFACE "${CUDALAB_CUDNN_LIBRARY}")
  target_compile_definitions(cudalab_cudnn INTERFACE CUDALAB_HAVE_CUDNN=1)
  message(STATUS "cuDNN: ${CUDALAB_CUDNN_LIBRARY} (the benches compare with it)")
else()
  message(STATUS "cuDNN: not found; the benches say so and skip it (set CUDALAB_CUDNN_ROOT)")
endif()
