// File: ledger/ceiling_update.cpp
// -----------------------------------------------------------------------------
// The replacement rule of stored ceilings (see ceiling_update.h).
#include "ledger/ceiling_update.h"

#include <algorithm>

namespace cb::ledger {

bool IsProvisional(const Ceiling& c) {
  return c.detail.is_object() && c.detail.value("provisional", false);
}

bool AnyProvisional(std::span<const Ceiling> ceilings) {
  return std::any_of(ceilings.begin(), ceilings.end(), IsProvisional);
}

std::vector<Ceiling> CeilingsToStore(std::span<const Ceiling> stored, std::span<const Ceiling> measured) {
  std::vector<Ceiling> out;
  for (const Ceiling& m : measured) {
    const auto old = std::find_if(stored.begin(), stored.end(), [&](const Ceiling& c) { return c.name == m.name; });
    bool replace = old == stored.end();
    if (!replace) {
      const bool quiet_now = !IsProvisional(m), quiet_before = !IsProvisional(*old);
      if (quiet_before) {
        replace = quiet_now && m.value > old->value;
      } else {
        replace = quiet_now || m.value > old->value;
      }
    }
    if (replace) out.push_back(m);
  }
  return out;
}

}  // namespace cb::ledger
