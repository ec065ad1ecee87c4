// File: harness/strings.h
// -----------------------------------------------------------------------------
// printf-style formatting into a std::string, for claim settings, reasons and
// tables (GCC 12 has no <format>). One helper instead of a fixed-size
// snprintf buffer in every file.
#ifndef CB_HARNESS_STRINGS_H_
#define CB_HARNESS_STRINGS_H_

#include <string>

namespace cb::harness {

// StrFormat("%d items, %.3f", n, x). Never truncates.
std::string StrFormat(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace cb::harness

#endif  // CB_HARNESS_STRINGS_H_
