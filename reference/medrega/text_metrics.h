// File: reference/medrega/text_metrics.h
// -----------------------------------------------------------------------------
// MedRegA's text scorers (xmed-lab/MedRegA at
// dfdb0dbbcca0b80b8f1c121c3c45490dc8001529) and the metric pieces they call:
//
//   r2t    src/eval/regr2t/evaluator.py R2TEvaluator: both texts lowercased,
//          `[[...]]` removed from the prediction (re.sub(r'\[\[.*?\]\]', '')),
//          token SETS from str.split(); precision = |P∩G|/|P|, recall =
//          |P∩G|/|G| (0 for an empty side), F1 = 2PR/(P+R+1e-8); per-sentence
//          BLEU-1 from torchmetrics BLEUScore(n_gram=1) (whitespace tokens,
//          clipped unigram precision times the brevity penalty, 0 when nothing
//          matches, float32); accuracy = share of items with recall >= 0.75.
//          Reported: bleu1, F1, recall, accuracy (means over items, 0 for an
//          empty list, which in the code then fails in BERTScore: PaperError).
//          BERTScore (deberta-xlarge-mnli, IDF on the predictions) needs the
//          model and is not computed.
//   rg     src/eval/rg/evaluator_rg.py ReportEvaluator: cleanStr on both texts;
//          corpus BLEU-1 and BLEU-4 from HF evaluate's "bleu" (13a tokenizer,
//          tensorflow/nmt compute_bleu, no smoothing; an empty corpus side is
//          a ZeroDivisionError); rouge1 / rougeL F-measures from HF "rouge"
//          (rouge_score's tokenizer: lowercase, [a-z0-9]+ runs only, no
//          stemming). The code's ROUGE is a bootstrap aggregate (1000 unseeded
//          resamples, the median of the means); we report the mean over
//          reports, which that estimates: exact parity is impossible, the
//          code's own value changes between runs. METEOR, BERTScore,
//          RadGraph-F1, CheXbert and RadCliQ need models/wordnet: not computed.
//   rg_zh  ReportEvaluatorChinese: the prediction through cleanStr_zh with its
//          spaces removed, the reference raw; per-report BLEU-1/4 (HF "bleu"
//          on the jieba-cut text, 0 where it raises) and ROUGE, with the
//          code's swap: its "rouge1" is the mean of rougeL and its "rougeL"
//          the mean of rouge1. Since rouge_score keeps only [a-z0-9] runs,
//          Chinese characters never reach ROUGE: a report in Chinese scores
//          ROUGE 0 (or the ASCII it contains), whatever it says; this is the
//          code's behaviour and is ported. jieba (a dictionary segmenter) is
//          not ported: we segment one token per run of ASCII letters/digits and
//          one per other non-space character (each CJK character), so BLEU here is character-level and differs
//          from the code's word-level BLEU; ROUGE is unaffected (it sees only
//          ASCII runs, which jieba keeps whole).
//
// Strict mode uses the same definitions in float64 without the quirks: F1 =
// 2PR/(P+R) (0 when both are 0), r2t items with an empty reference are left
// out (items_without_gt), rg_zh's rouge1/rougeL named correctly, corpus BLEU
// of an empty side is 0, and empty lists give zeros.
#ifndef CB_REFERENCE_MEDREGA_TEXT_METRICS_H_
#define CB_REFERENCE_MEDREGA_TEXT_METRICS_H_

#include <string>
#include <string_view>
#include <vector>

#include "reference/medrega/boxes.h"
#include "reference/medrega/scores.h"

namespace cb::ref::medrega {

struct TextItem {
  std::string pred, gt;  // pred_answer, gt_answer
};

// task: r2t, rg or rg_zh.
TaskScores ScoreText(Task task, const std::vector<TextItem>& items, Mode mode);

// The pieces, exposed for tests.
double TorchmetricsBleu1(std::string_view pred, std::string_view ref, Mode mode);
std::vector<std::string> Tokenize13a(std::string_view line);
// HF evaluate "bleu" over a corpus (one reference each); throws PaperError
// where nmt's compute_bleu divides by zero (paper mode), 0 in strict mode.
double CorpusBleu(const std::vector<std::vector<std::string>>& preds,
                  const std::vector<std::vector<std::string>>& refs, int max_order, Mode mode);
std::vector<std::string> RougeTokenize(std::string_view text);
struct Rouge {
  double rouge1 = 0, rougeL = 0;  // F-measures
};
Rouge RougeScore(std::string_view pred, std::string_view ref);
std::string CleanStr(std::string_view s);    // rg/postprocess_utils.py cleanStr
std::string CleanStrZh(std::string_view s);  // rg/postprocess_utils.py cleanStr_zh
// Our stand-in for ' '.join(jieba.cut(s)): ASCII letter/digit runs one token,
// every other non-space character (each CJK character) one token.
std::string SegmentZh(std::string_view s);

}  // namespace cb::ref::medrega

#endif  // CB_REFERENCE_MEDREGA_TEXT_METRICS_H_
