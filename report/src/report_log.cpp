#include "distbench/report/report_log.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

namespace distbench::report {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// RFC 4648 base64, padded with '='.
std::string base64Encode(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                       static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    text += kAlphabet[n >> 18 & 63];
    text += kAlphabet[n >> 12 & 63];
    text += kAlphabet[n >> 6 & 63];
    text += kAlphabet[n & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) n |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    text += kAlphabet[n >> 18 & 63];
    text += kAlphabet[n >> 12 & 63];
    text += rest == 2 ? kAlphabet[n >> 6 & 63] : '=';
    text += '=';
  }
  return text;
}

// The value of a base64 digit, or -1.
int digitValue(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// The bytes of padded base64 `text`, or nullopt when it is not: a length
// that is not a multiple of 4, a character outside the alphabet, '=' other
// than as the last one or two characters, or padding over nonzero bits (so
// that each text decodes from exactly one encoding).
std::optional<std::string> base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int padding = !last ? 0 : text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
    uint32_t n = 0;
    for (int k = 0; k < 4; ++k) {
      const int v = k < 4 - padding ? digitValue(text[i + k]) : 0;
      if (v < 0) return std::nullopt;
      n = n << 6 | static_cast<uint32_t>(v);
    }
    if ((padding == 1 && (n & 0xff) != 0) || (padding == 2 && (n & 0xffff) != 0)) {
      return std::nullopt;
    }
    bytes += static_cast<char>(n >> 16 & 0xff);
    if (padding < 2) bytes += static_cast<char>(n >> 8 & 0xff);
    if (padding < 1) bytes += static_cast<char>(n & 0xff);
  }
  return bytes;
}

