# DISTBENCH_CUDA: which of the worker's CUDA parts this build compiles
# (docs/gpu.md). Two layers, found apart:
#
# - the CUDA runtime and NCCL alone (device probing, placement, version
#   capture, CUDA-event timing: worker/src/gpu/*_cuda.cpp,
#   cuda_event_clock.cpp): wherever the CUDA toolkit and NCCL are found;
#   Debian 12 CI machines have them under /usr/local/cuda, without a GPU.
# - LibTorch's CUDA side (CUDA tensors and streams, c10d's NCCL process
#   group: worker/src/gpu/torch_cuda.cpp, comm/nccl_backend.cpp): wherever
#   LibTorch was built with CUDA (its package then defines torch_cuda).
#
#   AUTO (default)  each layer where it is found
#   ON              both, or the configure fails naming what is missing
#   OFF             neither: a CPU-only worker
#
# Results: DISTBENCH_HAVE_CUDA_RUNTIME, DISTBENCH_HAVE_TORCH_CUDA,
# DISTBENCH_CUDART (the CUDA runtime target to link), and the
# NCCL_INCLUDE_DIR cache entry (set it where nccl.h is elsewhere, e.g. a
# PyTorch wheel's nvidia/nccl/include).
#
# Without LibTorch's CUDA side the worker must still start on machines
# without CUDA (a CPU image built from these binaries, a CI runner): so the
# runtime is linked statically (it loads the driver, libcuda.so.1, only
# when first called) and NCCL is not linked at all (its version is read
# through dlopen, gpu_runtime_cuda.cpp). With LibTorch's CUDA side the
# process has LibTorch's shared runtime and NCCL anyway, and shares them.
set(DISTBENCH_CUDA AUTO CACHE STRING "CUDA and NCCL in the worker: AUTO, ON or OFF")
set_property(CACHE DISTBENCH_CUDA PROPERTY STRINGS AUTO ON OFF)
if(NOT DISTBENCH_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "DISTBENCH_CUDA=${DISTBENCH_CUDA}: use AUTO, ON or OFF")
endif()

set(DISTBENCH_HAVE_CUDA_RUNTIME OFF)
set(DISTBENCH_HAVE_TORCH_CUDA OFF)
if(NOT DISTBENCH_CUDA STREQUAL "OFF")
  # A CUDA LibTorch's package has looked for the toolkit already.
  if(NOT TARGET CUDA::cudart)
    find_package(CUDAToolkit QUIET)
  endif()
  find_path(NCCL_INCLUDE_DIR nccl.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_ROOT PATH_SUFFIXES include)

  set(missing "")
  if(NOT TARGET CUDA::cudart)
    list(APPEND missing "the CUDA toolkit (CUDAToolkit_ROOT, or nvcc on PATH)")
  endif()
  if(NOT NCCL_INCLUDE_DIR)
    list(APPEND missing "NCCL's nccl.h (NCCL_INCLUDE_DIR)")
  endif()
  if(NOT missing)
    set(DISTBENCH_HAVE_CUDA_RUNTIME ON)
  endif()
  if(TARGET torch_cuda AND DISTBENCH_HAVE_CUDA_RUNTIME)
    set(DISTBENCH_HAVE_TORCH_CUDA ON)
  elseif(NOT TARGET torch_cuda)
    list(APPEND missing "a LibTorch built with CUDA (LibTorch ${Torch_VERSION} has none)")
  endif()
  if(DISTBENCH_CUDA STREQUAL "ON" AND missing)
    list(JOIN missing "; " text)
    message(FATAL_ERROR "DISTBENCH_CUDA=ON, but this machine lacks: ${text}")
  endif()
endif()

if(DISTBENCH_HAVE_TORCH_CUDA)
  set(DISTBENCH_CUDART CUDA::cudart)
elseif(DISTBENCH_HAVE_CUDA_RUNTIME)
  set(DISTBENCH_CUDART CUDA::cudart_static)
endif()
if(DISTBENCH_HAVE_CUDA_RUNTIME)
  set(runtime_text "CUDA runtime ${CUDAToolkit_VERSION} (${DISTBENCH_CUDART}), nccl.h in ${NCCL_INCLUDE_DIR}")
else()
  set(runtime_text "no CUDA runtime")
endif()
if(DISTBENCH_HAVE_TORCH_CUDA)
  set(torch_text "LibTorch ${Torch_VERSION} with CUDA")
else()
  set(torch_text "LibTorch ${Torch_VERSION} without CUDA")
endif()
message(STATUS "distbench CUDA (DISTBENCH_CUDA=${DISTBENCH_CUDA}): ${runtime_text}; ${torch_text}")
