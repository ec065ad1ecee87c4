// File: reference/vlmbias/bias.h
// -----------------------------------------------------------------------------
// The Western-bias ratio of "See It from My Perspective" (as the reviews
// state it): bias = perf_West / perf_EastAsia, 1 meaning no bias, with a
// paired bootstrap interval. perf is the mean of per-item scores (1/0
// accuracy for the multiple-choice tasks, a judge's mean score for Dollar
// Street) over a region's observations. The ratio explodes when perf_EastAsia
// is small, so every estimate carries both absolute scores with their own
// intervals, and the replicates whose East-Asian score is 0 are counted (the
// ratio's upper bound is then +inf).
//
// Pairing: observations are grouped into units by a key (the item or image
// id). A unit observed in both regions (ArtELingo: the same painting labelled
// by English and by Chinese annotators) or under several conditions (the
// same item prompted in English and in Chinese) is resampled as one, so what
// is shared cancels. The bootstrap is stratified by the unit's regions
// (West only, East Asia only, both), each stratum resampled to its own size,
// so every replicate has as many units of each kind as the data. Indices come
// from Rng(seed, 0).UniformInt(0, size - 1), stratum by stratum (West only,
// East only, both), replicate by replicate. The interval is the percentile
// interval (harness/stats.h PercentileInterval), +inf replicates included.
#ifndef CB_REFERENCE_VLMBIAS_BIAS_H_
#define CB_REFERENCE_VLMBIAS_BIAS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::ref::vlmbias {

enum class Region { kWest, kEastAsia };
const char* RegionName(Region r);  // "west" | "east_asia"

struct Observation {
  std::string unit;       // pairing key
  std::string condition;  // e.g. the prompt language; "" when there is one
  Region region = Region::kWest;
  double value = 0;       // 1/0 correct, or a score
};

struct Interval95 {
  double low = 0, high = 0;
};

struct BiasEstimate {
  double west = 0, east = 0;        // perf per region
  int64_t n_west = 0, n_east = 0;   // observations
  Interval95 west_ci, east_ci;
  bool ratio_defined = false;       // east > 0
  double ratio = 0;                 // west / east when defined
  Interval95 ratio_ci;              // high may be +inf
  int replicates = 0;
  int zero_east_replicates = 0;     // replicates with perf_EastAsia == 0 (ratio +inf)
  int dropped_replicates = 0;       // replicates that drew none of the condition's West or East
                                    // observations (possible only with very few units); left out
};

// The estimate for `condition`'s observations; the units and their strata
// come from all of `obs`, so estimates of several conditions from the same
// call pattern share their resamples (same seed, same units).
// REQUIRES: the condition has observations in both regions; resamples >= 2.
// Throws std::invalid_argument otherwise.
BiasEstimate BiasRatio(const std::vector<Observation>& obs, const std::string& condition, int resamples,
                       uint64_t seed);

// ratio(a) - ratio(b) with its paired percentile interval (the same unit
// resamples for both), e.g. English minus Chinese prompts. NaN-free: a
// replicate where either ratio is undefined is dropped and counted in
// `dropped`. REQUIRES: both conditions have observations in both regions.
struct RatioDelta {
  double delta = 0;
  Interval95 ci;
  int replicates = 0, dropped = 0;
  bool defined = false;  // both point ratios defined
};
RatioDelta BiasRatioDelta(const std::vector<Observation>& obs, const std::string& a, const std::string& b,
                          int resamples, uint64_t seed);

}  // namespace cb::ref::vlmbias

#endif  // CB_REFERENCE_VLMBIAS_BIAS_H_
