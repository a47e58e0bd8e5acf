// RMS normalization over the last axis, as XLA FFI handlers for CUDA GPUs: the same three
// handlers as rms_norm.cc (RmsNormCuda, RmsNormFwdCuda, RmsNormBwdCuda), with the same
// attributes, operands and results, so one sg.ffi_call target can have both, registered with
// platform="cpu" and platform="cuda". Build: sg.ffi.build("rms_norm_cuda", ["rms_norm.cu"]) (nvcc).
//
// One thread block per row: its threads sum their share of the row, reduce the sums in shared
// memory, then write their share of the output.

#include <cmath>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

constexpr int kThreads = 256;

// The block-wide sum of each thread's `value` (every thread gets it).
__device__ float BlockSum(float value, float* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  float total = shared[0];
  __syncthreads();
  return total;
}

__global__ void NormalizeRows(const float* x, float* y, float* r_out, int64_t width, float eps) {
  __shared__ float shared[kThreads];
  const float* xi = x + blockIdx.x * width;
  float squares = 0.0f;
  for (int64_t j = threadIdx.x; j < width; j += blockDim.x) squares += xi[j] * xi[j];
  float r = rsqrtf(BlockSum(squares, shared) / width + eps);
  for (int64_t j = threadIdx.x; j < width; j += blockDim.x) y[blockIdx.x * width + j] = xi[j] * r;
  if (r_out != nullptr && threadIdx.x == 0) r_out[blockIdx.x] = r;
}

// dx_j = r ct_j - r^3 x_j / n * sum_i(ct_i x_i)
__global__ void BackwardRows(const float* r, const float* x, const float* ct, float* dx, int64_t width) {
  __shared__ float shared[kThreads];
  const float* xi = x + blockIdx.x * width;
  const float* ci = ct + blockIdx.x * width;
  float dot = 0.0f;
  for (int64_t j = threadIdx.x; j < width; j += blockDim.x) dot += ci[j] * xi[j];
  float ri = r[blockIdx.x];
  float scale = ri * ri * ri * BlockSum(dot, shared) / width;
  for (int64_t j = threadIdx.x; j < width; j += blockDim.x) dx[blockIdx.x * width + j] = ri * ci[j] - scale * xi[j];
}

template <typename Buffer>
void RowsAndWidth(const Buffer& x, int64_t* rows, int64_t* width) {
  auto dims = x.dimensions();
  *width = dims.size() == 0 ? 1 : dims[dims.size() - 1];
  *rows = *width == 0 ? 0 : static_cast<int64_t>(x.element_count()) / *width;
}

ffi::Error Launched(float eps) {
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    return ffi::Error(ffi::ErrorCode::kInternal, std::string("rms_norm: ") + cudaGetErrorString(status));
  }
  return ffi::Error::Success();
}

ffi::Error CheckEps(float eps) {
  if (!(eps >= 0.0f)) {
    return ffi::Error(ffi::ErrorCode::kInvalidArgument,
                      "rms_norm: eps must be >= 0, got " + std::to_string(eps));
  }
  return ffi::Error::Success();
}

ffi::Error RmsNormImpl(cudaStream_t stream, float eps, ffi::Buffer<ffi::F32> x,
                       ffi::ResultBuffer<ffi::F32> y) {
  if (ffi::Error e = CheckEps(eps); e.failure()) return e;
  int64_t rows, width;
  RowsAndWidth(x, &rows, &width);
  if (rows > 0) NormalizeRows<<<rows, kThreads, 0, stream>>>(x.typed_data(), y->typed_data(), nullptr, width, eps);
  return Launched(eps);
}

ffi::Error RmsNormFwdImpl(cudaStream_t stream, float eps, ffi::Buffer<ffi::F32> x,
                          ffi::ResultBuffer<ffi::F32> y, ffi::ResultBuffer<ffi::F32> r) {
  if (ffi::Error e = CheckEps(eps); e.failure()) return e;
  int64_t rows, width;
  RowsAndWidth(x, &rows, &width);
  if (rows > 0) {
    NormalizeRows<<<rows, kThreads, 0, stream>>>(x.typed_data(), y->typed_data(), r->typed_data(), width, eps);
  }
  return Launched(eps);
}

ffi::Error RmsNormBwdImpl(cudaStream_t stream, float eps, ffi::Buffer<ffi::F32> r, ffi::Buffer<ffi::F32> x,
                          ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> dx) {
  if (ffi::Error e = CheckEps(eps); e.failure()) return e;
  int64_t rows, width;
  RowsAndWidth(x, &rows, &width);
  if (rows > 0) {
    BackwardRows<<<rows, kThreads, 0, stream>>>(r.typed_data(), x.typed_data(), ct.typed_data(),
                                                dx->typed_data(), width);
  }
  return Launched(eps);
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormCuda, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFwdCuda, RmsNormFwdImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormBwdCuda, RmsNormBwdImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());
