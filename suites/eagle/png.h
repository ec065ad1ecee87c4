// File: suites/eagle/png.h
// -----------------------------------------------------------------------------
// PNG encoding (8-bit RGB, zlib) of a generated document or chart, for the
// base64 data URLs sent to a model endpoint and for `gen docvqa`.
#ifndef CB_SUITES_EAGLE_PNG_H_
#define CB_SUITES_EAGLE_PNG_H_

#include <string>

#include "generators/docvqa.h"

namespace cb::eagle {

std::string EncodePng(const cb::gen::docvqa::Image& image);

}  // namespace cb::eagle

#endif  // CB_SUITES_EAGLE_PNG_H_
