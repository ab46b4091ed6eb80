#include "distbench/api/run_key.h"

#include <fstream>
#include <stdexcept>

namespace distbench::api {
namespace {

bool keyCharacter(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '-';
}

bool hexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

constexpr std::size_t kMinKeyChars = 32;

std::string replaceAll(const std::string& text, const std::string& what, const std::string& with) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(what, from)) != std::string::npos; from = at + what.size())
    out.append(text, from, at - from).append(with);
  return out.append(text, from, std::string::npos);
}

}  // namespace

std::string newRunKey() {
  std::ifstream random("/dev/urandom", std::ios::binary);
  unsigned char bytes[16];
  if (!random.read(reinterpret_cast<char*>(bytes), sizeof bytes)) {
    throw std::runtime_error("cannot read 16 bytes from /dev/urandom for the run key");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  for (unsigned char b : bytes) {
    key += kHex[b >> 4];
    key += kHex[b & 0xf];
  }
  return key;
}

bool isValidRunKey(const std::string& key) {
  if (key.size() < 32 || key.size() > 128) return false;
  for (char c : key) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string redactRunKeys(const std::string& text, const std::string& ownKey) {
  const std::string known =
      isValidRunKey(ownKey) ? replaceAll(text, ownKey, kRedactedRunKey) : text;
  static const std::string kPrefix = "run-";
  std::string out;
  std::size_t from = 0;
  for (std::size_t at; (at = known.find(kPrefix, from)) != std::string::npos;) {
    const std::size_t begin = at + kPrefix.size();
    std::size_t end = begin;
    while (end < known.size() && keyCharacter(known[end])) ++end;
    bool isKey = false;
    if (end - begin >= kMinKeyChars) {
      isKey = end < known.size() && known[end] == '/';
      std::size_t hex = 0;
      while (hex < kMinKeyChars && hexDigit(known[begin + hex])) ++hex;
      isKey = isKey || hex == kMinKeyChars;
    }
    out.append(known, from, begin - from);
    out.append(isKey ? std::string(kRedactedRunKey) : known.substr(begin, end - begin));
    from = end;
  }
  return out.append(known, from, std::string::npos);
}

}  // namespace distbench::api
