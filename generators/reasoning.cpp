// File: generators/reasoning.cpp
// Procedural reasoning tasks; see reasoning.h.
#include "generators/reasoning.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"
#include "harness/strings.h"

namespace cb::gen::reasoning {

namespace h = cb::harness;

namespace {

const std::array<const char*, 12> kNames = {"Ava", "Ben", "Chloe", "Dev", "Emma", "Finn",
                                            "Grace", "Hugo", "Iris", "Jack", "Kira", "Leo"};
const std::array<const char*, 6> kThings = {"apples", "marbles", "stickers", "pencils", "cookies", "stamps"};

int Int(h::Rng& r, int lo, int hi) { return static_cast<int>(r.UniformInt(lo, hi)); }

Item Arith(h::Rng& r, int index) {
  Item it;
  it.task = "arith";
  it.family = "number";
  const std::string name = kNames[Int(r, 0, 11)];
  const std::string thing = kThings[Int(r, 0, 5)];
  const int tmpl = Int(r, 0, 4);
  long long ans = 0;
  if (tmpl == 0) {
    const int a = Int(r, 5, 60), b = Int(r, 2, 40), c = Int(r, 1, a + b);
    std::string other = kNames[Int(r, 0, 11)];
    if (other == name) other = "a friend";
    ans = a + b - c;
    it.question = h::StrFormat("%s has %d %s. %s buys %d more and then gives %d to %s. How many %s does %s have now?",
                               name.c_str(), a, thing.c_str(), name.c_str(), b, c, other.c_str(), thing.c_str(),
                               name.c_str());
    it.rationale = h::StrFormat("%s starts with %d %s. After buying %d more: %d + %d = %d. After giving away %d: %d - %d = %lld.",
                                name.c_str(), a, thing.c_str(), b, a, b, a + b, c, a + b, c, ans);
  } else if (tmpl == 1) {
    const int a = Int(r, 2, 12), b = Int(r, 3, 15), c = Int(r, 0, a * b);
    ans = a * b - c;
    it.question = h::StrFormat("%s buys %d packs of %s with %d %s in each pack and uses %d of them. How many %s are left?",
                               name.c_str(), a, thing.c_str(), b, thing.c_str(), c, thing.c_str());
    it.rationale = h::StrFormat("%d packs of %d make %d * %d = %d %s. After using %d: %d - %d = %lld.", a, b, a, b,
                                a * b, thing.c_str(), c, a * b, c, ans);
  } else if (tmpl == 2) {
    const int a = Int(r, 8, 40), b = Int(r, 2, 9), c = Int(r, 2, 7);
    ans = static_cast<long long>(a) * b * c;
    it.question = h::StrFormat("%s earns $%d per hour and works %d hours a day for %d days. How many dollars does %s earn?",
                               name.c_str(), a, b, c, name.c_str());
    it.rationale = h::StrFormat("Per day: %d * %d = %d dollars. Over %d days: %d * %d = %lld.", a, b, a * b, c, a * b, c,
                                ans);
  } else if (tmpl == 3) {
    const int b = Int(r, 2, 9), k = Int(r, 2, 12), c = Int(r, 1, 9), a = b * k;
    ans = k + c;
    it.question = h::StrFormat("%d %s are shared equally among %d friends. Then each friend gets %d more. How many %s does each friend have?",
                               a, thing.c_str(), b, c, thing.c_str());
    it.rationale = h::StrFormat("Each friend first gets %d / %d = %d. Then %d + %d = %lld.", a, b, k, k, c, ans);
  } else {
    const int a = Int(r, 5, 40), b = 3 * a + Int(r, 1, 200);
    ans = b - 3 * a;
    it.question = h::StrFormat("%s reads %d pages on Monday and twice as many on Tuesday. The book has %d pages. How many pages are left?",
                               name.c_str(), a, b);
    it.rationale = h::StrFormat("Tuesday: 2 * %d = %d pages. Together: %d + %d = %d. Left: %d - %d = %lld.", a, 2 * a, a,
                                2 * a, 3 * a, b, 3 * a, ans);
  }
  it.answer = std::to_string(ans);
  it.rationale += " The answer is " + it.answer + ".";
  (void)index;
  return it;
}

// k distinct names, in a random order (tallest first).
std::vector<std::string> People(h::Rng& r, int k) {
  std::vector<std::string> all(kNames.begin(), kNames.end());
  r.Shuffle(std::span<std::string>(all));
  all.resize(k);
  return all;
}

Item Order(h::Rng& r) {
  Item it;
  it.task = "order";
  it.family = "letter";
  const auto ppl = People(r, 4);  // tallest first
  std::vector<int> pairs = {0, 1, 2};
  r.Shuffle(std::span<int>(pairs));
  std::string facts;
  for (int p : pairs) facts += ppl[p] + " is taller than " + ppl[p + 1] + ". ";
  const bool tallest = r.UniformInt(0, 1) == 0;
  it.options = ppl;
  r.Shuffle(std::span<std::string>(it.options));
  const std::string& target = tallest ? ppl[0] : ppl[3];
  const int letter = static_cast<int>(std::find(it.options.begin(), it.options.end(), target) - it.options.begin());
  it.question = facts + "Who is the " + (tallest ? "tallest" : "shortest") + "?";
  for (int i = 0; i < 4; ++i) it.question += std::string(" (") + static_cast<char>('A' + i) + ") " + it.options[i];
  it.answer = std::string(1, static_cast<char>('A' + letter));
  it.rationale = "Chaining the comparisons: " + ppl[0] + " > " + ppl[1] + " > " + ppl[2] + " > " + ppl[3] + ". The " +
                 (tallest ? "tallest" : "shortest") + " is " + target + ", option (" + it.answer + "). The answer is " +
                 it.answer + ".";
  return it;
}

Item Compare(h::Rng& r) {
  Item it;
  it.task = "compare";
  it.family = "yesno";
  const auto ppl = People(r, 4);  // tallest first
  std::vector<int> pairs = {0, 1, 2};
  r.Shuffle(std::span<int>(pairs));
  std::string facts;
  for (int p : pairs) facts += ppl[p] + " is taller than " + ppl[p + 1] + ". ";
  int x = Int(r, 0, 3), y = Int(r, 0, 2);
  if (y >= x) ++y;
  const bool yes = x < y;
  it.question = facts + "Is " + ppl[x] + " taller than " + ppl[y] + "?";
  it.answer = yes ? "yes" : "no";
  it.rationale = "From the comparisons the order is " + ppl[0] + " > " + ppl[1] + " > " + ppl[2] + " > " + ppl[3] +
                 ", so " + ppl[x] + " is " + (yes ? "taller" : "shorter") + " than " + ppl[y] + ". The answer is " +
                 it.answer + ".";
  return it;
}

uint64_t FamilyIndex(const std::string& task) {
  if (task == "arith") return 0;
  if (task == "order") return 1;
  if (task == "compare") return 2;
  throw std::invalid_argument("reasoning: unknown task '" + task + "'");
}

}  // namespace

Item MakeItem(uint64_t seed, const std::string& task, int index) {
  h::ThrowIfInterrupted();  // the check point of Generate: one per item
  const uint64_t fam = FamilyIndex(task);
  h::Rng r(seed, ((fam + 1) << 32) | static_cast<uint32_t>(index));
  Item it = fam == 0 ? Arith(r, index) : fam == 1 ? Order(r) : Compare(r);
  it.id = task + "-" + std::to_string(index);
  return it;
}

std::vector<Item> Generate(const Params& p) {
  for (int n : {p.arith, p.order, p.compare})
    if (n < 0 || n > 100000) throw std::invalid_argument("reasoning: counts must be in [0, 100000]");
  std::vector<Item> out;
  for (int i = 0; i < p.arith; ++i) out.push_back(MakeItem(p.seed, "arith", i));
  for (int i = 0; i < p.order; ++i) out.push_back(MakeItem(p.seed, "order", i));
  for (int i = 0; i < p.compare; ++i) out.push_back(MakeItem(p.seed, "compare", i));
  return out;
}

std::string ContentHash(const std::vector<Item>& items) {
  std::string bytes = std::string(kReasoningName) + "\n" + std::to_string(kReasoningVersion) + "\n";
  for (const auto& it : items) {
    bytes += it.id + "\x1f" + it.task + "\x1f" + it.family + "\x1f" + it.question + "\x1f" + it.answer + "\x1f" +
             it.rationale;
    for (const auto& o : it.options) bytes += "\x1f" + o;
    bytes += "\x1e";
  }
  return h::Xxh3_128(bytes).Hex();
}

}  // namespace cb::gen::reasoning
