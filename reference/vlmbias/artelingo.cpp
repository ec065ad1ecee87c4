// File: reference/vlmbias/artelingo.cpp
// ArtELingo majority labels and the release CSV reader; see artelingo.h.
#include "reference/vlmbias/artelingo.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace cb::ref::vlmbias {

const std::vector<std::string>& EmotionLabelsEn() {
  static const std::vector<std::string> k = {"amusement", "anger",      "awe",     "contentment",   "disgust",
                                             "excitement", "fear",      "sadness", "something else"};
  return k;
}

const std::vector<std::string>& EmotionLabelsZh() {
  static const std::vector<std::string> k = {"好笑", "愤怒", "惊叹", "满意", "嫌恶",
                                             "兴奋", "恐惧", "伤感", "其它情感"};
  return k;
}

std::vector<std::string> ArtelingoCandidates() {
  std::vector<std::string> c = EmotionLabelsEn();
  c.pop_back();
  return c;
}

namespace {

// constants.py LANGS: code -> the CSV's language name.
const std::map<std::string, std::string>& Langs() {
  static const std::map<std::string, std::string> k = {{"en", "english"}, {"zh", "chinese"}, {"ar", "arabic"}};
  return k;
}

}  // namespace

std::vector<MajorityLabel> MajorityLabels(const std::vector<AnnotationRow>& rows, const LabelOptions& o) {
  std::map<std::string, std::string> name_to_code;  // only the languages asked for
  for (const auto& l : o.ann_langs) {
    const auto it = Langs().find(l);
    if (it == Langs().end()) throw std::invalid_argument("artelingo: unknown annotator language '" + l + "'");
    name_to_code[it->second] = l;
  }
  for (const auto& s : o.splits)
    if (s != "train" && s != "val" && s != "test") throw std::invalid_argument("artelingo: unknown split '" + s + "'");
  const auto& en = EmotionLabelsEn();
  for (const auto& s : o.skip_labels)
    if (std::find(en.begin(), en.end(), s) == en.end())
      throw std::invalid_argument("artelingo: unknown skip label '" + s + "'");
  const std::set<std::string> splits(o.splits.begin(), o.splits.end());

  // (code, image) -> emotions in file order.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> groups;
  for (const auto& r : rows) {
    if (!splits.count(r.split)) continue;
    const auto it = name_to_code.find(r.language);
    if (it == name_to_code.end()) continue;
    groups[{it->second, r.image_file}].push_back(r.emotion);
  }
  std::vector<MajorityLabel> out;
  for (const auto& [key, emotions] : groups) {  // std::map: sorted by (code, image), bytewise
    // Counter in insertion order, then the first maximal entry.
    std::vector<std::pair<std::string, int>> counts;
    for (const auto& e : emotions) {
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == e; });
      if (it == counts.end()) counts.emplace_back(e, 1);
      else ++it->second;
    }
    const auto* best = &counts.front();
    for (const auto& c : counts)
      if (c.second > best->second) best = &c;
    if (std::find(o.skip_labels.begin(), o.skip_labels.end(), best->first) != o.skip_labels.end()) continue;
    if (o.required_agreement != 0 && best->second < o.required_agreement) continue;
    out.push_back({key.first, key.second, best->first, best->second, static_cast<int>(emotions.size())});
  }
  return out;
}

namespace {

// RFC 4180 records; each with the line it starts on.
std::vector<std::pair<int, std::vector<std::string>>> ParseCsv(std::string_view text, const std::string& source) {
  std::vector<std::pair<int, std::vector<std::string>>> records;
  std::vector<std::string> fields;
  std::string field;
  int line = 1, start = 1;
  bool quoted = false, any = false;
  size_t i = 0;
  auto end_record = [&] {
    fields.push_back(std::move(field));
    field.clear();
    if (!(fields.size() == 1 && fields[0].empty() && !any)) records.emplace_back(start, std::move(fields));
    fields.clear();
    any = false;
  };
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
      ++line;
      start = line;
    } else {
      field += c;
      any = true;
    }
  }
  if (quoted) throw std::runtime_error(source + ":" + std::to_string(start) + ": unterminated quoted field");
  if (any || !field.empty()) end_record();
  return records;
}

}  // namespace

std::vector<AnnotationRow> ReadAnnotationsCsv(std::string_view text, const std::string& source) {
  const auto records = ParseCsv(text, source);
  if (records.empty()) throw std::runtime_error(source + ": empty file, no header");
  const auto& header = records[0].second;
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::runtime_error(source + ":1: no column '" + name + "'");
    return static_cast<size_t>(it - header.begin());
  };
  const size_t ce = column("emotion"), cl = column("language"), ci = column("image_file"), cs = column("split");
  std::vector<AnnotationRow> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    const auto& [line, f] = records[r];
    if (f.size() != header.size())
      throw std::runtime_error(source + ":" + std::to_string(line) + ": " + std::to_string(f.size()) +
                               " fields, the header has " + std::to_string(header.size()));
    rows.push_back({f[ce], f[cl], f[ci], f[cs]});
  }
  return rows;
}

}  // namespace cb::ref::vlmbias
