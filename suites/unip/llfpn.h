// File: suites/unip/llfpn.h
// -----------------------------------------------------------------------------
// A simplified LL-FPN segmentation head for UNIP at toy scale (issue 22).
//
// UNIP (ICLR 2025, §4 and its segmentation code) fine-tunes an "LL-FPN"
// head: the ViT's LAST layer feature map feeds every pyramid level (x4:
// ConvT-BN-GELU-ConvT, x2: ConvT, x1: identity, x1/2: max-pool), and the
// four levels go into UperNet. Here, on frozen patch features [N, G, G, D]
// (suites/unip/distill.h PatchFeatures: [N * G * G, D], image-major,
// patches row-major, G = size / patch), fp64, plain loops:
//
//   level (a)  ConvTranspose2d(D, F, 2, stride 2)        -> [N, 2G, 2G, F]
//   level (b)  1x1 conv D -> F                           -> [N, G, G, F]
//   level (c)  2x2 max-pool, then 1x1 conv D -> F        -> [N, G/2, G/2, F]
//   fusion     nearest-upsample (b), (c) to 2G x 2G, sum with (a), GELU
//              (exact, erf: torch's nn.GELU() default), 1x1 conv F -> K
//                                                        -> logits [N, 2G, 2G, K]
//
// so the x2, x1 and x1/2 levels are kept and the paper's x4 level is left
// out (at 32 x 32 scenes with 8 x 8 patches a 2G grid cell is already
// 4 x 4 pixels). The fusion STANDS IN for UperNet: no pyramid pooling
// module, no top-down path, no 3x3 convs, no BatchNorm; one sum of the
// levels, one nonlinearity and a per-cell classifier. The logits are
// nearest-upsampled to pixels: cell (y, x) of the 2G grid covers pixels
// [y P/2, (y + 1) P/2) x [x P/2, (x + 1) P/2) (P = patch, even).
//
// Loss: per-pixel softmax cross-entropy against the scene labels, label 255
// ignored (mmseg's ignore_index, ref::unip::kIgnoreLabel), reduced as
// mmseg's CrossEntropyLoss with its default avg_non_ignore=False: the SUM
// over non-ignored pixels divided by ALL pixels N * S * S (ignored pixels
// count in the denominator with a loss of 0; torch's own cross_entropy
// would divide by the non-ignored count). Training: AdamW (fp64, torch's
// formula) on the head only, features frozen; random mini-batches of
// scenes (with replacement) from a harness::Rng, so a seed fixes the run.
// The backward also gives d loss / d features, the [N * G * G, D] a caller
// would scatter into CpuTransformer::ImageHiddenLossAndGrad's dxf (skipping
// CLS) to fine-tune the backbone, which is not done here.
#ifndef CB_SUITES_UNIP_LLFPN_H_
#define CB_SUITES_UNIP_LLFPN_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "generators/segscenes.h"

namespace cb::unip {

// The head's parameters, torch layouts.
struct LlFpnHead {
  int dim = 0;      // D, the feature width
  int width = 0;    // F, every level's channels
  int classes = 0;  // K, background (0) included
  std::vector<double> up_w;    // [D, F, 2, 2] level (a), ConvTranspose2d weight [in, out, kh, kw]
  std::vector<double> up_b;    // [F]
  std::vector<double> mid_w;   // [F, D] level (b)
  std::vector<double> mid_b;   // [F]
  std::vector<double> down_w;  // [F, D] level (c), after the max-pool
  std::vector<double> down_b;  // [F]
  std::vector<double> cls_w;   // [K, F] the classifier after the fusion
  std::vector<double> cls_b;   // [K]

