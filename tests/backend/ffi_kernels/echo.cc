// A test kernel that writes every attribute it receives, one after another, into its float64
// result (tests/backend/test_ffi.py checks that each arrives with its value and type), and a
// kernel that always fails with the message it is given.
#include <cstdint>
#include <string_view>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

struct Writer {
  double* out;
  int64_t size;
  int64_t at = 0;
  void Put(double v) {
    if (at < size) out[at] = v;
    ++at;
  }
};

ffi::Error EchoImpl(int8_t i8, int16_t i16, int32_t i32, int64_t i64, uint8_t u8, uint16_t u16,
                    uint32_t u32, uint64_t u64, float f32, double f64, bool flag, int64_t py_int,
                    double py_float, std::string_view label, int32_t dtype,
                    ffi::Span<const int32_t> ints, ffi::Span<const double> floats,
                    ffi::Span<const uint8_t> bytes, ffi::Buffer<ffi::F64> x,
                    ffi::ResultBuffer<ffi::F64> out) {
  Writer w{out->typed_data(), static_cast<int64_t>(out->element_count())};
  w.Put(i8); w.Put(i16); w.Put(i32); w.Put(static_cast<double>(i64));
  w.Put(u8); w.Put(u16); w.Put(u32); w.Put(static_cast<double>(u64));
  w.Put(f32); w.Put(f64); w.Put(flag ? 1.0 : 0.0); w.Put(static_cast<double>(py_int)); w.Put(py_float);
  w.Put(static_cast<double>(label.size()));
  for (char c : label) w.Put(static_cast<unsigned char>(c));
  w.Put(static_cast<double>(static_cast<ffi::DataType>(dtype) == ffi::DataType::F32 ? 1000 + dtype : dtype));
  w.Put(static_cast<double>(ints.size()));
  for (int32_t v : ints) w.Put(v);
  w.Put(static_cast<double>(floats.size()));
  for (double v : floats) w.Put(v);
  w.Put(static_cast<double>(bytes.size()));
  for (uint8_t v : bytes) w.Put(v);
  double sum = 0.0;
  for (size_t k = 0; k < x.element_count(); ++k) sum += x.typed_data()[k];
  w.Put(sum);
  if (w.at > w.size) {
    return ffi::Error(ffi::ErrorCode::kInvalidArgument, "echo: the result is too small");
  }
  for (int64_t k = w.at; k < w.size; ++k) out->typed_data()[k] = -1.0;
  return ffi::Error::Success();
}

ffi::Error FailImpl(std::string_view message, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  return ffi::Error(ffi::ErrorCode::kFailedPrecondition, std::string(message));
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(Echo, EchoImpl,
                              ffi::Ffi::Bind()
                                  .Attr<int8_t>("i8")
                                  .Attr<int16_t>("i16")
                                  .Attr<int32_t>("i32")
                                  .Attr<int64_t>("i64")
                                  .Attr<uint8_t>("u8")
                                  .Attr<uint16_t>("u16")
                                  .Attr<uint32_t>("u32")
                                  .Attr<uint64_t>("u64")
                                  .Attr<float>("f32")
                                  .Attr<double>("f64")
                                  .Attr<bool>("flag")
                                  .Attr<int64_t>("py_int")
                                  .Attr<double>("py_float")
                                  .Attr<std::string_view>("label")
                                  .Attr<int32_t>("dtype")
                                  .Attr<ffi::Span<const int32_t>>("ints")
                                  .Attr<ffi::Span<const double>>("floats")
                                  .Attr<ffi::Span<const uint8_t>>("bytes")
                                  .Arg<ffi::Buffer<ffi::F64>>()
                                  .Ret<ffi::Buffer<ffi::F64>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(Fail, FailImpl,
                              ffi::Ffi::Bind()
                                  .Attr<std::string_view>("message")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());
