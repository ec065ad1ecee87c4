// File: reference/eagle/vqa_normalize.cpp
// The EvalAIAnswerProcessor port; see vqa_normalize.h for the rules.
#include "reference/eagle/vqa_normalize.h"

#include <array>
#include <map>
#include <vector>

namespace cb::ref::eagle {
namespace {

// CONTRACTIONS, verbatim from vqa_eval_metric.py (same order).
const std::map<std::string, std::string>& Contractions() {
  static const std::map<std::string, std::string> kMap = {
    {"aint", "ain't"},
    {"arent", "aren't"},
    {"cant", "can't"},
    {"couldve", "could've"},
    {"couldnt", "couldn't"},
    {"couldn'tve", "couldn't've"},
    {"couldnt've", "couldn't've"},
    {"didnt", "didn't"},
    {"doesnt", "doesn't"},
    {"dont", "don't"},
    {"hadnt", "hadn't"},
    {"hadnt've", "hadn't've"},
    {"hadn'tve", "hadn't've"},
    {"hasnt", "hasn't"},
    {"havent", "haven't"},
    {"hed", "he'd"},
    {"hed've", "he'd've"},
    {"he'dve", "he'd've"},
    {"hes", "he's"},
    {"howd", "how'd"},
    {"howll", "how'll"},
    {"hows", "how's"},
    {"Id've", "I'd've"},
    {"I'dve", "I'd've"},
    {"Im", "I'm"},
    {"Ive", "I've"},
    {"isnt", "isn't"},
    {"itd", "it'd"},
    {"itd've", "it'd've"},
    {"it'dve", "it'd've"},
    {"itll", "it'll"},
    {"let's", "let's"},
    {"maam", "ma'am"},
    {"mightnt", "mightn't"},
    {"mightnt've", "mightn't've"},
    {"mightn'tve", "mightn't've"},
    {"mightve", "might've"},
    {"mustnt", "mustn't"},
    {"mustve", "must've"},
    {"neednt", "needn't"},
    {"notve", "not've"},
    {"oclock", "o'clock"},
    {"oughtnt", "oughtn't"},
    {"ow's'at", "'ow's'at"},
    {"'ows'at", "'ow's'at"},
    {"'ow'sat", "'ow's'at"},
    {"shant", "shan't"},
    {"shed've", "she'd've"},
    {"she'dve", "she'd've"},
    {"she's", "she's"},
    {"shouldve", "should've"},
    {"shouldnt", "shouldn't"},
    {"shouldnt've", "shouldn't've"},
    {"shouldn'tve", "shouldn't've"},
    {"somebody'd", "somebodyd"},
    {"somebodyd've", "somebody'd've"},
    {"somebody'dve", "somebody'd've"},
    {"somebodyll", "somebody'll"},
    {"somebodys", "somebody's"},
    {"someoned", "someone'd"},
    {"someoned've", "someone'd've"},
    {"someone'dve", "someone'd've"},
    {"someonell", "someone'll"},
    {"someones", "someone's"},
    {"somethingd", "something'd"},
    {"somethingd've", "something'd've"},
    {"something'dve", "something'd've"},
    {"somethingll", "something'll"},
    {"thats", "that's"},
    {"thered", "there'd"},
    {"thered've", "there'd've"},
    {"there'dve", "there'd've"},
    {"therere", "there're"},
    {"theres", "there's"},
    {"theyd", "they'd"},
    {"theyd've", "they'd've"},
    {"they'dve", "they'd've"},
    {"theyll", "they'll"},
    {"theyre", "they're"},
    {"theyve", "they've"},
    {"twas", "'twas"},
    {"wasnt", "wasn't"},
    {"wed've", "we'd've"},
    {"we'dve", "we'd've"},
    {"weve", "we've"},
    {"werent", "weren't"},
    {"whatll", "what'll"},
    {"whatre", "what're"},
    {"whats", "what's"},
    {"whatve", "what've"},
    {"whens", "when's"},
    {"whered", "where'd"},
    {"wheres", "where's"},
    {"whereve", "where've"},
    {"whod", "who'd"},
    {"whod've", "who'd've"},
    {"who'dve", "who'd've"},
    {"wholl", "who'll"},
    {"whos", "who's"},
    {"whove", "who've"},
    {"whyll", "why'll"},
    {"whyre", "why're"},
    {"whys", "why's"},
    {"wont", "won't"},
    {"wouldve", "would've"},
    {"wouldnt", "wouldn't"},
    {"wouldnt've", "wouldn't've"},
    {"wouldn'tve", "wouldn't've"},
    {"yall", "y'all"},
    {"yall'll", "y'all'll"},
    {"y'allll", "y'all'll"},
    {"yall'd've", "y'all'd've"},
    {"y'alld've", "y'all'd've"},
    {"y'all'dve", "y'all'd've"},
    {"youd", "you'd"},
    {"youd've", "you'd've"},
    {"you'dve", "you'd've"},
    {"youll", "you'll"},
    {"youre", "you're"},
    {"youve", "you've"},
  };
  return kMap;
}

const std::map<std::string, std::string>& NumberMap() {
  static const std::map<std::string, std::string> kMap = {
      {"none", "0"}, {"zero", "0"}, {"one", "1"}, {"two", "2"},   {"three", "3"}, {"four", "4"},
      {"five", "5"}, {"six", "6"},  {"seven", "7"}, {"eight", "8"}, {"nine", "9"},  {"ten", "10"}};
  return kMap;
}

// PUNCTUATIONS, in the code's order (the order matters: each test looks at
// the original text, each replacement at the text so far).
constexpr std::array<char, 21> kPunct = {';', '/', '[', ']', '"', '{', '}', '(', ')', '=', '+',
                                         '\\', '_', '-', '>', '<', '@', '`', ',', '?', '!'};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string ReplaceAll(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, from.size(), from) == 0) {
      out.append(to);
      i += from.size();
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

// re.search(r"(?<=\d)(\,)+(?=\d)", s): a digit, one or more commas, a digit.
bool HasDigitCommaDigit(std::string_view s) {
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] != ',' || !IsDigit(s[i - 1])) continue;
    size_t j = i;
    while (j < s.size() && s[j] == ',') ++j;
    if (j < s.size() && IsDigit(s[j])) return true;
  }
  return false;
}

