// File: harness/interrupt.h
// -----------------------------------------------------------------------------
// SIGINT/SIGTERM for every command: one flag, one exception, one line.
//
//   harness/cli/cli.cpp (Main)   installs the handlers once, before any command
//                                runs; catches Interrupted and prints the one
//                                stderr line, exit 3 (DESIGN §8)
//   a check point                ThrowIfInterrupted() where a long loop can
//                                stop: per request (ModelClient::CompleteAll),
//                                per record (ClaimContext::Record), per item of
//                                a generator, per sequence or decoder of an eval
//   what was kept                NoteInterruptKept("run 3 sealed interrupted with
//                                12 results"): the ledger's RunGuard, the
//                                endpoint flow (answers in the http_cache) say
//                                what survives; Main prints the notes in its line
//
// A first signal only sets the flag: the command stops at its next check
// point, so what it recorded stays recorded and what it writes is written
// whole or not at all (harness/atomic_file.h). A second signal restores the
// default action and kills the process at once.
//
// The line Main prints, e.g.
//   claimbench: eval sgp interrupted by SIGINT after 3 of 12 requests; run 1
//   sealed interrupted with 0 results; 3 answers kept in the ledger's
//   http_cache (a rerun asks only the rest)
// or, when nothing was kept, "...; nothing recorded, nothing written".
#ifndef CB_HARNESS_INTERRUPT_H_
#define CB_HARNESS_INTERRUPT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cb::harness {

// Thrown at a check point once SIGINT/SIGTERM was received (never derived from
// std::exception, so no `catch (const std::exception&)` turns an interrupt
// into an ordinary error). `where` says how far the command got ("after 3 of
// 12 requests"); empty when the thrower does not know.
struct Interrupted {
  std::string where;
};

// Sets the process-wide flag on SIGINT/SIGTERM (a second signal kills).
// Idempotent; Main calls it for every command.
void InstallInterruptHandlers();
bool InterruptRequested();
int InterruptSignal();            // the signal received, 0 if none
std::string InterruptSignalName();  // "SIGINT", "SIGTERM", "signal N"; "" if none

// The check point: throws Interrupted{where} once a signal was received.
inline void ThrowIfInterrupted(std::string where = {}) {
  if (InterruptRequested()) throw Interrupted{std::move(where)};
}

// Records what an interrupted command kept (a sealed run, cached answers, a
// saved checkpoint), in the order said; Main joins them into its line.
void NoteInterruptKept(std::string what);
std::vector<std::string> InterruptKeptNotes();

// The one line (without "claimbench: " and the newline) for `command`
// ("eval sgp") interrupted at `e`: the signal, e.where, and the notes, or
// "nothing recorded, nothing written" when there are none.
std::string InterruptLine(std::string_view command, const Interrupted& e);

}  // namespace cb::harness

#endif  // CB_HARNESS_INTERRUPT_H_
