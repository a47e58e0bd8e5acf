// RMS normalization over the last axis, as XLA FFI handlers for the CPU.
//
//   y = x / sqrt(mean(x^2, last axis) + eps)
//
// Three handlers, built by sg.ffi.build("rms_norm", ["rms_norm.cc"]):
//   RmsNorm     x -> y                       (the forward alone)
//   RmsNormFwd  x -> (y, r)                  (r = 1 / sqrt(mean(x^2) + eps), one per row: the residual
//                                              the backward needs)
//   RmsNormBwd  (r, x, ct) -> dx             (the vector-Jacobian product)
// Every handler takes the float32 attribute `eps` and refuses a negative one with an
// InvalidArgument status (stablegraph reports it as an ExecutionError at the call's line).

#include <cmath>
#include <cstdint>
#include <string>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

// The number of rows (every axis but the last) and the row length of a buffer.
template <typename Buffer>
void RowsAndWidth(const Buffer& x, int64_t* rows, int64_t* width) {
  auto dims = x.dimensions();
  *width = dims.size() == 0 ? 1 : dims[dims.size() - 1];
  *rows = *width == 0 ? 0 : static_cast<int64_t>(x.element_count()) / *width;
}

ffi::Error CheckEps(float eps) {
  if (!(eps >= 0.0f)) {
    return ffi::Error(ffi::ErrorCode::kInvalidArgument,
                      "rms_norm: eps must be >= 0, got " + std::to_string(eps));
  }
  return ffi::Error::Success();
}

// One row: writes y and returns r.
float NormalizeRow(const float* x, float* y, int64_t width, float eps) {
  double squares = 0.0;
  for (int64_t j = 0; j < width; ++j) squares += static_cast<double>(x[j]) * x[j];
  float r = 1.0f / std::sqrt(static_cast<float>(squares / width) + eps);
  for (int64_t j = 0; j < width; ++j) y[j] = x[j] * r;
  return r;
}

ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  if (ffi::Error e = CheckEps(eps); e.failure()) return e;
  int64_t rows, width;
  RowsAndWidth(x, &rows, &width);
  for (int64_t i = 0; i < rows; ++i) {
    NormalizeRow(x.typed_data() + i * width, y->typed_data() + i * width, width, eps);
  }
  return ffi::Error::Success();
}

ffi::Error RmsNormFwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y,
                          ffi::ResultBuffer<ffi::F32> r) {
  if (ffi::Error e = CheckEps(eps); e.failure()) return e;
  int64_t rows, width;
  RowsAndWidth(x, &rows, &width);
  for (int64_t i = 0; i < rows; ++i) {
    r->typed_data()[i] =
        NormalizeRow(x.typed_data() + i * width, y->typed_data() + i * width, width, eps);
  }
  return ffi::Error::Success();
}

// dx_j = r ct_j - r^3 x_j / n * sum_i(ct_i x_i), from y_i = x_i r and dr/dx_j = -r^3 x_j / n.
ffi::Error RmsNormBwdImpl(float eps, ffi::Buffer<ffi::F32> r, ffi::Buffer<ffi::F32> x,
                          ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> dx) {
  if (ffi::Error e = CheckEps(eps); e.failure()) return e;
  int64_t rows, width;
  RowsAndWidth(x, &rows, &width);
  for (int64_t i = 0; i < rows; ++i) {
    const float* xi = x.typed_data() + i * width;
    const float* ci = ct.typed_data() + i * width;
    float* di = dx->typed_data() + i * width;
    float ri = r.typed_data()[i];
    double dot = 0.0;
    for (int64_t j = 0; j < width; ++j) dot += static_cast<double>(ci[j]) * xi[j];
    float scale = static_cast<float>(ri * ri * ri * dot / width);
    for (int64_t j = 0; j < width; ++j) di[j] = ri * ci[j] - scale * xi[j];
  }
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFwd, RmsNormFwdImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormBwd, RmsNormBwdImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());
