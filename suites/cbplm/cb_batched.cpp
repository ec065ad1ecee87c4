// File: suites/cbplm/cb_batched.cpp
// -----------------------------------------------------------------------------
// The backend switch of cb_batched.h.
#include "suites/cbplm/cb_batched.h"

#include <stdexcept>

#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"
#include "suites/cbplm/cb_cuda.h"
#include "suites/lm/cuda_transformer.h"

namespace cb::cbplm {
namespace {

namespace h = cb::harness;
namespace pp = cb::ref::protparam;

void RequireBackend(h::Backend backend) {
  const h::BackendStatus status = h::Availability(backend);
  if (!status.ok)
    throw std::invalid_argument(std::string("cbplm: backend ") + std::string(h::BackendName(backend)) +
                                " unavailable: " + status.reason);
}

}  // namespace

std::vector<AdditiveRow> AdditiveConceptsBatch(h::Backend backend, const std::vector<std::string>& sequences) {
  RequireBackend(backend);
  std::vector<uint8_t> residues;
  std::vector<int64_t> offsets = {0};
  for (size_t s = 0; s < sequences.size(); ++s) {
    if (sequences[s].empty()) throw std::invalid_argument("cbplm: sequence " + std::to_string(s) + " is empty");
    for (char c : sequences[s]) {
      const auto i = pp::StandardIndex(c);
      if (!i)
        throw std::invalid_argument("cbplm: sequence " + std::to_string(s) + " has '" + std::string(1, c) +
                                    "', not one of the 20 standard residues");
      residues.push_back(static_cast<uint8_t>(*i));
    }
    offsets.push_back(static_cast<int64_t>(residues.size()));
  }
  std::vector<AdditiveRow> out(sequences.size());
  if (backend == h::Backend::kCpu) {
    for (size_t s = 0; s < sequences.size(); ++s) {
      const std::string& q = sequences[s];
      const auto ext = pp::MolarExtinctionCoefficient(q);
      out[s] = {pp::Gravy(q), pp::AverageHydrophilicity(q), pp::AverageSurfaceAccessibility(q), pp::Aromaticity(q),
                double(ext[0]), double(ext[1])};
    }
    return out;
  }
#if CB_HAVE_CUDA
  std::vector<double> flat(sequences.size() * kNumBatchedConcepts);
  cuda::AdditiveConcepts(residues, offsets, pp::kKyteDoolittle.data(), pp::kHoppWoods.data(), pp::kEmini.data(),
                         flat.data());
  for (size_t s = 0; s < sequences.size(); ++s)
    for (int c = 0; c < kNumBatchedConcepts; ++c) out[s][c] = flat[s * kNumBatchedConcepts + c];
#endif
  return out;
}

HeadForwardResult CbHeadForward(h::Backend backend, const ref::cbplm::CbHead& head, const std::vector<float>& xf,
                                int B, int T, const std::vector<float>& c_in) {
  RequireBackend(backend);
  const ref::cbplm::CbHeadConfig& c = head.config();
  if (B < 1 || T < 1 || xf.size() != size_t(B) * T * c.hidden)
    throw std::invalid_argument("cbplm: xf must hold batch x seq x hidden values");
  if (!c_in.empty() && c_in.size() != size_t(B) * c.concepts)
    throw std::invalid_argument("cbplm: c_in must be empty or hold batch x concepts values");
  HeadForwardResult r;
  if (backend == h::Backend::kCpu) {
    const std::vector<double> x(xf.begin(), xf.end());
    const std::vector<double> pred = head.Concepts(x, B, T);
    const std::vector<double> cin = c_in.empty() ? pred : std::vector<double>(c_in.begin(), c_in.end());
    const std::vector<double> logits = head.Logits(x, B, T, cin);
    r.pred.assign(pred.begin(), pred.end());
    r.logits.assign(logits.begin(), logits.end());
    return r;
  }
#if CB_HAVE_CUDA
  const std::vector<float> params(head.params().begin(), head.params().end());
  std::vector<size_t> offsets;
  for (const ref::cbplm::HeadSlot& s : head.slots()) offsets.push_back(s.offset);
  r.pred.resize(size_t(B) * c.concepts);
  r.logits.resize(size_t(B) * T * c.vocab);
  cuda::HeadForward(params, offsets, c.hidden, c.concepts, c.concept_emb, c.vocab, float(c.ln_eps), xf, B, T, c_in,
                    r.pred.data(), r.logits.data());
#endif
  return r;
}

std::vector<float> CbMlmLogits(h::Backend backend, const CbMlm& model, const std::vector<int>& tokens, int batch,
                               const std::vector<float>& c_in) {
  RequireBackend(backend);
  if (model.conditioning() != Conditioning::kCbm || !model.head())
    throw std::invalid_argument("cbplm: CbMlmLogits takes the concept-bottleneck model only");
  const int T = model.shape().seq;
  if (backend == h::Backend::kCpu) {
    const std::vector<double> cin(c_in.begin(), c_in.end());
    const std::vector<double> logits = model.Logits(tokens, batch, cin);
    return std::vector<float>(logits.begin(), logits.end());
  }
#if CB_HAVE_CUDA
  if (batch < 1 || tokens.size() != size_t(batch) * T)
    throw std::invalid_argument("cb mlm: tokens must hold batch x " + std::to_string(T) + " ids");
  const lm_suite::CudaTransformer encoder(model.encoder());
  const std::vector<float> xf = encoder.ForwardHiddenBatch(tokens, batch, T);
  return CbHeadForward(backend, *model.head(), xf, batch, T, c_in).logits;
#else
  return {};
#endif
}

}  // namespace cb::cbplm