// FNV-1a, 64 bits: not for security, only to tell a damaged report from a
// whole one.
uint64_t fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string hex16(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

struct Header {
  uint64_t bytes = 0;
  uint64_t checksum = 0;
  uint64_t lines = 0;
};

[[noreturn]] void fail(const std::string& what) {
  throw ReportLogError("report in the log: " + what);
}

// The digits of `text` after `name`, as a number; nullopt unless `text` is
// exactly the name and 1-20 digits of `base` that fit 64 bits.
std::optional<uint64_t> numberField(std::string_view text, std::string_view name, int base) {
  if (text.substr(0, name.size()) != name) return std::nullopt;
  const std::string_view digits = text.substr(name.size());
  if (digits.empty() || digits.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (d < 0 || d >= base) return std::nullopt;
    if (value > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) {
      return std::nullopt;
    }
    value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return value;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> result;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t space = text.find(' ', start);
    const size_t end = space == std::string_view::npos ? text.size() : space;
    result.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

[[noreturn]] void badHeader(std::string_view payload, const std::string& why) {
  fail("bad begin line '" + std::string(kReportLogPrefix) + " " + std::string(payload) +
       "': " + why);
}

// `payload` is the begin line after the prefix and its space: "begin v1 bytes=..".
Header parseHeader(std::string_view payload) {
  const std::vector<std::string_view> w = words(payload);
  if (w.size() >= 2 && w[1] != "v1" && w[1].substr(0, 1) == "v") {
    badHeader(payload, "version " + std::string(w[1]) + ", this build reads v1");
  }
  if (w.size() != 5 || w[0] != "begin" || w[1] != "v1") {
    badHeader(payload, "expected 'begin v1 bytes=N fnv1a64=HEX lines=K'");
  }
  const std::optional<uint64_t> bytes = numberField(w[2], "bytes=", 10);
  if (!bytes) badHeader(payload, "expected bytes=N");
  const std::optional<uint64_t> checksum =
      w[3].size() == 8 + 16 ? numberField(w[3], "fnv1a64=", 16) : std::nullopt;
  if (!checksum) badHeader(payload, "expected fnv1a64= and 16 lowercase hex digits");
  const std::optional<uint64_t> lines = numberField(w[4], "lines=", 10);
  if (!lines) badHeader(payload, "expected lines=K");
  return {*bytes, *checksum, *lines};
}

// What follows "@@distbench-report " on a line of the frame, or nullopt for
// any other line.
std::optional<std::string_view> framePayload(std::string_view line) {
  const std::string_view prefix = kReportLogPrefix;
  if (line.size() <= prefix.size() || line.substr(0, prefix.size()) != prefix ||
      line[prefix.size()] != ' ') {
    return std::nullopt;
  }
  return line.substr(prefix.size() + 1);
}

bool isBegin(std::string_view payload) {
  return payload == "begin" || payload.substr(0, 6) == "begin ";
}

}  // namespace

std::string reportLogLines(const std::string& reportJson) {
  const std::string encoded = base64Encode(reportJson);
  const size_t lines = (encoded.size() + kReportLogLineChars - 1) / kReportLogLineChars;
  const std::string prefix = std::string(kReportLogPrefix) + " ";
  std::string text;
  text.reserve(encoded.size() + (lines + 2) * (prefix.size() + 1) + 80);
  text += prefix + "begin v1 bytes=" + std::to_string(reportJson.size()) +
          " fnv1a64=" + hex16(fnv1a64(reportJson)) + " lines=" + std::to_string(lines) + "\n";
  for (size_t at = 0; at < encoded.size(); at += kReportLogLineChars) {
    text += prefix;
    text.append(encoded, at, kReportLogLineChars);
    text += '\n';
  }
  return text + prefix + "end\n";
}

std::size_t reportLogFrameLines(std::size_t reportBytes) {
  const std::size_t encoded = (reportBytes + 2) / 3 * 4;
  return (encoded + kReportLogLineChars - 1) / kReportLogLineChars + 2;
}

std::size_t reportLogFrameBytes(std::size_t reportBytes) {
  const std::size_t prefix = std::string_view(kReportLogPrefix).size() + 1;
  const std::size_t encoded = (reportBytes + 2) / 3 * 4;
  // "begin v1 bytes=<20 digits> fnv1a64=<16> lines=<20 digits>" at most.
  const std::size_t begin = prefix + 6 + 3 + 6 + 20 + 9 + 16 + 7 + 20 + 1;
  const std::size_t end = prefix + 3 + 1;
  const std::size_t lines = reportLogFrameLines(reportBytes) - 2;
  return begin + encoded + lines * (prefix + 1) + end;
}

std::optional<std::string> reportFromLog(const std::string& log, std::size_t maxReportBytes) {
  // The frame's lines in order, "\r" dropped; everything else is ignored.
  std::vector<std::string_view> payloads;
  std::optional<size_t> lastBegin;
  const std::string_view all = log;
  for (size_t start = 0; start < all.size();) {
    size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (std::optional<std::string_view> payload = framePayload(line)) {
      if (isBegin(*payload)) lastBegin = payloads.size();
      payloads.push_back(*payload);
    }
    start = end + 1;
  }
  if (!lastBegin) return std::nullopt;

  const Header header = parseHeader(payloads[*lastBegin]);
  if (header.bytes > maxReportBytes) {
    throw ReportLogTooLarge(
        static_cast<std::size_t>(std::min<uint64_t>(header.bytes, SIZE_MAX)), maxReportBytes,
        "report in the log: the begin line announces " + std::to_string(header.bytes) +
            " bytes, more than the " + std::to_string(maxReportBytes) + " this reader takes");
  }
  // What the announced size encodes to: no more is gathered.
  const uint64_t expected = (header.bytes + 2) / 3 * 4;
  std::string encoded;
  uint64_t seen = 0;
  bool ended = false;
  for (size_t i = *lastBegin + 1; i < payloads.size() && !ended; ++i) {
    const std::string_view payload = payloads[i];
    if (payload == "end") {
      ended = true;
    } else if (seen == header.lines) {
      fail("more than the " + std::to_string(header.lines) + " lines the begin line announced");
    } else {
      ++seen;
      if (payload.size() > kReportLogLineChars) {
        fail("line " + std::to_string(seen) + " of " + std::to_string(header.lines) + " holds " +
             std::to_string(payload.size()) + " characters, more than " +
             std::to_string(kReportLogLineChars));
      }
      if (encoded.size() + payload.size() > expected) {
        fail("size mismatch: the lines hold more than the " + std::to_string(header.bytes) +
             " bytes the begin line says");
      }
      for (char c : payload) {
        if (digitValue(c) < 0 && c != '=') {
          fail("bad base64 in line " + std::to_string(seen) + " of " +
               std::to_string(header.lines) + " (a character '" + std::string(1, c) + "')");
        }
      }
      encoded.append(payload);
    }
  }
  if (!ended) {
    fail("truncated after " + std::to_string(seen) + " of " + std::to_string(header.lines) +
         " lines (no end line)");
  }
  if (seen != header.lines) {
    fail("the end line came after " + std::to_string(seen) + " of " + std::to_string(header.lines) +
         " lines");
  }
  std::optional<std::string> report = base64Decode(encoded);
  if (!report) fail("bad base64 (its length or padding)");
  if (report->size() != header.bytes) {
    fail("size mismatch: the begin line says " + std::to_string(header.bytes) + " bytes, the " +
         "lines hold " + std::to_string(report->size()));
  }
  const uint64_t checksum = fnv1a64(*report);
  if (checksum != header.checksum) {
    fail("checksum mismatch: the begin line says fnv1a64=" + hex16(header.checksum) +
         ", the lines hold " + hex16(checksum));
  }
  return report;
}

}  // namespace distbench::report