std::vector<std::string> PySplit(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsPySpace(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsPySpace(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

const char* ModeName(Mode m) { return m == Mode::kStrict ? "strict" : "paper-compatible"; }

bool IsPySpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || (c >= '\x1c' && c <= '\x1f');
}

std::string PyStrip(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsPySpace(s[b])) ++b;
  while (e > b && IsPySpace(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string WordTokenize(std::string_view s) {
  std::string w = AsciiLower(s);
  w = ReplaceAll(w, ",", "");
  w = ReplaceAll(w, "?", "");
  w = ReplaceAll(w, "'s", " 's");
  return PyStrip(w);
}

std::string ProcessPunctuation(std::string_view in, Mode mode) {
  std::string out(in);
  const bool comma = HasDigitCommaDigit(in);
  for (char p : kPunct) {
    const std::string ps(1, p);
    const bool spaced = in.find(ps + " ") != std::string_view::npos || in.find(" " + ps) != std::string_view::npos;
    out = ReplaceAll(out, ps, spaced || comma ? "" : " ");
  }
  // PERIOD_STRIP.sub("", out, re.UNICODE): '.' not followed by a digit,
  // judged on the string before any removal, at most 32 of them (paper).
  const size_t limit = mode == Mode::kPaperCompatible ? 32 : std::string::npos;
  std::string res;
  size_t removed = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const bool match = out[i] == '.' && !(i + 1 < out.size() && IsDigit(out[i + 1]));
    if (match && removed < limit) {
      ++removed;
      continue;
    }
    res.push_back(out[i]);
  }
  return res;
}

std::string ProcessDigitArticle(std::string_view in) {
  std::vector<std::string> words;
  for (std::string w : PySplit(AsciiLower(in))) {
    if (auto it = NumberMap().find(w); it != NumberMap().end()) w = it->second;
    if (w != "a" && w != "an" && w != "the") words.push_back(w);
  }
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (auto it = Contractions().find(words[i]); it != Contractions().end()) words[i] = it->second;
    if (i) out.push_back(' ');
    out += words[i];
  }
  return out;
}

std::string Normalize(std::string_view s, Mode mode) {
  std::string item = WordTokenize(s);
  item = PyStrip(ReplaceAll(ReplaceAll(item, "\n", " "), "\t", " "));
  item = ProcessPunctuation(item, mode);
  return ProcessDigitArticle(item);
}

}  // namespace cb::ref::eagle
