// File: suites/coat/coat.cpp
// CPU path and backend dispatch of coat.h (the fast CPU DRE is coat_cpu.cpp).
#include "suites/coat/coat.h"
#include "suites/coat/coat_cuda.h"

#include <stdexcept>
#include <string>

namespace cb::coat {
namespace {

#if !CB_HAVE_CUDA
[[noreturn]] void Unreachable() {
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
}
#endif

}  // namespace

std::vector<uint8_t> EncodeFp8(harness::Backend b, std::span<const float> x, ref::fp8::Format f) {
  harness::RequireAvailable(b);
  if (b == harness::Backend::kCpu) {
    std::vector<uint8_t> out(x.size());
    if (f == ref::fp8::Format::kE4M3) {
      EncodeE4M3Cpu(x, out);
    } else {
      ref::fp8::EncodeSpan(x, out, f);
    }
    return out;
  }
#if CB_HAVE_CUDA
  return EncodeFp8Cuda(x, f);
#else
  Unreachable();
#endif
}

ref::coat::DreTensor DreQuantize(harness::Backend b, std::span<const float> x,
                                 const ref::coat::DreOptions& opt) {
  harness::RequireAvailable(b);
  if (b == harness::Backend::kCpu) return DreQuantizeCpu(x, opt);
#if CB_HAVE_CUDA
  return DreQuantizeCuda(x, opt);
#else
  Unreachable();
#endif
}

std::vector<float> DreDequantize(harness::Backend b, const ref::coat::DreTensor& t) {
  harness::RequireAvailable(b);
  // A tensor not made by DreQuantize would be read past its arrays.
  const int64_t groups = (t.size + ref::coat::kDreGroupSize - 1) / ref::coat::kDreGroupSize;
  if (t.size < 0 || static_cast<int64_t>(t.codes.size()) != t.size ||
      static_cast<int64_t>(t.groups.size()) != groups) {
    throw std::invalid_argument("DreDequantize: " + std::to_string(t.codes.size()) + " codes and " +
                                std::to_string(t.groups.size()) + " groups for " + std::to_string(t.size) +
                                " elements (need " + std::to_string(t.size) + " and " + std::to_string(groups) +
                                ")");
  }
  if (b == harness::Backend::kCpu) {
    std::vector<float> out(static_cast<size_t>(t.size));
    DreDequantizeCpu(t, out);
    return out;
  }
#if CB_HAVE_CUDA
  return DreDequantizeCuda(t);
#else
  Unreachable();
#endif
}

ref::coat::ScaledTensor QuantizeGroup16(harness::Backend b, std::span<const float> x,
                                        ref::fp8::Format f) {
  harness::RequireAvailable(b);
  if (b == harness::Backend::kCpu) return QuantizeGroup16Cpu(x, f);
#if CB_HAVE_CUDA
  return QuantizeGroup16Cuda(x, f);
#else
  Unreachable();
#endif
}

}  // namespace cb::coat
