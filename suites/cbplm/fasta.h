// File: suites/cbplm/fasta.h
// -----------------------------------------------------------------------------
// A strict FASTA reader for `claimbench eval protparam`: ">id description"
// headers, sequence lines joined with all whitespace removed (CR included),
// blank lines skipped. Residues are kept as written (case and non-standard
// letters included) so the caller can report them. Errors are one line,
// "FILE:LINE: what": text before the first header, a header without an id, a
// record without residues, a byte outside printable ASCII, no records.
#ifndef CB_SUITES_CBPLM_FASTA_H_
#define CB_SUITES_CBPLM_FASTA_H_

#include <string>
#include <string_view>
#include <vector>

namespace cb::cbplm {

struct FastaRecord {
  std::string id;           // the header's first word
  std::string description;  // the rest of the header, trimmed
  std::string sequence;
  int line = 0;             // the header's line number (1-based)
};

std::vector<FastaRecord> ParseFasta(std::string_view text, const std::string& source);

}  // namespace cb::cbplm

#endif  // CB_SUITES_CBPLM_FASTA_H_
