// Kubernetes' rules for names and keys, as apimachinery's validation has
// them: what a DistBenchmark's and a schedule's names, a ConfigMap's name and
// key, and a label's key and value must be. Private to the api library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

namespace distbench::api::detail {

// Kubernetes' limit for a DNS label, which is what pod hostnames and Service
// names are.
inline constexpr std::size_t kMaxLabelLength = 63;

inline bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
inline bool isAlnum(char c) { return isLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

inline bool isDns1123Label(const std::string& s) {
  if (s.empty() || s.size() > kMaxLabelLength) return false;
  if (!isLowerAlnum(s.front()) || !isLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return isLowerAlnum(c) || c == '-'; });
}

// Dot-separated labels, 253 characters at most: what a ConfigMap's name must be.
inline bool isDns1123Subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  if (!isLowerAlnum(s.front()) || !isLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isLowerAlnum(c) || c == '-' || c == '.'; });
}

// A label value, or the name part of a label or annotation key: at most 63
// of [A-Za-z0-9-_.], starting and ending alphanumeric.
inline bool isQualifiedNamePart(const std::string& s) {
  if (s.empty() || s.size() > kMaxLabelLength || !isAlnum(s.front()) || !isAlnum(s.back()))
    return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// "[prefix/]name", the prefix a DNS-1123 subdomain.
inline bool isQualifiedName(const std::string& key) {
  const std::size_t slash = key.find('/');
  if (slash == std::string::npos) return isQualifiedNamePart(key);
  return isDns1123Subdomain(key.substr(0, slash)) && isQualifiedNamePart(key.substr(slash + 1));
}

}  // namespace distbench::api::detail
