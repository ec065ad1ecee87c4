// File: reference/vlmbias/artelingo.h
// -----------------------------------------------------------------------------
// The ArtELingo labels of "See It from My Perspective": one label per
// (annotator language, image), the majority emotion of that language's
// annotators. As benchmarks/artelingo.py (amith-ananthram/
// see-it-from-my-perspective at af9710436956f141f1b3354d8e5cf39c93ff1e64,
// ArtELingo.__init__, lines 56-97) builds them:
//
//   - rows whose `split` is not in `splits`, or whose `language` is not one
//     of the annotator languages asked for ("english" -> en, "chinese" -> zh,
//     "arabic" -> ar; constants.py LANGS), are dropped;
//   - the rest are grouped by (annotator language, image_file), the
//     image_file string as it is in the CSV (the NFC normalisation comes
//     after grouping, and only for the path that is opened);
//   - groups are visited in sorted order of (language code, image_file)
//     (Python string order = UTF-8 byte order);
//   - the label is Counter.most_common(1)[0][0]: the most frequent emotion,
//     ties going to the emotion whose first row comes first in the file
//     (Counter keeps insertion order; most_common(1) is max(), which returns
//     the first maximal item);
//   - a group whose label is in `skip_labels` is dropped, and so is one whose
//     label count is below `required_agreement` (when it is non-zero: None
//     and 0 both mean no threshold).
//
// The emotion vocabulary (EMOTION_LABELS, lines 19-28) and the eight
// candidates the mapper chooses from (the English list minus "something
// else", 2_extract_mcvqa_artelingo_selections.py line 21) are exported.
#ifndef CB_REFERENCE_VLMBIAS_ARTELINGO_H_
#define CB_REFERENCE_VLMBIAS_ARTELINGO_H_

#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::vlmbias {

// EMOTION_LABELS['en'] and ['zh'], index-aligned; the last is "something else".
const std::vector<std::string>& EmotionLabelsEn();
const std::vector<std::string>& EmotionLabelsZh();
// ARTELINGO_CANDIDATES: EmotionLabelsEn() without its last entry.
std::vector<std::string> ArtelingoCandidates();

struct AnnotationRow {
  std::string emotion;     // an English emotion label
  std::string language;    // "english" | "chinese" | "arabic"
  std::string image_file;  // as in the CSV
  std::string split;       // "train" | "val" | "test"
};

struct LabelOptions {
  std::vector<std::string> ann_langs = {"en", "zh"};
  std::vector<std::string> splits = {"test"};
  std::vector<std::string> skip_labels;
  int required_agreement = 0;  // 0: none
};

struct MajorityLabel {
  std::string ann_lang;    // "en" | "zh" | "ar"
  std::string image_file;
  std::string label;       // English emotion
  int agreement = 0;       // annotators of that language giving it
  int annotators = 0;      // annotators of that language for the image
};

// The labels in ArtELingo's example order. Throws std::invalid_argument for
// an annotator language, split or skip label the authors' asserts reject.
std::vector<MajorityLabel> MajorityLabels(const std::vector<AnnotationRow>& rows, const LabelOptions& options);

// Reads artelingo_release.csv (RFC 4180: quoted fields may hold commas,
// doubled quotes and newlines) by its header's column names `emotion`,
// `language`, `image_file`, `split`. Throws std::runtime_error naming
// `source:line` for a missing column, an unterminated quote or a row with
// the wrong number of fields.
std::vector<AnnotationRow> ReadAnnotationsCsv(std::string_view text, const std::string& source);

}  // namespace cb::ref::vlmbias

#endif  // CB_REFERENCE_VLMBIAS_ARTELINGO_H_
