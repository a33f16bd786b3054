// "Did you mean" (common/did_you_mean.hpp): edit distances against hand-counted ones, the closest name within a
// third of the name's length, ties in order, nothing for a name too far from every known one.
#include <doctest/doctest.h>

#include "common/did_you_mean.hpp"

using namespace lynx;

TEST_CASE("edit distance: insertions, deletions and substitutions, case-insensitive") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("", "ab") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);  // k->s, e->i, +g
  CHECK(edit_distance("max_bacth", "max_batch") == 2);  // a transposition is two substitutions
  CHECK(edit_distance("nic_gpbs", "nic_gbps") == 2);
  CHECK(edit_distance("H100-SXM", "h100-sxm") == 0);
  CHECK(edit_distance("llama-3.1-8bb", "llama-3.1-8b") == 1);
}

TEST_CASE("did you mean: the closest known name within a third of the name's length") {
  const std::vector<std::string> known = {"max_batch", "instances", "tp", "ep"};
  CHECK(did_you_mean("max_bacth", known) == "; did you mean \"max_batch\"?");
  CHECK(did_you_mean("instance", known) == "; did you mean \"instances\"?");
  CHECK(did_you_mean("colour_by", known).empty());  // 9 letters: 3 edits at most, every name further
  CHECK(did_you_mean("max_batch", known).empty());  // known: not a misspelling
  CHECK(did_you_mean("xp", known) == "; did you mean \"tp\" or \"ep\"?");  // short names: one edit, ties in order
  CHECK(did_you_mean("xy", known).empty());
}
