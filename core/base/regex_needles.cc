#include "core/base/regex_needles.h"

#include <algorithm>
#include <cctype>

namespace kvsim {
namespace {

// Where the regex token at `i` ends: an escape is two characters, a class runs to its "]".
size_t token_end(std::string_view p, size_t i) {
  if (p[i] == '\\') return std::min(i + 2, p.size());
  if (p[i] != '[') return i + 1;
  for (++i; i < p.size() && p[i] != ']'; ++i) {
    if (p[i] == '\\') ++i;
  }
  return std::min(i + 1, p.size());
}

// The longest run of characters every match of `pattern` holds: literal characters outside
// any group (a group may be one of alternatives), none under a quantifier. Empty when the
// pattern alternates at its top level.
std::string required_literal(std::string_view pattern) {
  std::string best, run;
  const auto flush = [&best, &run] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  int depth = 0;
  for (size_t i = 0, next = 0; i < pattern.size(); i = next) {
    next = token_end(pattern, i);
    const char c = pattern[i];
    if (c == '\\' && next == i + 2 && depth == 0 &&
        !std::isalnum(static_cast<unsigned char>(pattern[i + 1]))) {
      run += pattern[i + 1];  // \( \. \+ ...: the character itself
    } else if (c == '|' && depth == 0) {
      return "";
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
      if (!run.empty()) run.pop_back();  // the quantified character is not required
      flush();
      if (c == '{') next = std::min(pattern.find('}', i), pattern.size() - 1) + 1;
    } else if (c == '\\' || c == '[' || c == '.' || c == '^' || c == '$' || depth > 0 || c == '(' ||
               c == ')') {
      flush();  // \s \d \b, a class, any character, an anchor, a group's inside or edge
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    } else {
      run += c;
    }
  }
  flush();
  return best;
}

// The alternatives `p` offers at its top level (one when it offers none).
std::vector<std::string_view> alternatives(std::string_view p) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < p.size(); i = token_end(p, i)) {
    depth += p[i] == '(' ? 1 : p[i] == ')' ? -1 : 0;
    if (p[i] == '|' && depth == 0) {
      out.push_back(p.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  out.push_back(p.substr(begin));
  return out;
}

// The needle literals of one alternative each, or none when one of them has no literal.
std::vector<std::string> any_of_literals(const std::vector<std::string_view>& alternatives) {
  std::vector<std::string> out;
  for (std::string_view alternative : alternatives) {
    std::string literal = required_literal(alternative);
    if (literal.empty()) return {};
    out.push_back(std::move(literal));
  }
  return out;
}

// The first group at the top level of `p`, without its parentheses ("" when none, when it is a
// lookahead or non-capturing group, or when a quantifier makes it optional).
std::string_view first_group(std::string_view p) {
  int depth = 0;
  size_t open = std::string_view::npos;
  for (size_t i = 0; i < p.size(); i = token_end(p, i)) {
    if (p[i] == '(' && depth++ == 0) open = i;
    if (p[i] == ')' && --depth == 0) {
      const std::string_view inside = p.substr(open + 1, i - open - 1);
      const char next = i + 1 < p.size() ? p[i + 1] : '\0';
      const bool optional = next == '?' || next == '*' || next == '{';
      return inside.starts_with("?") || optional ? std::string_view() : inside;
    }
  }
  return {};
}

}  // namespace

RegexNeedles regex_needles(std::string_view pattern) {
  RegexNeedles out;
  out.all = required_literal(pattern);
  const std::vector<std::string_view> top = alternatives(pattern);
  out.any_of = any_of_literals(top.size() > 1 ? top : alternatives(first_group(pattern)));
  if (out.any_of.size() == 1) out.any_of.clear();  // one alternative: its literal is in `all`
  return out;
}

bool RegexNeedles::may_match(std::string_view text) const {
  if (text.find(all) == std::string_view::npos) return false;
  if (any_of.empty()) return true;
  for (const std::string& literal : any_of) {
    if (text.find(literal) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace kvsim
