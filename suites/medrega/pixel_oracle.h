// File: suites/medrega/pixel_oracle.h
// -----------------------------------------------------------------------------
// Answers a regions question (generators/regions.h) from the rendered pixels
// and the modality's legend alone, never the generator's structure list: each
// pixel is classed by the legend level it is within kNoise of, 4-connected
// components of each organ level and of the lesion level are the structures,
// their bounding boxes (exclusive max) go to the 0-999 grid, and a lesion
// belongs to the organ whose level is just left of it. The answers are written
// in the format the prompts ask for, so scoring them with the MedRegA scorers
// checks that every ground truth follows from the image (claim medrega.G2).
#ifndef CB_SUITES_MEDREGA_PIXEL_ORACLE_H_
#define CB_SUITES_MEDREGA_PIXEL_ORACLE_H_

#include <string>
#include <vector>

#include "generators/regions.h"

namespace cb::medrega {

struct SeenStructures {
  std::vector<cb::gen::regions::Structure> organs, lesions;
  int unclassified_pixels = 0;  // pixels no legend level explains (0 for our scans)
};

// The structures visible in the scan's pixels.
SeenStructures SeeStructures(const cb::gen::regions::Scan& scan);

// The answer to question `q` of `scan`, from SeeStructures.
std::string OracleAnswer(const cb::gen::regions::Scan& scan, const SeenStructures& seen,
                         const cb::gen::regions::Question& q);

}  // namespace cb::medrega

#endif  // CB_SUITES_MEDREGA_PIXEL_ORACLE_H_
