#include "yaml_scalar.h"

#include <cstddef>
#include <set>

namespace distbench::api::detail {
namespace {

// Hand-written rather than std::regex, whose backtracking recurses once per
// character and can exhaust the stack on a long annotation.
std::size_t skipDigits(const std::string& s, std::size_t i) {
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i;
}

std::size_t skipSign(const std::string& s, std::size_t i) {
  return i < s.size() && (s[i] == '-' || s[i] == '+') ? i + 1 : i;
}

// [-+]?[0-9]+
bool isInteger(const std::string& s) {
  const std::size_t digits = skipSign(s, 0);
  const std::size_t end = skipDigits(s, digits);
  return end > digits && end == s.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, or .inf/.nan spelled as YAML does.
bool isFloat(const std::string& s) {
  static const std::set<std::string> special = {".inf",  ".Inf",  ".INF",  "+.inf",
                                                "+.Inf", "+.INF", "-.inf", "-.Inf",
                                                "-.INF", ".nan",  ".NaN",  ".NAN"};
  if (special.count(s)) return true;
  std::size_t i = skipSign(s, 0);
  const std::size_t intStart = i;
  i = skipDigits(s, i);
  std::size_t mantissaDigits = i - intStart;
  if (i < s.size() && s[i] == '.') {
    const std::size_t fracStart = ++i;
    i = skipDigits(s, i);
    mantissaDigits += i - fracStart;
  }
  if (mantissaDigits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    const std::size_t expStart = skipSign(s, i + 1);
    i = skipDigits(s, expStart);
    if (i == expStart) return false;
  }
  return i == s.size();
}

}  // namespace

ScalarType resolvePlainScalar(const std::string& text) {
  static const std::set<std::string> bools = {"true", "True", "TRUE", "false", "False", "FALSE"};
  static const std::set<std::string> nulls = {"", "~", "null", "Null", "NULL"};
  if (isInteger(text)) return ScalarType::Integer;
  if (isFloat(text)) return ScalarType::Float;
  if (bools.count(text)) return ScalarType::Bool;
  if (nulls.count(text)) return ScalarType::Null;
  return ScalarType::String;
}

}  // namespace distbench::api::detail
