// File: reference/vlmbias/parse_selection.h
// -----------------------------------------------------------------------------
// parse_selection of "See It from My Perspective" (Ananthram et al., ICLR
// 2025): the rule that turns a free-form answer (the Mistral mapper's output
// in the paper) into the index of one of the answer choices. As the authors'
// code does it (amith-ananthram/see-it-from-my-perspective,
// 2_extract_mcvqa_artelingo_selections.py at
// af9710436956f141f1b3354d8e5cf39c93ff1e64, lines 25-47), on every input:
//
//   1. Option mentioned: every choice c with c.lower() a substring of
//      output.lower() is found at its FIRST occurrence; the earliest wins.
//      Two choices found at the same position: the smaller string wins
//      (Python's min over (position, choice) tuples compares the choices
//      next, code point order = UTF-8 byte order). The index returned is
//      answer_choices.index(c): with repeated choices, the first copy. An
//      empty choice is a substring of everything, found at position 0.
//   2. Else a digit: for k = 1..n, if str(k) is a substring of the output
//      (not lowered), selected = k - 1; the loop never breaks, so the LAST
//      k that occurs wins ("1 or 2" selects index 1; with n >= 10, "10"
//      contains "1" and "10", and 10 wins).
//   3. Else random: random.choice(range(n)). The authors call Python's
//      unseeded global `random`; here the draw is Rng(seed, stream)
//      .UniformInt(0, n - 1) (harness/random.h), so a run is reproducible,
//      and the caller counts how often it happened (`how == kRandom`).
//
// Case folding: ASCII letters only. Python's str.lower() also folds
// non-ASCII capitals ('É' -> 'é', 'Σ' -> 'σ'); an option or output with such
// a capital can match there and not here. The paper's options are English
// (A-OKVQA, CVQA's translated options, ArtELingo's English emotions), where
// the two agree.
// n == 0: Python raises IndexError from random.choice([]); here
// std::invalid_argument.
#ifndef CB_REFERENCE_VLMBIAS_PARSE_SELECTION_H_
#define CB_REFERENCE_VLMBIAS_PARSE_SELECTION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::vlmbias {

enum class SelectionHow { kOption, kDigit, kRandom };
const char* SelectionHowName(SelectionHow h);  // "option" | "digit" | "random"

struct Selection {
  int index = -1;  // 0..n-1
  SelectionHow how = SelectionHow::kOption;
};

// The choice `output` selects. The random fallback draws from
// Rng(seed, stream): callers pass a stream derived from the row (not its
// position in a file), so a row's draw does not depend on the others.
// Throws std::invalid_argument when `choices` is empty.
Selection ParseSelection(std::string_view output, const std::vector<std::string>& choices, uint64_t seed,
                         uint64_t stream);

// ASCII lower-casing (bytes >= 0x80 unchanged), the fold used above.
std::string AsciiLower(std::string_view s);

}  // namespace cb::ref::vlmbias

#endif  // CB_REFERENCE_VLMBIAS_PARSE_SELECTION_H_
