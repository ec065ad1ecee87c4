// File: reference/ibedl/special.h
// -----------------------------------------------------------------------------
// The special functions of the evidential losses, in fp64: digamma psi(x),
// trigamma psi'(x) and ln Gamma(x) (glibc's lgamma; std::lgamma is not
// thread-safe only through signgam, which we never read).
//
// Digamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the
// asymptotic series ln x - 1/(2x) - sum B_2n / (2n x^2n) (7 terms); for x < 0.5
// the reflection psi(1 - x) - pi / tan(pi x). Trigamma: the recurrence
// psi'(x) = psi'(x + 1) + 1/x^2 up to x >= 10, then 1/x + 1/(2x^2) + sum
// B_2n / x^(2n+1). Both are accurate to a few ulp relative for x > 0 (tested
// against known values in ibedl_reference_test.cpp: psi(1) = -gamma, psi(1/2)
// = -gamma - 2 ln 2, psi'(1) = pi^2/6, psi'(1/2) = pi^2/2, ...).
//
// Errors: x a pole (0, -1, -2, ...) or NaN returns NaN (as torch.digamma
// returns -inf/nan there); the evidential losses never pass x <= 0 (alpha >= 1).
#ifndef CB_REFERENCE_IBEDL_SPECIAL_H_
#define CB_REFERENCE_IBEDL_SPECIAL_H_

namespace cb::ref::ibedl {

inline constexpr double kEulerGamma = 0.57721566490153286060651209008240243;

double Digamma(double x);
double Trigamma(double x);
double LogGamma(double x);

// torch.nn.functional.softplus (beta 1, threshold 20): ln(1 + e^x), and x
// itself when x > 20; its derivative as torch's backward computes it (the
// logistic sigmoid, 1 when x > 20).
double Softplus(double x);
double SoftplusGrad(double x);

}  // namespace cb::ref::ibedl

#endif  // CB_REFERENCE_IBEDL_SPECIAL_H_