  // The eight tensors in the order above (the optimiser's and the tests'
  // view); names in kLlFpnTensorNames.
  std::array<std::vector<double>*, 8> Tensors();
  std::array<const std::vector<double>*, 8> Tensors() const;
};
inline constexpr std::array<const char*, 8> kLlFpnTensorNames = {"up_w",   "up_b",   "mid_w", "mid_b",
                                                                 "down_w", "down_b", "cls_w", "cls_b"};

struct LlFpnSpec {
  int width = 32;              // F
  int steps = 300;             // AdamW steps
  int batch = 8;               // scenes per step, drawn with replacement
  double lr = 3e-3;
  double weight_decay = 1e-2;  // decoupled (AdamW), on every tensor
  uint64_t seed = 1;           // initial weights and batch order
};

// A fresh head: weights N(0, 1 / fan_in) (fan_in = D for the three level
// convs: a ConvT with kernel = stride sees D inputs per output; F for the
// classifier), biases 0, drawn from harness::Rng(spec.seed, 0).
// REQUIRES (else std::invalid_argument): dim >= 1, spec.width >= 1,
// classes >= 2.
LlFpnHead MakeLlFpnHead(int dim, int classes, const LlFpnSpec& spec);

// Logits at the 2G x 2G cells, [N, 2G, 2G, K], of features [N * G * G, D].
// REQUIRES (else std::invalid_argument): G >= 2 even, features a whole
// number N >= 1 of [G, G, head.dim] images, a head of consistent shapes.
std::vector<double> LlFpnLogits(const LlFpnHead& head, std::span<const double> features, int grid);

// The loss above of features [N * G * G, D] against pixel labels
// [N, S, S] (S = G * patch; each in [0, K) or 255). When `grad` is not
// null it is overwritten with d loss / d every head tensor (same shapes as
// `head`); when `dfeatures` is not null it is overwritten with d loss /
// d features [N * G * G, D] (max-pool ties route to the first maximum in
// row-major window order). REQUIRES (else std::invalid_argument): as
// LlFpnLogits, patch >= 2 even, labels of that size and range.
double LlFpnLossAndGrad(const LlFpnHead& head, std::span<const double> features, int grid,
                        std::span<const int> labels, int patch, LlFpnHead* grad,
                        std::vector<double>* dfeatures);

// AdamW in fp64 with torch's formula (decoupled weight decay, bias
// correction, eps 1e-8 outside the square root) over the head's tensors.
class LlFpnAdamW {
 public:
  LlFpnAdamW(const LlFpnHead& head, double lr, double weight_decay);
  void Step(LlFpnHead& head, const LlFpnHead& grad);

 private:
  double lr_, wd_;
  int t_ = 0;
  LlFpnHead m_, v_;
};

// Trains `head` on the frozen features [N * G * G, D] of `scenes`
// (G = size / patch) and their pixel labels: spec.steps AdamW steps on
// spec.batch scenes each; returns each step's batch loss (before its
// update). spec.width and spec.seed's init are MakeLlFpnHead's; here the
// seed drives the batch order (harness::Rng(spec.seed, 1)).
// REQUIRES (else std::invalid_argument): as LlFpnLossAndGrad, features of
// scenes.scenes.size() images, steps >= 0, batch >= 1, lr > 0,
// weight_decay >= 0.
std::vector<double> TrainLlFpn(LlFpnHead& head, const std::vector<double>& features,
                               const gen::SegScenes& scenes, int patch, const LlFpnSpec& spec);

// Per-pixel argmax class [N, S, S] (ties to the lower class): the cell's
// prediction painted over its P/2 x P/2 pixels.
std::vector<int> LlFpnPredict(const LlFpnHead& head, std::span<const double> features, int grid, int patch);

// mmseg's mIoU (ref::unip::MiouAccumulator, background included, label
// 255 ignored) of the head's pixel predictions on `scenes` from their
// features [N * G * G, D], histograms summed over the data set, as
// distill.h's ProbeMiou. REQUIRES: as LlFpnPredict, G = size / patch.
double LlFpnMiou(const LlFpnHead& head, const std::vector<double>& features, const gen::SegScenes& scenes,
                 int patch);

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_LLFPN_H_
