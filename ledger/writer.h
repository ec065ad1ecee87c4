// File: ledger/writer.h
// -----------------------------------------------------------------------------
// Who writes a run and when: the host name, pid and process start time that a
// run records about its writer, the liveness test that tells a run still being
// written from one whose writer was killed, and the UTC timestamps and random
// UUIDs runs are stamped with.
#ifndef CB_LEDGER_WRITER_H_
#define CB_LEDGER_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>

namespace cb::ledger {

// gethostname(), or "unknown".
std::string HostName();

// The start time of process `pid` in clock ticks since boot (field 22 of
// /proc/<pid>/stat), or nullopt where /proc is unavailable. Together with the
// pid it names a process even after its pid is reused.
std::optional<int64_t> ProcessStartTicks(int64_t pid);

// True when process `pid` exists, is not a zombie, and (when `start_ticks` is
// given and /proc can tell) is the same process that had that start time.
// Only meaningful on the host the pid came from.
bool ProcessAlive(int64_t pid, std::optional<int64_t> start_ticks);

// "2025-11-30T01:28:00.123Z" (UTC, millisecond precision).
std::string NowUtcIso8601();

// A random (version 4) UUID from the kernel's random source.
std::string NewUuid();

}  // namespace cb::ledger

#endif  // CB_LEDGER_WRITER_H_
