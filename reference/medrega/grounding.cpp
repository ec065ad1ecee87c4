// File: reference/medrega/grounding.cpp
// The text-to-region scorers; see grounding.h. Line references are to
// src/eval/regt2r/evaluator_reg.py at dfdb0dbb.
#include "reference/medrega/grounding.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "reference/medrega/hungarian.h"

namespace cb::ref::medrega {
namespace {

struct Pair {
  int r, c;
  double iou;
};

struct Matching {
  std::vector<Pair> pairs;    // the assignment (min(#pred, #gt) pairs), rows ascending
  std::vector<Pair> matches;  // pairs with iou >= threshold
};

Matching Match(const std::vector<Box>& pred, const std::vector<Box>& gt, double threshold, Mode mode, size_t item) {
  Matching m;
  if (pred.empty() || gt.empty()) return m;
  CostMatrix iou(pred.size(), std::vector<double>(gt.size()));
  CostMatrix cost = iou;
  for (size_t i = 0; i < pred.size(); ++i)
    for (size_t j = 0; j < gt.size(); ++j) {
      iou[i][j] = Iou(pred[i], gt[j], mode);
      if (std::isnan(iou[i][j]))
        throw PaperError("item " + std::to_string(item) + ": IoU of two zero-area boxes is NaN; scipy's "
                         "linear_sum_assignment raises ValueError (cost matrix contains invalid numeric entries)");
      cost[i][j] = 1 - iou[i][j];
    }
  for (const auto& [r, c] : SolveAssignment(cost)) {
    m.pairs.push_back({r, c, iou[r][c]});
    if (iou[r][c] >= threshold) m.matches.push_back({r, c, iou[r][c]});
  }
  return m;
}

double Ratio(double a, double b) { return b != 0 ? a / b : 0.0; }  // the code's `x / y if y != 0 else 0`
double F1(double p, double r) { return p + r != 0 ? 2 * p * r / (p + r) : 0.0; }

// The code divides without a guard: a ZeroDivisionError in paper mode.
double Divide(double a, double b, const std::string& what) {
  if (b == 0) throw PaperError("ZeroDivisionError: " + what);
  return a / b;
}

double Mean(const std::vector<double>& v, const std::string& what) {
  double s = 0;
  for (double x : v) s += x;
  return Divide(s, static_cast<double>(v.size()), what);
}

double Round4(double v) {  // float('{:.4f}'.format(v))
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return std::strtod(buf, nullptr);
}

std::vector<Box> GtBoxes(const std::vector<BoxGroup>& groups) {
  std::vector<Box> out;
  for (const auto& g : groups) out.insert(out.end(), g.boxes.begin(), g.boxes.end());
  return out;
}

bool PaperAligned(const std::string& p, const std::string& t) {
  return p.empty() || t.find(p) != std::string::npos || p.find(t) != std::string::npos;
}
bool StrictAligned(const std::string& p, const std::string& t) {
  return !p.empty() && !t.empty() && (t.find(p) != std::string::npos || p.find(t) != std::string::npos);
}

// Per-box names: each group's name repeated for its boxes.
std::vector<std::string> BoxNames(const std::vector<BoxGroup>& groups) {
  std::vector<std::string> out;
  for (const auto& g : groups)
    for (size_t k = 0; k < g.boxes.size(); ++k) out.push_back(g.name);
  return out;
}

struct Parsed {
  ParsedAnswer answer;
  std::vector<BoxGroup> gt;
  std::vector<Box> pred_boxes, gt_boxes;
};

Parsed ParseItem(const GroundingItem& it, Mode mode) {
  Parsed p;
  p.answer = ParseAnswer(it.answer, it.height, it.width, mode);
  p.gt = ParseGroundTruth(it.gt, it.height, it.width, mode);
  p.pred_boxes = p.answer.AllBoxes();
  p.gt_boxes = GtBoxes(p.gt);
  return p;
}

std::string Where(size_t i) { return "item " + std::to_string(i); }

// ss, lines 29-90.
TaskScores SingleObject(const std::vector<GroundingItem>& items, Mode mode, TaskScores s) {
  const bool paper = mode == Mode::kPaperCompatible;
  int c25 = 0, c50 = 0, c75 = 0;
  std::vector<double> ious;
  for (size_t i = 0; i < items.size(); ++i) {
    const Parsed p = ParseItem(items[i], mode);
    s.parse_failures += p.answer.failed;
    const auto& P = p.pred_boxes;
    const auto& G = p.gt_boxes;
    if (G.empty()) ++s.items_without_gt;
    double best = 0;
    if (paper) {
      if (!P.empty()) {
        if (P.size() > G.size()) {
          if (G.empty())
            throw PaperError("IndexError: " + Where(i) + " has predicted boxes but no ground-truth box "
                             "(all_boxes_target[0])");
          for (const Box& b : P) {
            const double cur = Iou(b, G[0], mode);
            if (cur > best) best = cur;  // NaN never wins
          }
        } else {
          best = Iou(P[0], G[0], mode);
        }
      }
      if (best > 0.25) ++c25;
      if (best > 0.5) ++c50;
      if (best > 0.75) ++c75;
    } else {
      if (G.empty()) continue;
      best = P.empty() ? 0.0 : Iou(P[0], G[0], mode);
      if (best >= 0.25) ++c25;
      if (best >= 0.5) ++c50;
      if (best >= 0.75) ++c75;
    }
    ious.push_back(best);
  }
  s.items = static_cast<int>(ious.size());
  if (paper) {
    const double n = static_cast<double>(items.size());
    const std::string empty = "no predictions (len(pred_list) == 0)";
    s.metrics = {{"acc25", Round4(Divide(c25, n, empty))},
                 {"acc50", Round4(Divide(c50, n, empty))},
                 {"acc75", Round4(Divide(c75, n, empty))},
                 {"iou", Round4(Mean(ious, empty))}};
  } else {
    const double n = static_cast<double>(ious.size());
    double sum = 0;
    for (double v : ious) sum += v;
    s.metrics = {{"acc25", Ratio(c25, n)}, {"acc50", Ratio(c50, n)}, {"acc75", Ratio(c75, n)}, {"iou", Ratio(sum, n)}};
  }
  return s;
}

// sm, lines 130-175.
TaskScores SingleRegionMulti(const std::vector<GroundingItem>& items, Mode mode, TaskScores s) {
  const bool paper = mode == Mode::kPaperCompatible;
  const double thr = MatchThreshold(Task::kSm, mode);
  std::vector<double> pres, recs, f1s;
  double iou_sum = 0, pairs = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const Parsed p = ParseItem(items[i], mode);
    s.parse_failures += p.answer.failed;
    if (p.gt_boxes.empty()) ++s.items_without_gt;
    const Matching m = Match(p.pred_boxes, p.gt_boxes, thr, mode, i);
    const double nm = static_cast<double>(m.matches.size()), ng = static_cast<double>(p.gt_boxes.size()),
                 np = static_cast<double>(p.pred_boxes.size());
    double pre, rec;
    if (paper) {
      pre = Ratio(nm, ng);  // "precision": matches / #GT
      rec = Ratio(nm, np);  // "recall": matches / #pred
    } else {
      pre = np > 0 ? nm / np : 1.0;
      rec = ng > 0 ? nm / ng : 1.0;
    }
    pres.push_back(pre);
    recs.push_back(rec);
    f1s.push_back(F1(pre, rec));
    for (const Pair& q : m.pairs) iou_sum += q.iou;
    pairs += static_cast<double>(m.pairs.size());
  }
  s.items = static_cast<int>(items.size());
  auto mean0 = [](const std::vector<double>& v) {  // `sum / len if len > 0 else 0`
    double t = 0;
    for (double x : v) t += x;
    return v.empty() ? 0.0 : t / static_cast<double>(v.size());
  };
  const double iou = paper ? Divide(iou_sum, pairs, "no assigned box pairs in any item (pair_all == 0)")
                           : Ratio(iou_sum, pairs);
  s.metrics = {{"precision", mean0(pres)}, {"recall", mean0(recs)}, {"f1", mean0(f1s)}, {"iou", iou}};
  return s;
}

// ms (lines 220-310) and mm (lines 355-460) in paper mode.
TaskScores MultiRegionPaper(Task task, const std::vector<GroundingItem>& items, TaskScores s) {
  const Mode mode = Mode::kPaperCompatible;
  const bool mm = task == Task::kMm;
  const double thr = MatchThreshold(task, mode);
  double iou_box = 0, iou_ob = 0, pair_all = 0, align_all_all = 0;
  std::vector<double> box_pres, box_recs, box_f1s, align_gts, align_preds, align_matches, align_f1s, ob_pres, ob_recs,
      ob_f1s, detects;
  for (size_t i = 0; i < items.size(); ++i) {
    const Parsed p = ParseItem(items[i], mode);
    s.parse_failures += p.answer.failed;
    if (p.gt_boxes.empty()) ++s.items_without_gt;
    // ms: boxid2object_* keyed by group index; mm: by box index.
    std::vector<std::string> pn, tn;
    if (mm) {
      pn = BoxNames(p.answer.groups);
      tn = BoxNames(p.gt);
    } else {
      for (const auto& g : p.answer.groups) pn.push_back(g.name);
      for (const auto& g : p.gt) tn.push_back(g.name);
    }
    const Matching m = Match(p.pred_boxes, p.gt_boxes, thr, mode, i);
    const double ng = static_cast<double>(p.gt_boxes.size()), np = static_cast<double>(p.pred_boxes.size()),
                 nm = static_cast<double>(m.matches.size());
    auto key = [&](int r) {
      if (r >= static_cast<int>(pn.size()))
        throw PaperError("KeyError: " + Where(i) + ": predicted box " + std::to_string(r) +
                         " (the parse-failure box) has no name in boxid2object_pred");
      return pn[r];
    };
    int correct_align = 0;
    for (const Pair& q : m.matches) {
      if (mm) {
        if (PaperAligned(key(q.r), tn[q.c])) ++correct_align;
      } else if (static_cast<int>(pn.size()) > q.r && static_cast<int>(tn.size()) > q.c &&
                 PaperAligned(pn[q.r], tn[q.c])) {
        ++correct_align;
      }
    }
    const double box_pre = Ratio(nm, ng);
    box_pres.push_back(box_pre);
    double pair_iou = 0;
    for (const Pair& q : m.pairs) pair_iou += q.iou;
    iou_box += pair_iou;
    pair_all += ng;
    const std::string empty_gt = Where(i) + " has no ground-truth box (correct_align / total_cnt_all)";
    const double align_gt = Divide(correct_align, ng, empty_gt);
    align_gts.push_back(align_gt);
    align_matches.push_back(Ratio(correct_align, nm));
    if (mm) {
      const double box_rec = Ratio(nm, np);
      box_recs.push_back(box_rec);
      box_f1s.push_back(F1(box_pre, box_rec));
      const double align_pred = Ratio(correct_align, np);
      align_preds.push_back(align_pred);
      align_f1s.push_back(F1(align_pred, align_gt));
    }
    int align_all = 0;
    for (const Pair& q : m.pairs) {
      if (mm) {
        if (PaperAligned(key(q.r), tn[q.c])) {
          ++align_all;
          iou_ob += q.iou;
        }
      } else if (static_cast<int>(pn.size()) > q.r && static_cast<int>(tn.size()) > q.c) {
        if (PaperAligned(pn[q.r], tn[q.c])) ++align_all;
        iou_ob += q.iou;  // outside the name test, as in the code
      }
    }
    align_all_all += align_all;
    ob_pres.push_back(align_all / ng);
    if (mm) {
      const double ob_rec = Ratio(align_all, np);
      ob_recs.push_back(ob_rec);
      ob_f1s.push_back(F1(align_all / ng, ob_rec));
    }
    detects.push_back(Ratio(correct_align, align_all));
  }
  s.items = static_cast<int>(items.size());
  const std::string none = "no predictions (len(pred_list) == 0)";
  if (items.empty()) throw PaperError("ZeroDivisionError: " + none);
  const double box_iou = Divide(iou_box, pair_all, "no ground-truth boxes in any item (pair_all == 0)");
  if (!mm) {
    s.metrics = {{"box_acc", Mean(box_pres, none)},
                 {"box_iou", box_iou},
                 {"object_acc", Mean(ob_pres, none)},
                 {"object_iou", Divide(iou_ob, align_all_all, "no name-aligned pair in any item (align_all_all == 0)")},
                 {"object_box_acc", Mean(align_gts, none)},
                 {"object_box_alignment", Mean(align_matches, none)},
                 {"object_box_detection", Mean(detects, none)}};
  } else {
    s.metrics = {{"box_pre", Mean(box_pres, none)},
                 {"box_recall", Mean(box_recs, none)},
                 {"box_f1", Mean(box_f1s, none)},
                 {"box_iou", box_iou},
                 {"object_pre", Mean(ob_pres, none)},
                 {"object_rec", Mean(ob_recs, none)},
                 {"object_f1", Mean(ob_f1s, none)},
                 {"object_iou", Ratio(iou_ob, align_all_all)},
                 {"object_box_pre", Mean(align_gts, none)},
                 {"object_box_recall", Mean(align_preds, none)},
                 {"object_box_f1", Mean(align_f1s, none)},
                 {"object_box_alignment", Mean(align_matches, none)},
                 {"object_box_detection", Mean(detects, none)}};
  }
  return s;
}

// ms and mm in strict mode: one definition for both (names per box).
TaskScores MultiRegionStrict(Task task, const std::vector<GroundingItem>& items, TaskScores s) {
  const Mode mode = Mode::kStrict;
  const double thr = MatchThreshold(task, mode);
  std::vector<double> bp, br, bf, op, orc, of, al;
  double iou_sum = 0, pairs = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const Parsed p = ParseItem(items[i], mode);
    if (p.gt_boxes.empty()) ++s.items_without_gt;
    const auto pn = BoxNames(p.answer.groups), tn = BoxNames(p.gt);
    const Matching m = Match(p.pred_boxes, p.gt_boxes, thr, mode, i);
    const double ng = static_cast<double>(p.gt_boxes.size()), np = static_cast<double>(p.pred_boxes.size()),
                 nm = static_cast<double>(m.matches.size());
    int aligned = 0;
    for (const Pair& q : m.matches) aligned += StrictAligned(pn[q.r], tn[q.c]);
    const double pre = np > 0 ? nm / np : 1.0, rec = ng > 0 ? nm / ng : 1.0;
    const double opre = np > 0 ? aligned / np : 1.0, orec = ng > 0 ? aligned / ng : 1.0;
    bp.push_back(pre);
    br.push_back(rec);
    bf.push_back(F1(pre, rec));
    op.push_back(opre);
    orc.push_back(orec);
    of.push_back(F1(opre, orec));
    if (nm > 0) al.push_back(aligned / nm);
    for (const Pair& q : m.pairs) iou_sum += q.iou;
    pairs += static_cast<double>(m.pairs.size());
  }
  s.items = static_cast<int>(items.size());
  auto mean0 = [](const std::vector<double>& v) {
    double t = 0;
    for (double x : v) t += x;
    return v.empty() ? 0.0 : t / static_cast<double>(v.size());
  };
  s.metrics = {{"box_precision", mean0(bp)},      {"box_recall", mean0(br)},    {"box_f1", mean0(bf)},
               {"box_iou", Ratio(iou_sum, pairs)}, {"object_precision", mean0(op)}, {"object_recall", mean0(orc)},
               {"object_f1", mean0(of)},           {"name_alignment", mean0(al)}};
  return s;
}

}  // namespace

double MatchThreshold(Task task, Mode mode) {
  if (mode == Mode::kStrict) return 0.5;
  return task == Task::kSm ? 0.75 : 0.5;  // SingleRegionMultiObjectEvaluator.hungarian_matching(iou_threshold=0.75)
}

TaskScores ScoreGrounding(Task task, const std::vector<GroundingItem>& items, Mode mode) {
  TaskScores s;
  s.task = task;
  switch (task) {
    case Task::kSs: return SingleObject(items, mode, s);
    case Task::kSm: return SingleRegionMulti(items, mode, s);
    case Task::kMs:
    case Task::kMm:
      return mode == Mode::kPaperCompatible ? MultiRegionPaper(task, items, s) : MultiRegionStrict(task, items, s);
    default: throw std::invalid_argument(std::string("not a grounding task: ") + TaskKey(task));
  }
}

}  // namespace cb::ref::medrega
