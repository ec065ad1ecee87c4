// File: ledger/ceiling_update.h
// -----------------------------------------------------------------------------
// Which measured ceilings replace the stored ones (DESIGN §5 "Ceilings",
// issue 30 item 7). A ceiling is the best the machine did, measured when it
// was doing nothing else: a measurement taken while other tasks ran
// (harness/machine_load.h) is stored with detail.provisional = true and only
// until a quiet one exists.
//
//   stored          measured         stored afterwards
//   none            any              measured
//   provisional     quiet            measured (even when lower: the stored
//                                    value was taken under contention)
//   provisional     provisional      the higher
//   quiet           quiet            the higher
//   quiet           provisional      stored (a busy machine cannot replace a
//                                    quiet measurement)
#ifndef CB_LEDGER_CEILING_UPDATE_H_
#define CB_LEDGER_CEILING_UPDATE_H_

#include <span>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

bool IsProvisional(const Ceiling& c);
bool AnyProvisional(std::span<const Ceiling> ceilings);

// The measured ceilings to write (PutCeilings replaces by name) under the
// table above, in the order measured.
std::vector<Ceiling> CeilingsToStore(std::span<const Ceiling> stored, std::span<const Ceiling> measured);

}  // namespace cb::ledger

#endif  // CB_LEDGER_CEILING_UPDATE_H_
