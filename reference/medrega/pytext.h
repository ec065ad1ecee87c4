// File: reference/medrega/pytext.h
// -----------------------------------------------------------------------------
// The few Python str operations the MedRegA scorers rest on, on UTF-8 text:
// str.split() with no argument, str.strip(), str.lower() and the whitespace
// class of Python's `\s` in a str pattern. Each states where it is exact.
//
// Contract: input is UTF-8; invalid bytes are treated as one code point each
// (never whitespace), so nothing throws.
#ifndef CB_REFERENCE_MEDREGA_PYTEXT_H_
#define CB_REFERENCE_MEDREGA_PYTEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::medrega {

// str.isspace() for one code point (Python 3: the ASCII whitespace, \x1c-\x1f,
// U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
bool IsPySpace(char32_t c);

// Decodes the code point at text[*i] and advances *i past it.
char32_t NextCodePoint(std::string_view text, size_t* i);

// str.split(): runs of whitespace separate, no empty fields.
std::vector<std::string> PySplit(std::string_view text);

// str.strip() with no argument.
std::string PyStrip(std::string_view text);

// str.lower() on ASCII letters only. Exact for ASCII text; other letters
// (e.g. 'É', 'Σ') are left as they are, where Python would lower them.
std::string AsciiLower(std::string_view text);

// Every occurrence of `from` replaced by `to`, left to right (str.replace).
std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to);

}  // namespace cb::ref::medrega

#endif  // CB_REFERENCE_MEDREGA_PYTEXT_H_
