// File: reference/regenesis/extract.h
// -----------------------------------------------------------------------------
// Answer extraction and normalisation for ReGenesis (Peng et al., ICLR 2025)
// and its task families. The paper releases no code (brief §8), so these
// rules are ours, written down here and in suites/regenesis/README.md, and
// the command reports accuracy under each rule because "answer extraction
// dominates the scores" (brief §8(e)).
//
// Families and their normal forms:
//   kNumber  GSM8K, NumGLUE, ASDiv, SVAMP: a decimal number. "$1,234.50",
//            "1234.5", "2469/2" all normalise to "1234.5"; integers print
//            without a point ("72.0" -> "72"), others with up to 6 decimals,
//            trailing zeros dropped; a leading '+' and the thousands commas
//            are dropped, a trailing '%' or '.' is ignored.
//   kLetter  ARC-c, ReClor, AQuA, OpenBookQA: one capital letter A-E; a gold
//            label "1".."5" (ARC's numeric answer keys) maps to A..E.
//   kYesNo   StrategyQA: "yes" or "no"; true/false map to yes/no.
//   kLabel   ANLI, BBH, anything else: the text lower-cased, whitespace
//            collapsed, surrounding quotes, brackets and final '.' removed.
//
// Rules (where in the text the answer is looked for):
//   kStandard  the span after the LAST "####" (GSM8K's marker); else after
//              the LAST "answer is" / "answer:" (any case: "The answer is",
//              "Final answer:"); in a marked span the FIRST value of the
//              family counts. With no marker, the LAST value of the family
//              in the whole text (numbers, letters standing alone or in
//              parentheses, yes/no words; kLabel: the last non-empty line).
//   kStrict    markers only: with no marker, no answer (scored wrong).
//   kFirst     the FIRST value of the family anywhere in the text, markers
//              ignored: a naive rule, to show what the rule is worth.
// A letter "stands alone" when it is not inside a word: "(B)", "B)", "B.",
// "B," or "B" between non-letters; the pronoun "I" and the article "A"
// followed by a space and a lower-case letter are not answers.
#ifndef CB_REFERENCE_REGENESIS_EXTRACT_H_
#define CB_REFERENCE_REGENESIS_EXTRACT_H_

#include <optional>
#include <string>
#include <string_view>

namespace cb::ref::regenesis {

enum class Family { kNumber, kLetter, kYesNo, kLabel };
const char* FamilyName(Family f);  // "number" | "letter" | "yesno" | "label"
std::optional<Family> ParseFamily(std::string_view name);

enum class Rule { kStandard, kStrict, kFirst };
const char* RuleName(Rule r);  // "standard" | "strict" | "first"
inline constexpr Rule kAllRules[] = {Rule::kStandard, Rule::kStrict, Rule::kFirst};

// The canonical task name: lower case, '-' -> '_', aliases merged
// ("arc-c", "arc_challenge" -> "arc_c"; "obqa" -> "openbookqa").
std::string CanonicalTask(std::string_view task);
// The family of a task by its canonical name (unknown: kLabel).
Family TaskFamily(std::string_view canonical_task);

// The normal form of an answer value (gold labels, answers given as such);
// nullopt when it has none in the family (e.g. "abc" as a number).
std::optional<std::string> Normalize(std::string_view value, Family f);

// The normalised answer that `text` (a model's reasoning path) gives.
std::optional<std::string> ExtractAnswer(std::string_view text, Family f, Rule rule = Rule::kStandard);

}  // namespace cb::ref::regenesis

#endif  // CB_REFERENCE_REGENESIS_EXTRACT_H_
