// File: reference/medrega/grounding.h
// -----------------------------------------------------------------------------
// MedRegA's text-to-region scorers (xmed-lab/MedRegA,
// src/eval/regt2r/evaluator_reg.py at dfdb0dbbcca0b80b8f1c121c3c45490dc8001529;
// each task's evaluate_regt2r_{ss,sm,ms,mm}.py picks one class). An item is
// {answer, gt, hw}; boxes and IoU as in boxes.h.
//
// Paper-compatible (what the code computes, names as it prints them):
//   ss  SingleRegionSingleObjectEvaluator: with more predicted boxes than GT
//       boxes, the best IoU of any prediction against the FIRST GT box,
//       otherwise the first prediction against the first GT box, 0 with no
//       prediction; acc25/acc50/acc75 count IoU > t (strict >); values
//       rounded to 4 decimals ('{:.4f}'). An empty GT with predictions is an
//       IndexError.
//   sm  SingleRegionMultiObjectEvaluator: Hungarian assignment on 1 - IoU, a
//       pair counts as a match when IoU >= 0.75 (this class's default
//       threshold; ms and mm use 0.5). "precision" = matches / #GT and
//       "recall" = matches / #pred (swapped against the usual names), f1 of
//       the two, per item, averaged; iou = sum of assigned pairs' IoU / number
//       of assigned pairs over all items.
//   ms  MultiRegionSingleObjectEvaluator (threshold 0.5): box_acc = mean of
//       matches / #GT, box_iou = sum of pair IoU / sum of #GT; names aligned
//       when the predicted name is empty or either name contains the other;
//       predicted names are looked up by the matched box's index in the list
//       of name groups (a group with two boxes shifts every later name), and
//       object_iou sums the IoU of every pair whose indices have names,
//       aligned or not. object_acc, object_box_acc, object_box_alignment,
//       object_box_detection as the code defines them. An empty GT is a
//       ZeroDivisionError.
//   mm  MultiRegionMultiObjectEvaluator (threshold 0.5): names per box;
//       box_pre = matches / #GT, box_recall = matches / #pred (swapped),
//       box_iou as ms, the object (name-aligned pairs) and object-box (aligned
//       matches) variants; a phantom parse-failure box in an assigned pair is
//       a KeyError, an empty GT a ZeroDivisionError.
// Where the code raises, PaperError says what and where.
//
// Strict: the first predicted box against the GT box, Acc@t = IoU >= t (ss);
// a match is IoU >= 0.5 in every task; precision = matches / #pred, recall =
// matches / #GT, f1 (an empty prediction has precision 1, an empty GT recall 1,
// so nothing-for-nothing scores 1); IoU = mean over assigned pairs; names per
// box, stripped, aligned when both are non-empty and one contains the other;
// no phantom boxes. ss items with no GT box are not scored (counted in
// items_without_gt); an empty item list gives zeros with items = 0.
#ifndef CB_REFERENCE_MEDREGA_GROUNDING_H_
#define CB_REFERENCE_MEDREGA_GROUNDING_H_

#include <optional>
#include <string>
#include <vector>

#include "reference/medrega/boxes.h"
#include "reference/medrega/scores.h"

namespace cb::ref::medrega {

struct GroundingItem {
  std::optional<std::string> answer;  // nullopt: JSON null
  std::string gt;                     // <ref>name</ref><box>[[...]]</box> ...
  int height = 0, width = 0;          // hw = [H, W]
};

// task: one of ss, sm, ms, mm. Throws PaperError (paper mode) where the code
// raises, std::invalid_argument on a ground truth the code cannot read.
TaskScores ScoreGrounding(Task task, const std::vector<GroundingItem>& items, Mode mode);

// The match threshold each task uses in each mode.
double MatchThreshold(Task task, Mode mode);

}  // namespace cb::ref::medrega

#endif  // CB_REFERENCE_MEDREGA_GROUNDING_H_
