#include "distbench/kube/bounded_message.h"

namespace distbench::kube {

std::string truncateUtf8(const std::string& text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text;
  std::size_t end = maxBytes;
  // text[end] is the first byte left out: step back while it continues a
  // character begun before it, so that the cut falls between characters.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string boundedMessage(const std::string& text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text;
  const std::string marker = "... [cut, " + std::to_string(text.size()) + " bytes in all]";
  if (marker.size() >= maxBytes) return truncateUtf8(text, maxBytes);
  return truncateUtf8(text, maxBytes - marker.size()) + marker;
}

}  // namespace distbench::kube
