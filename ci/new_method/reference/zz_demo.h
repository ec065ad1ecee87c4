// File: reference/zz_demo.h
// -----------------------------------------------------------------------------
// The CPU reference of the throw-away method that ci/new_method_check.sh adds
// to a copy of the tree: a dot product, fp64 accumulation. The reference is
// the spec: plain loops, no tricks.
#ifndef CB_REFERENCE_ZZ_DEMO_H_
#define CB_REFERENCE_ZZ_DEMO_H_

#include <span>

namespace cb::ref::zz_demo {

// sum_i a[i] * b[i] in fp64. REQUIRES: a.size() == b.size().
double Dot(std::span<const float> a, std::span<const float> b);

}  // namespace cb::ref::zz_demo

#endif  // CB_REFERENCE_ZZ_DEMO_H_
