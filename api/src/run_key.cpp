#include "distbench/api/run_key.h"

#include <fstream>
#include <stdexcept>

namespace distbench::api {

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

}  // namespace distbench::api
