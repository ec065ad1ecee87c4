// File: reference/lm/token_ids.h
// -----------------------------------------------------------------------------
// Token-id input for the language-model commands (`claimbench lm score --ids
// FILE.jsonl`): JSON Lines, one JSON object per line with an "ids" array of
// token ids, e.g.
//   {"ids": [1, 15043, 3186]}
//   {"ids": [1, 450], "source": "doc-7"}     (other keys are ignored)
// Blank lines are skipped. Errors name FILE:LINE (DESIGN §8).
#ifndef CB_REFERENCE_LM_TOKEN_IDS_H_
#define CB_REFERENCE_LM_TOKEN_IDS_H_

#include <string>
#include <vector>

namespace cb::ref::lm {

// ReadTokenIds()
//
// The "ids" of every non-blank line of the JSON Lines file at `path`, in file
// order. With vocab_size > 0 every id must also be < vocab_size.
// Throws std::runtime_error, one line starting "PATH:LINE: ", when a line is
// not one JSON object, has no "ids", or its "ids" is not an array, is empty,
// or holds an element that is not an integer (1.0 and true are not), is
// negative, exceeds 2^31 - 1 or is >= vocab_size; and "PATH: ..." when the
// file cannot be read or holds no sequence at all.
std::vector<std::vector<int>> ReadTokenIds(const std::string& path, int vocab_size = 0);

}  // namespace cb::ref::lm

#endif  // CB_REFERENCE_LM_TOKEN_IDS_H_
