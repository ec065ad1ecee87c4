// File: suites/medrega/golden_cases.cpp
// The golden cases; see golden_cases.h. Boxes on a 999 x 999 image, where the
// grid values used scale exactly; [0,0,300,999] vs [0,0,600,999] has IoU
// 299700 / 599400 = 0.5 exactly, [300,0,500,999] vs [300,0,600,999] 2/3.
#include "suites/medrega/golden_cases.h"

#include <cmath>
#include <cstdio>

namespace cb::medrega {
namespace {

namespace mr = cb::ref::medrega;
constexpr mr::Mode kP = mr::Mode::kPaperCompatible, kS = mr::Mode::kStrict;
const char* kReg = "src/eval/regt2r/evaluator_reg.py";
const char* kR2t = "src/eval/regr2t/evaluator.py";
const char* kRg = "src/eval/rg/evaluator_rg.py";

mr::GroundingItem G(std::optional<std::string> a, std::string gt) { return {std::move(a), std::move(gt), 999, 999}; }

const std::string kGt600 = "<ref>lesion</ref><box>[[0, 0, 600, 999]]</box>";
const std::string kThree =
    "<ref>liver</ref><box>[[0, 0, 300, 999]]</box><ref>kidney</ref><box>[[300, 0, 600, 999]]</box>"
    "<ref>spleen</ref><box>[[600, 0, 999, 999]]</box>";

}  // namespace

const std::vector<GoldenCase>& GoldenCases() {
  static const std::vector<GoldenCase> cases = [] {
    std::vector<GoldenCase> v;
    auto g = [&](std::string name, const char* file, mr::Task t, mr::Mode m, std::vector<mr::GroundingItem> items,
                 std::string metric, double expected, std::string why, bool raises = false) {
      v.push_back({std::move(name), file, t, m, std::move(items), {}, std::move(metric), expected, 1e-6, raises,
                   std::move(why)});
    };
    auto t = [&](std::string name, const char* file, mr::Task task, mr::Mode m, std::vector<mr::TextItem> items,
                 std::string metric, double expected, std::string why, bool raises = false) {
      v.push_back({std::move(name), file, task, m, {}, std::move(items), std::move(metric), expected, 1e-7, raises,
                   std::move(why)});
    };
    g("ss_iou_exactly_half_is_not_above_half", kReg, mr::Task::kSs, kP, {G("x [[0, 0, 300, 999]]", kGt600)}, "acc50", 0,
      "IoU 0.5; `if max_iou > 0.5` is false");
    g("ss_strict_counts_half_at_acc50", kReg, mr::Task::kSs, kS, {G("x [[0, 0, 300, 999]]", kGt600)}, "acc50", 1,
      "strict Acc@0.5 is IoU >= 0.5");
    g("ss_more_preds_best_against_first_gt", kReg, mr::Task::kSs, kP,
      {G("[[0, 0, 300, 999], [0, 0, 600, 999]]", kGt600)}, "acc75", 1,
      "2 preds > 1 GT: max IoU of any pred vs GT[0] = 1");
    g("ss_parse_failure_is_zero_box", kReg, mr::Task::kSs, kP, {G("x [[05, 0, 600, 999]]", kGt600)}, "iou", 0,
      "ast.literal_eval('[[05, ...]]') raises: the except appends [0,0,0,0]; IoU 0");
    g("ss_empty_gt_index_error", kReg, mr::Task::kSs, kP, {G("[[0, 0, 300, 999]]", "")}, "iou", 0,
      "preds > 0 = #GT: all_boxes_target[0] raises IndexError", true);
    g("sm_precision_is_matches_over_gt", kReg, mr::Task::kSm, kP, {G("[[0, 0, 300, 999], [300, 0, 500, 999]]", kThree)},
      "precision", 1.0 / 3, "threshold 0.75 (this class's default): 1 match / 3 GT");
    g("sm_recall_is_matches_over_pred", kReg, mr::Task::kSm, kP, {G("[[0, 0, 300, 999], [300, 0, 500, 999]]", kThree)},
      "recall", 0.5, "1 match / 2 predictions");
    g("sm_strict_precision_named_correctly", kReg, mr::Task::kSm, kS,
      {G("[[0, 0, 300, 999], [300, 0, 500, 999]]", kThree)}, "precision", 1.0,
      "strict threshold 0.5: 2 matches / 2 predictions");
    g("ms_names_by_group_index", kReg, mr::Task::kMs, kP,
      {G("liver [[0, 0, 300, 999], [300, 0, 600, 999]] spleen [[600, 0, 999, 999]]", kThree)}, "object_box_acc",
      1.0 / 3, "boxid2object_pred keyed by group: box 1 named ' spleen ' vs kidney, box 2 unnamed: 1 aligned / 3 GT");
    g("ms_object_iou_above_one", kReg, mr::Task::kMs, kP,
      {G("liver [[0, 0, 300, 999], [300, 0, 600, 999]] spleen [[600, 0, 999, 999]]", kThree)}, "object_iou", 2.0,
      "averaged_iou_ob adds every named pair (2 x IoU 1), align_all_all counts aligned ones (1)");
    g("ms_empty_gt_zero_division", kReg, mr::Task::kMs, kP, {G("liver [[0, 0, 300, 999]]", "")}, "box_acc", 0,
      "correct_align / total_cnt_all with total_cnt_all = 0", true);
    g("mm_box_pre_is_matches_over_gt", kReg, mr::Task::kMm, kP,
      {G("liver [[0, 0, 300, 999]] liver [[300, 0, 600, 999]]", "<ref>liver</ref><box>[[0, 0, 300, 999]]</box>")},
      "box_recall", 0.5, "box_rec = correct_all / pred_cnt_all = 1 / 2");
    g("mm_phantom_box_key_error", kReg, mr::Task::kMm, kP, {G("liver [[0,0,300,999]] kidney [[01,0,5,5]]", kThree)},
      "box_pre", 0, "the [0,0,0,0] of the except is assigned and boxid2object_pred has no key for it", true);
    t("r2t_recall_075_counts_as_accurate", kR2t, mr::Task::kR2t, kP,
      {{"The Liver lesion [[1,2,3,4]] is hypodense", "liver lesion hypodense mass"}}, "accuracy", 1,
      "3 of 4 reference tokens: recall 0.75 >= 0.75");
    t("r2t_bleu1_brevity", kR2t, mr::Task::kR2t, kP, {{"mass", "liver mass"}}, "bleu1", std::exp(-1.0),
      "torchmetrics BLEU-1: precision 1, brevity exp(1 - 2/1)");
    t("r2t_f1_epsilon", kR2t, mr::Task::kR2t, kP, {{"mass", "liver mass"}}, "F1", 1.0 / (1.5 + 1e-8),
      "2PR / (P + R + 1e-8) with P 1, R 0.5");
    t("rg_corpus_bleu1", kRg, mr::Task::kRg, kP,
      {{"No acute findings. Heart size normal.", "Heart size is normal. No acute findings."}}, "bleu1",
      std::exp(1 - 8.0 / 7), "cleanStr, 13a tokens: 7 of 7 unigrams match, BP exp(1 - 8/7)");
    t("rg_zh_rouge_swapped", kRg, mr::Task::kRgZh, kP, {{"大小3cm，肝脏CT正常", "肝脏CT正常，3cm"}}, "rouge1", 0.5,
      "ASCII runs [3cm, ct] vs [ct, 3cm]: ROUGE-L 0.5 is appended to rouge1Scores");
    t("rg_zh_chinese_invisible_to_rouge", kRg, mr::Task::kRgZh, kP, {{"肝脏正常", "肝脏正常"}}, "rougeL", 0,
      "rouge_score keeps [a-z0-9] runs only: no tokens, F 0");
    return v;
  }();
  return cases;
}

bool RunGoldenCase(const GoldenCase& c, std::string* got) {
  try {
    const mr::TaskScores s = mr::IsGroundingTask(c.task) ? mr::ScoreGrounding(c.task, c.grounding, c.mode)
                                                         : mr::ScoreText(c.task, c.text, c.mode);
    const double v = s.Get(c.metric);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    *got = buf;
    return !c.raises && std::fabs(v - c.expected) <= c.tolerance;
  } catch (const mr::PaperError& e) {
    *got = std::string("raised: ") + e.what();
    return c.raises;
  }
}

}  // namespace cb::medrega
