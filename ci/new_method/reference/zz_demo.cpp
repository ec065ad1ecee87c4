// File: reference/zz_demo.cpp
#include "reference/zz_demo.h"

#include <cstddef>

namespace cb::ref::zz_demo {

double Dot(std::span<const float> a, std::span<const float> b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) sum += double(a[i]) * double(b[i]);
  return sum;
}

}  // namespace cb::ref::zz_demo
