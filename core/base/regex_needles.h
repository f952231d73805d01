// RegexNeedles: literal text that every match of a regular expression holds, so that a cheap
// substring test can skip the regex on text that cannot match (the start-up log parser runs
// some forty patterns over every line of logs of many megabytes, and std::regex is slow).
//
// Read from the pattern, in std::regex's ECMAScript syntax: `all` is the longest run of literal
// characters outside any group and under no quantifier; `any_of` holds one such literal per
// alternative where the pattern, or else its first group, alternates (every match holds one of
// them). Conservative: what it cannot read gives no needle, and every text passes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvsim {

struct RegexNeedles {
  std::string all;
  std::vector<std::string> any_of;  // empty: no such test
  // False only where no match can be: `text` lacks `all`, or every literal of `any_of`.
  bool may_match(std::string_view text) const;
};

RegexNeedles regex_needles(std::string_view pattern);

}  // namespace kvsim
