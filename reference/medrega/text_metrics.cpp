// File: reference/medrega/text_metrics.cpp
// Region-to-text and report-generation scorers; see text_metrics.h.
#include "reference/medrega/text_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "reference/medrega/pytext.h"

namespace cb::ref::medrega {
namespace {

using Tokens = std::vector<std::string>;
using Ngram = std::vector<std::string>;

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiAlnum(char c) { return IsAsciiDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// re.sub(open + '.*?' + close, '', s): '.' excludes '\n'; an opener with no
// closer on its line stays.
std::string RemoveBracketed(std::string_view s, std::string_view open, std::string_view close) {
  std::string out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t o = s.find(open, pos);
    if (o == std::string_view::npos) break;
    const size_t c = s.find(close, o + open.size());
    const size_t nl = s.find('\n', o + open.size());
    if (c == std::string_view::npos || (nl != std::string_view::npos && nl < c)) {
      out.append(s.substr(pos, o + 1 - pos));  // no match here; retry one further
      pos = o + 1;
      continue;
    }
    out.append(s.substr(pos, o - pos));
    pos = c + close.size();
  }
  out.append(s.substr(std::min(pos, s.size())));
  return out;
}

std::map<Ngram, int> Ngrams(const Tokens& t, int max_order) {
  std::map<Ngram, int> out;
  for (int n = 1; n <= max_order; ++n)
    for (size_t i = 0; i + n <= t.size(); ++i) ++out[Ngram(t.begin() + i, t.begin() + i + n)];
  return out;
}

double Fmeasure(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

double MeanOrThrow(const std::vector<double>& v, Mode mode, const std::string& what) {
  double s = 0;
  for (double x : v) s += x;
  if (v.empty()) {
    if (mode == Mode::kPaperCompatible) throw PaperError("ZeroDivisionError: " + what);
    return 0.0;
  }
  return s / static_cast<double>(v.size());
}

TaskScores RegionToText(const std::vector<TextItem>& items, Mode mode, TaskScores s) {
  const bool paper = mode == Mode::kPaperCompatible;
  std::vector<double> bleu, pre, rec, f1;
  int accurate = 0;
  for (const TextItem& it : items) {
    const std::string gt = AsciiLower(it.gt);
    const std::string res = RemoveBracketed(AsciiLower(it.pred), "[[", "]]");
    const Tokens pt = PySplit(res), gtt = PySplit(gt);
    const std::set<std::string> P(pt.begin(), pt.end()), G(gtt.begin(), gtt.end());
    if (G.empty()) {
      ++s.items_without_gt;
      if (!paper) continue;
    }
    size_t inter = 0;
    for (const auto& w : P) inter += G.count(w);
    const double p = P.empty() ? 0.0 : double(inter) / double(P.size());
    const double r = G.empty() ? 0.0 : double(inter) / double(G.size());
    const double f = paper ? 2 * (p * r) / (p + r + 1e-8) : Fmeasure(p, r);
    if (r >= 0.75) ++accurate;
    bleu.push_back(TorchmetricsBleu1(res, gt, mode));
    pre.push_back(p);
    rec.push_back(r);
    f1.push_back(f);
  }
  s.items = static_cast<int>(rec.size());
  auto mean0 = [](const std::vector<double>& v) {
    double t = 0;
    for (double x : v) t += x;
    return v.empty() ? 0.0 : t / static_cast<double>(v.size());
  };
  if (paper && items.empty())
    throw PaperError("ZeroDivisionError: no predictions (the BERTScore mean, sum / len, divides by zero)");
  const double acc = rec.empty() ? 0.0 : accurate / static_cast<double>(rec.size());
  if (paper) {
    s.metrics = {{"bleu1", mean0(bleu)}, {"F1", mean0(f1)}, {"recall", mean0(rec)}, {"accuracy", acc}};
  } else {
    s.metrics = {{"bleu1", mean0(bleu)}, {"precision", mean0(pre)}, {"recall", mean0(rec)},
                 {"f1", mean0(f1)},      {"accuracy", acc}};
  }
  return s;
}

TaskScores ReportEnglish(const std::vector<TextItem>& items, Mode mode, TaskScores s) {
  std::vector<Tokens> preds, refs;
  std::vector<double> r1, rl;
  for (const TextItem& it : items) {
    const std::string res = CleanStr(it.pred), gt = CleanStr(it.gt);
    if (RougeTokenize(gt).empty()) ++s.items_without_gt;
    preds.push_back(Tokenize13a(res));
    refs.push_back(Tokenize13a(gt));
    const Rouge r = RougeScore(res, gt);
    r1.push_back(r.rouge1);
    rl.push_back(r.rougeL);
  }
  s.items = static_cast<int>(items.size());
  if (items.empty() && mode == Mode::kPaperCompatible)
    throw PaperError("IndexError: no predictions (evaluate's bleu reads references[0])");
  s.metrics = {{"bleu1", items.empty() ? 0.0 : CorpusBleu(preds, refs, 1, mode)},
               {"bleu4", items.empty() ? 0.0 : CorpusBleu(preds, refs, 4, mode)},
               {"rouge1", MeanOrThrow(r1, mode, "no predictions")},
               {"rougeL", MeanOrThrow(rl, mode, "no predictions")}};
  return s;
}

TaskScores ReportChinese(const std::vector<TextItem>& items, Mode mode, TaskScores s) {
  std::vector<double> b1, b4, r1, rl;
  for (const TextItem& it : items) {
    const std::string res = ReplaceAll(CleanStrZh(it.pred), " ", "");
    const std::string seg_res = SegmentZh(res), seg_gt = SegmentZh(it.gt);
    if (PySplit(seg_gt).empty()) ++s.items_without_gt;
    const std::vector<Tokens> p{Tokenize13a(seg_res)}, g{Tokenize13a(seg_gt)};
    for (int order : {1, 4}) {
      double v = 0;
      try {  // the code's try/except: 0 where bleu raises
        v = CorpusBleu(p, g, order, Mode::kPaperCompatible);
      } catch (const PaperError&) {
        v = 0;
      }
      (order == 1 ? b1 : b4).push_back(v);
    }
    const Rouge r = RougeScore(seg_res, seg_gt);
    r1.push_back(r.rouge1);
    rl.push_back(r.rougeL);
  }
  s.items = static_cast<int>(items.size());
  const std::string none = "no predictions";
  if (mode == Mode::kPaperCompatible) {
    // rougeLScores.append(rouge_['rouge1']); rouge1Scores.append(rouge_['rougeL'])
    s.metrics = {{"bleu1", MeanOrThrow(b1, mode, none)},
                 {"bleu4", MeanOrThrow(b4, mode, none)},
                 {"rouge1", MeanOrThrow(rl, mode, none)},
                 {"rougeL", MeanOrThrow(r1, mode, none)}};
  } else {
    s.metrics = {{"bleu1", MeanOrThrow(b1, mode, none)},
                 {"bleu4", MeanOrThrow(b4, mode, none)},
                 {"rouge1", MeanOrThrow(r1, mode, none)},
                 {"rougeL", MeanOrThrow(rl, mode, none)}};
  }
  return s;
}

}  // namespace

double TorchmetricsBleu1(std::string_view pred, std::string_view ref, Mode mode) {
  const Tokens p = pred.empty() ? Tokens{} : PySplit(pred), r = ref.empty() ? Tokens{} : PySplit(ref);
  std::map<std::string, int> pc, rc;
  for (const auto& w : p) ++pc[w];
  for (const auto& w : r) ++rc[w];
  int numerator = 0;
  for (const auto& [w, n] : pc) {
    const auto it = rc.find(w);
    if (it != rc.end()) numerator += std::min(n, it->second);
  }
  if (numerator == 0) return 0.0;  // min(numerator) == 0
  const double pl = static_cast<double>(p.size()), rl = static_cast<double>(r.size());
  if (mode == Mode::kPaperCompatible) {
    const float precision = static_cast<float>(numerator) / static_cast<float>(p.size());
    const float geo = std::exp(1.0f * std::log(precision));
    const float bp = pl > rl ? 1.0f : std::exp(1.0f - static_cast<float>(rl) / static_cast<float>(pl));
    return static_cast<double>(bp * geo);
  }
  const double precision = numerator / pl;
  return (pl > rl ? 1.0 : std::exp(1.0 - rl / pl)) * precision;
}

std::vector<std::string> Tokenize13a(std::string_view in) {
  std::string line = ReplaceAll(in, "<skipped>", "");
  line = ReplaceAll(line, "-\n", "");
  line = ReplaceAll(line, "\n", " ");
  if (line.find('&') != std::string::npos) {
    line = ReplaceAll(line, "&quot;", "\"");
    line = ReplaceAll(line, "&amp;", "&");
    line = ReplaceAll(line, "&lt;", "<");
    line = ReplaceAll(line, "&gt;", ">");
  }
  line = " " + line + " ";
  // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
  auto punct = [](unsigned char c) {
    return (c >= 0x7b && c <= 0x7e) || (c >= 0x5b && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
           (c >= 0x28 && c <= 0x2b) || (c >= 0x3a && c <= 0x40) || c == '/';
  };
  std::string a;
  for (char c : line) {
    if (punct(static_cast<unsigned char>(c))) {
      a += ' ';
      a += c;
      a += ' ';
    } else {
      a += c;
    }
  }
  // Two-character patterns, re.sub left to right without overlap.
  auto sub2 = [](const std::string& s, auto first, auto second, const char* before, const char* mid,
                 const char* after) {
    std::string o;
    size_t i = 0;
    while (i < s.size()) {
      if (i + 1 < s.size() && first(s[i]) && second(s[i + 1])) {
        o += before;
        o += s[i];
        o += mid;
        o += s[i + 1];
        o += after;
        i += 2;
      } else {
        o += s[i++];
      }
    }
    return o;
  };
  auto nondigit = [](char c) { return !IsAsciiDigit(c); };
  auto digit = [](char c) { return IsAsciiDigit(c); };
  auto dotcomma = [](char c) { return c == '.' || c == ','; };
  auto dash = [](char c) { return c == '-'; };
  a = sub2(a, nondigit, dotcomma, "", " ", " ");  // ([^0-9])([\.,]) -> "\1 \2 "
  a = sub2(a, dotcomma, nondigit, " ", " ", "");  // ([\.,])([^0-9]) -> " \1 \2"
  a = sub2(a, digit, dash, "", " ", " ");         // ([0-9])(-) -> "\1 \2 "
  return PySplit(a);
}

double CorpusBleu(const std::vector<Tokens>& preds, const std::vector<Tokens>& refs, int max_order, Mode mode) {
  std::vector<double> matches(max_order, 0), possible(max_order, 0);
  double ref_len = 0, trans_len = 0;
  for (size_t k = 0; k < preds.size(); ++k) {
    ref_len += static_cast<double>(refs[k].size());
    trans_len += static_cast<double>(preds[k].size());
    const auto rc = Ngrams(refs[k], max_order), pc = Ngrams(preds[k], max_order);
    for (const auto& [g, n] : pc) {
      const auto it = rc.find(g);
      if (it != rc.end()) matches[g.size() - 1] += std::min(n, it->second);
    }
    for (int order = 1; order <= max_order; ++order) {
      const double pm = static_cast<double>(preds[k].size()) - order + 1;
      if (pm > 0) possible[order - 1] += pm;
    }
  }
  std::vector<double> precisions(max_order, 0);
  for (int i = 0; i < max_order; ++i) precisions[i] = possible[i] > 0 ? matches[i] / possible[i] : 0.0;
  double geo = 0;
  if (*std::min_element(precisions.begin(), precisions.end()) > 0) {
    double log_sum = 0;
    for (double p : precisions) log_sum += (1.0 / max_order) * std::log(p);
    geo = std::exp(log_sum);
  }
  if (ref_len == 0 || trans_len == 0) {
    if (mode == Mode::kPaperCompatible)
      throw PaperError(ref_len == 0 ? "ZeroDivisionError: the references have no tokens (compute_bleu's ratio)"
                                    : "ZeroDivisionError: the predictions have no tokens (compute_bleu's 1 / ratio)");
    return 0.0;
  }
  const double ratio = trans_len / ref_len;
  const double bp = ratio > 1.0 ? 1.0 : std::exp(1 - 1.0 / ratio);
  return geo * bp;
}

std::vector<std::string> RougeTokenize(std::string_view text) {
  const std::string s = AsciiLower(text);
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    if (!IsAsciiAlnum(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && IsAsciiAlnum(s[j])) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

Rouge RougeScore(std::string_view pred, std::string_view ref) {
  const Tokens p = RougeTokenize(pred), r = RougeTokenize(ref);
  Rouge out;
  std::map<std::string, int> pc, rc;
  for (const auto& w : p) ++pc[w];
  for (const auto& w : r) ++rc[w];
  double inter = 0;
  for (const auto& [w, n] : rc) {
    const auto it = pc.find(w);
    if (it != pc.end()) inter += std::min(n, it->second);
  }
  out.rouge1 = Fmeasure(inter / std::max<double>(static_cast<double>(p.size()), 1),
                        inter / std::max<double>(static_cast<double>(r.size()), 1));
  if (!p.empty() && !r.empty()) {
    std::vector<std::vector<int>> t(r.size() + 1, std::vector<int>(p.size() + 1, 0));
    for (size_t i = 1; i <= r.size(); ++i)
      for (size_t j = 1; j <= p.size(); ++j)
        t[i][j] = r[i - 1] == p[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    const double lcs = t[r.size()][p.size()];
    out.rougeL = Fmeasure(lcs / static_cast<double>(p.size()), lcs / static_cast<double>(r.size()));
  }
  return out;
}

std::string CleanStr(std::string_view in) {
  const std::string s = AsciiLower(in);
  std::vector<std::string> kept;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ',' || s[i] == ':' || s[i] == '.' || s[i] == '\n') {
      std::string part = PyStrip(std::string_view(s).substr(start, i - start));
      if (!part.empty() && part.find('_') == std::string::npos) kept.push_back(std::move(part));
      start = i + 1;
    }
  }
  std::string joined;
  for (size_t k = 0; k < kept.size(); ++k) joined += (k ? "." : "") + kept[k];
  // re.sub(r'\s+', ' ', token)
  std::string out;
  size_t i = 0;
  bool in_space = false;
  while (i < joined.size()) {
    const size_t at = i;
    const bool space = IsPySpace(NextCodePoint(joined, &i));
    if (space) {
      if (!in_space) out += ' ';
      in_space = true;
    } else {
      out.append(joined, at, i - at);
      in_space = false;
    }
  }
  return PyStrip(out);
}

std::string CleanStrZh(std::string_view in) {
  std::string t = RemoveBracketed(in, "[", "]");
  t = ReplaceAll(t, "[", " ");
  t = ReplaceAll(t, "]", "");
  t = ReplaceAll(t, "-", "");
  t = AsciiLower(t);
  std::vector<std::string> kept;
  size_t start = 0;
  for (size_t i = 0; i <= t.size(); ++i) {
    if (i < t.size() && t[i] != '\n') continue;
    const std::string_view part = std::string_view(t).substr(start, i - start);
    start = i + 1;
    std::string cleaned;  // re.sub(r'\d+\.', '', part)
    size_t k = 0;
    while (k < part.size()) {
      if (!IsAsciiDigit(part[k])) {
        cleaned += part[k++];
        continue;
      }
      size_t j = k;
      while (j < part.size() && IsAsciiDigit(part[j])) ++j;
      if (j < part.size() && part[j] == '.') {
        k = j + 1;
      } else {
        cleaned.append(part.substr(k, j - k));
        k = j;
      }
    }
    cleaned = PyStrip(cleaned);
    if (!cleaned.empty()) kept.push_back(std::move(cleaned));
  }
  std::string joined;
  for (size_t k = 0; k < kept.size(); ++k) joined += (k ? "\xef\xbc\x8c" : "") + kept[k];  // '，'
  joined = ReplaceAll(joined, "\xef\xbc\x9a\xef\xbc\x8c", "\xef\xbc\x9a");  // '：，' -> '：'
  joined = ReplaceAll(joined, "\xe3\x80\x82\xef\xbc\x8c", "\xef\xbc\x8c");  // '。，' -> '，'
  return joined;
}

std::string SegmentZh(std::string_view s) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < s.size()) {
    const size_t at = i;
    const char32_t c = NextCodePoint(s, &i);
    if (IsPySpace(c)) continue;
    if (c < 0x80 && IsAsciiAlnum(static_cast<char>(c))) {
      size_t j = i;
      while (j < s.size() && IsAsciiAlnum(s[j])) ++j;
      tokens.emplace_back(s.substr(at, j - at));
      i = j;
      continue;
    }
    tokens.emplace_back(s.substr(at, i - at));
  }
  std::string out;
  for (size_t k = 0; k < tokens.size(); ++k) out += (k ? " " : "") + tokens[k];
  return out;
}

TaskScores ScoreText(Task task, const std::vector<TextItem>& items, Mode mode) {
  TaskScores s;
  s.task = task;
  switch (task) {
    case Task::kR2t: return RegionToText(items, mode, s);
    case Task::kRg: return ReportEnglish(items, mode, s);
    case Task::kRgZh: return ReportChinese(items, mode, s);
    default: throw std::invalid_argument(std::string("not a text task: ") + TaskKey(task));
  }
}

}  // namespace cb::ref::medrega
