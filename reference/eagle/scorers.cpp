// File: reference/eagle/scorers.cpp
// The EAGLE benchmark scorers; see scorers.h for the rules and sources.
#include "reference/eagle/scorers.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

namespace cb::ref::eagle {
namespace {

std::string Replace(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (!from.empty() && s.compare(i, from.size(), from) == 0) {
      out.append(to);
      i += from.size();
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

std::vector<uint32_t> Decode(std::string_view s) {
  std::vector<uint32_t> cps;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    bool ok = i + len <= s.size();
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; ok && k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      ok = (d >> 6) == 2;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (!ok) {
      cps.push_back(c);
      ++i;
    } else {
      cps.push_back(cp);
      i += len;
    }
  }
  return cps;
}

// " ".join(s.strip().lower().split())
std::string Collapse(std::string_view s) {
  std::string out;
  const std::string t = AsciiLower(PyStrip(s));
  bool space = false;
  for (char c : t) {
    if (IsPySpace(c)) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

size_t CodePoints(std::string_view s) { return Decode(s).size(); }

int Levenshtein(std::string_view a, std::string_view b) {
  std::vector<uint32_t> s1 = Decode(a), s2 = Decode(b);
  if (s1.size() > s2.size()) std::swap(s1, s2);
  std::vector<int> d(s1.size() + 1), nd(s1.size() + 1);
  for (size_t i = 0; i <= s1.size(); ++i) d[i] = static_cast<int>(i);
  for (size_t i2 = 0; i2 < s2.size(); ++i2) {
    nd[0] = static_cast<int>(i2 + 1);
    for (size_t i1 = 0; i1 < s1.size(); ++i1)
      nd[i1 + 1] = s1[i1] == s2[i2] ? d[i1] : 1 + std::min({d[i1], d[i1 + 1], nd[i1]});
    std::swap(d, nd);
  }
  return d[s1.size()];
}

double TextVqaAccuracy(std::string_view pred, const std::vector<std::string>& answers, Mode mode) {
  if (answers.empty()) throw std::invalid_argument("textvqa: no answers");
  const std::string p = Normalize(pred, mode);
  std::vector<std::string> gts;
  for (const auto& a : answers) gts.push_back(Normalize(a, mode));
  double sum = 0;
  for (size_t i = 0; i < gts.size(); ++i) {
    int matches = 0;
    for (size_t j = 0; j < gts.size(); ++j) matches += j != i && gts[j] == p;
    sum += std::min(1.0, matches / 3.0);
  }
  return sum / static_cast<double>(gts.size());
}

double Vqav2Accuracy(std::string_view pred, const std::vector<std::string>& answers, Mode mode) {
  if (answers.empty()) throw std::invalid_argument("vqav2: no answers");
  std::string p = Normalize(pred, mode);
  std::vector<std::string> gts;
  for (const auto& a : answers) {
    gts.push_back(mode == Mode::kStrict ? Normalize(a, mode) : PyStrip(Replace(Replace(a, "\n", " "), "\t", " ")));
  }
  if (mode == Mode::kPaperCompatible && std::set<std::string>(gts.begin(), gts.end()).size() > 1) {
    for (auto& g : gts) g = ProcessDigitArticle(ProcessPunctuation(g, mode));
    p = ProcessDigitArticle(ProcessPunctuation(p, mode));
  }
  double sum = 0;
  for (size_t i = 0; i < gts.size(); ++i) {
    int matches = 0;
    for (size_t j = 0; j < gts.size(); ++j) matches += j != i && gts[j] == p;
    sum += std::min(1.0, matches / 3.0);
  }
  return sum / static_cast<double>(gts.size());
}

double Anls(std::string_view pred, const std::vector<std::string>& references, Mode mode, double tau) {
  if (references.empty()) throw std::invalid_argument("anls: no reference answers");
  const std::string det = Collapse(pred);
  if (mode == Mode::kPaperCompatible) {
    double best = 1e300;
    for (const auto& ref : references) {
      const std::string gt = Collapse(ref);
      const int dist = Levenshtein(gt, det);
      const size_t length = std::max(CodePoints(ref), CodePoints(pred));  // the raw strings
      best = std::min(best, length == 0 ? 0.0 : dist / static_cast<double>(length));
    }
    const double q = 1 - best;
    return q < tau ? 0.0 : q;
  }
  double best = 0;
  for (const auto& ref : references) {
    const std::string gt = Collapse(ref);
    const size_t length = std::max(CodePoints(gt), CodePoints(det));
    const double nl = length == 0 ? 0.0 : Levenshtein(gt, det) / static_cast<double>(length);
    best = std::max(best, nl < tau ? 1 - nl : 0.0);
  }
  return best;
}

std::optional<double> PyFloat(std::string_view text) {
  const std::string t = PyStrip(text);
  size_t i = 0;
  std::string clean;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) clean.push_back(t[i++]);
  const std::string rest = AsciiLower(t.substr(i));
  if (rest == "inf" || rest == "infinity") return clean == "-" ? -INFINITY : INFINITY;
  if (rest == "nan") return NAN;
  // digits ('_' only between two digits), '.', digits, [eE [sign] digits]
  auto digits = [&](bool* any) {
    *any = false;
    while (i < t.size()) {
      if (IsDigit(t[i])) {
        clean.push_back(t[i++]);
        *any = true;
      } else if (t[i] == '_' && *any && i + 1 < t.size() && IsDigit(t[i + 1])) {
        ++i;
      } else {
        break;
      }
    }
  };
  bool int_part = false, frac_part = false, exp_part = false;
  digits(&int_part);
  if (i < t.size() && t[i] == '.') {
    clean.push_back(t[i++]);
    digits(&frac_part);
  }
  if (!int_part && !frac_part) return std::nullopt;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    clean.push_back(t[i++]);
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) clean.push_back(t[i++]);
    digits(&exp_part);
    if (!exp_part) return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  return std::strtod(clean.c_str(), nullptr);
}

std::optional<double> ChartFloat(std::string_view text) {
  if (!text.empty() && text.back() == '%') {
    size_t e = text.size();
    while (e > 0 && text[e - 1] == '%') --e;
    const auto v = PyFloat(text.substr(0, e));
    if (!v) return std::nullopt;
    return *v / 100.0;
  }
  return PyFloat(text);
}

bool RelaxedCorrect(std::string_view pred_in, std::string_view target_in, Mode mode, double tolerance) {
  std::string pred(pred_in), target(target_in);
  if (mode == Mode::kStrict) {
    for (std::string* s : {&pred, &target}) {
      *s = PyStrip(*s);
      if (!s->empty() && s->back() == '.') s->pop_back();
    }
  }
  const auto p = ChartFloat(pred), t = ChartFloat(target);
  // Python: `if prediction_float is not None and target_float:` (0.0 is falsy, nan is not).
  if (p && t && *t != 0) return std::fabs(*p - *t) / std::fabs(*t) <= tolerance;
  if (mode == Mode::kStrict && p && t) return *p == *t;
  return AsciiLower(pred) == AsciiLower(target);
}

bool OcrBenchCorrect(std::string_view pred_in, const std::vector<std::string>& answers, bool hme100k, Mode mode) {
  const std::string raw = PyStrip(pred_in);
  const std::string pred = AsciiLower(raw);
  for (const auto& a : answers) {
    bool hit;
    if (hme100k) {
      const std::string ans = Replace(Replace(PyStrip(a), "\n", " "), " ", "");
      const std::string source = mode == Mode::kStrict ? raw : pred;
      const std::string predict = Replace(Replace(PyStrip(source), "\n", " "), " ", "");
      hit = predict.find(ans) != std::string::npos;
    } else {
      const std::string ans = Replace(PyStrip(AsciiLower(a)), "\n", " ");
      const std::string predict = Replace(PyStrip(pred), "\n", " ");
      hit = predict.find(ans) != std::string::npos;
    }
    if (hit) return true;
  }
  return false;
}

std::string MmeParse(std::string_view pred) {
  const std::string p = Replace(PyStrip(AsciiLower(pred)), ".", "");
  if (p == "yes" || p == "no") return p;
  const std::string prefix = p.substr(0, std::min<size_t>(4, p.size()));
  if (prefix.find("yes") != std::string::npos) return "yes";
  if (prefix.find("no") != std::string::npos) return "no";
  return "other";
}

}  // namespace cb::ref::eagle
