// File: reference/vlmbias/parse_selection.cpp
// parse_selection; see parse_selection.h for the rule and its source.
#include "reference/vlmbias/parse_selection.h"

#include <stdexcept>

#include "harness/random.h"

namespace cb::ref::vlmbias {

const char* SelectionHowName(SelectionHow h) {
  switch (h) {
    case SelectionHow::kOption: return "option";
    case SelectionHow::kDigit: return "digit";
    case SelectionHow::kRandom: return "random";
  }
  return "?";
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

Selection ParseSelection(std::string_view output, const std::vector<std::string>& choices, uint64_t seed,
                         uint64_t stream) {
  if (choices.empty()) throw std::invalid_argument("parse_selection: no answer choices");
  const std::string lowered = AsciiLower(output);
  // Step 1: min over (first position, choice) of the choices found.
  bool found = false;
  size_t best_pos = 0;
  const std::string* best = nullptr;
  for (const std::string& c : choices) {
    const size_t pos = lowered.find(AsciiLower(c));
    if (pos == std::string::npos) continue;
    if (!found || pos < best_pos || (pos == best_pos && c < *best)) {
      found = true;
      best_pos = pos;
      best = &c;
    }
  }
  if (found) {
    for (size_t i = 0; i < choices.size(); ++i)  // answer_choices.index(choice): the first copy
      if (choices[i] == *best) return {static_cast<int>(i), SelectionHow::kOption};
  }
  // Step 2: the last k in 1..n whose decimal string occurs in the output.
  int selected = -1;
  for (size_t k = 1; k <= choices.size(); ++k)
    if (output.find(std::to_string(k)) != std::string_view::npos) selected = static_cast<int>(k) - 1;
  if (selected >= 0) return {selected, SelectionHow::kDigit};
  // Step 3: a random choice, seeded.
  cb::harness::Rng rng(seed, stream);
  return {static_cast<int>(rng.UniformInt(0, choices.size() - 1)), SelectionHow::kRandom};
}

}  // namespace cb::ref::vlmbias
