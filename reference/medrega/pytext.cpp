// File: reference/medrega/pytext.cpp
// Python str operations on UTF-8; see pytext.h.
#include "reference/medrega/pytext.h"

namespace cb::ref::medrega {

bool IsPySpace(char32_t c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return true;
  if (c < 0x80) return false;
  return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
         c == 0x202f || c == 0x205f || c == 0x3000;
}

char32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b = static_cast<unsigned char>(s[*i]);
  int len = 1;
  char32_t c = b;
  if (b >= 0xc0 && b < 0xe0) {
    len = 2;
    c = b & 0x1f;
  } else if (b >= 0xe0 && b < 0xf0) {
    len = 3;
    c = b & 0x0f;
  } else if (b >= 0xf0 && b < 0xf8) {
    len = 4;
    c = b & 0x07;
  }
  if (len > 1) {
    if (*i + len > s.size()) {
      ++*i;
      return b;
    }
    for (int k = 1; k < len; ++k) {
      const auto cb = static_cast<unsigned char>(s[*i + k]);
      if ((cb & 0xc0) != 0x80) {
        ++*i;
        return b;  // invalid: one byte, not whitespace
      }
      c = (c << 6) | (cb & 0x3f);
    }
  }
  *i += len;
  return c;
}

std::vector<std::string> PySplit(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0, start = 0;
  bool in_word = false;
  while (i < s.size()) {
    const size_t at = i;
    const bool space = IsPySpace(NextCodePoint(s, &i));
    if (space && in_word) {
      out.emplace_back(s.substr(start, at - start));
      in_word = false;
    } else if (!space && !in_word) {
      start = at;
      in_word = true;
    }
  }
  if (in_word) out.emplace_back(s.substr(start));
  return out;
}

std::string PyStrip(std::string_view s) {
  size_t i = 0, first = s.size(), last = 0;
  while (i < s.size()) {
    const size_t at = i;
    if (!IsPySpace(NextCodePoint(s, &i))) {
      if (first == s.size()) first = at;
      last = i;
    }
  }
  return first == s.size() ? std::string() : std::string(s.substr(first, last - first));
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string ReplaceAll(std::string_view s, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(s);
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t hit = s.find(from, pos);
    if (hit == std::string_view::npos) break;
    out.append(s.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(s.substr(pos));
  return out;
}

}  // namespace cb::ref::medrega
