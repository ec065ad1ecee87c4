// File: suites/medrega/png.h
// -----------------------------------------------------------------------------
// An 8-bit greyscale PNG writer with no dependency: zlib stream of stored
// (uncompressed) deflate blocks, CRC-32 and Adler-32 computed here. Scans are
// small (256 x 256 by default), so the 64 KiB they take raw is fine for the
// base64 data URLs sent to a model endpoint.
#ifndef CB_SUITES_MEDREGA_PNG_H_
#define CB_SUITES_MEDREGA_PNG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::medrega {

// pixels: [height][width] grey, row-major; throws std::invalid_argument when
// the size does not match.
std::string EncodeGreyPng(const std::vector<uint8_t>& pixels, int width, int height);

uint32_t Crc32(const std::string& bytes);

}  // namespace cb::medrega

#endif  // CB_SUITES_MEDREGA_PNG_H_
