#include "distbench/kube/log.h"

#include "distbench/kube/rfc3339.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <mutex>

namespace distbench::kube::log {
namespace {

struct State {
  std::atomic<Level> level{Level::Info};
  std::atomic<Format> format{Format::Json};
  std::mutex mutex;  // guards sink and each write to it
  std::ostream* sink = nullptr;
};

// Never destroyed: a thread still logging while statics are torn down at
// exit must not find the mutex gone.
State& state() {
  static State* s = new State;
  return *s;
}

// RFC 3339 in UTC with milliseconds: sorts as text, and jq and Loki parse it.
std::string timestampNow() { return formatRfc3339(std::chrono::system_clock::now(), 3); }

void appendControlEscape(std::string& out, unsigned char c) {
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", c);
      out += hex;
    }
  }
}

// Length of the well-formed UTF-8 sequence at s[i], or 0 when the bytes
// there are not one (a truncated sequence, an overlong form, a surrogate).
std::size_t utf8Length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// A JSON string. Bytes that are not UTF-8 (a path or a peer's error text can
// carry anything) become U+FFFD, so that a line always parses.
void appendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      appendControlEscape(out, c);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (std::size_t n = utf8Length(s, i)) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  out += '"';
}

// Text for a person: control characters escaped so that a record stays on
// one line; anything else as it is.
void appendEscaped(std::string& out, std::string_view s, bool quoted) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20) {
      appendControlEscape(out, c);
    } else if (quoted && (c == '"' || c == '\\')) {
      out += '\\';
      out += ch;
    } else {
      out += ch;
    }
  }
}

// logfmt's rule: quote a value that is empty or would not read back as one
// token.
bool needsQuotes(std::string_view s) {
  if (s.empty()) return true;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f) return true;
  }
  return false;
}

const char* jsonName(Level level) {
  switch (level) {
    case Level::Debug:
      return "debug";
    case Level::Info:
      return "info";
    case Level::Warn:
      return "warn";
    case Level::Error:
      return "error";
  }
  return "info";
}

const char* textName(Level level) {
  switch (level) {
    case Level::Debug:
      return "DEBUG";
    case Level::Info:
      return "INFO";
    case Level::Warn:
      return "WARN";
    case Level::Error:
      return "ERROR";
  }
  return "INFO";
}

std::string jsonLine(Level level, std::string_view msg, Fields fields) {
  std::string line =
      "{\"ts\":\"" + timestampNow() + "\",\"level\":\"" + jsonName(level) + "\",\"msg\":";
  appendJsonString(line, msg);
  for (const auto& [key, value] : fields) {
    line += ',';
    appendJsonString(line, key);
    line += ':';
    appendJsonString(line, value);
  }
  line += "}\n";
  return line;
}

std::string textLine(Level level, std::string_view msg, Fields fields) {
  std::string line = timestampNow() + " " + textName(level) + " ";
  appendEscaped(line, msg, false);
  for (const auto& [key, value] : fields) {
    line += ' ';
    appendEscaped(line, key, false);
    line += '=';
    if (needsQuotes(value)) {
      line += '"';
      appendEscaped(line, value, true);
      line += '"';
    } else {
      line += value;
    }
  }
  line += '\n';
  return line;
}

}  // namespace

void setLevel(Level level) { state().level.store(level); }
Level level() { return state().level.load(); }
bool enabled(Level level) { return level >= state().level.load(); }
void setFormat(Format format) { state().format.store(format); }

void setSink(std::ostream* sink) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sink = sink;
}

std::optional<Level> parseLevel(std::string_view name) {
  if (name == "debug") return Level::Debug;
  if (name == "info") return Level::Info;
  if (name == "warn" || name == "warning") return Level::Warn;
  if (name == "error") return Level::Error;
  return std::nullopt;
}

std::optional<Format> parseFormat(std::string_view name) {
  if (name == "json") return Format::Json;
  if (name == "text") return Format::Text;
  return std::nullopt;
}

void write(Level level, std::string_view msg, Fields fields) noexcept {
  if (!enabled(level)) return;
  State& s = state();
  try {
    const std::string line = s.format.load() == Format::Json ? jsonLine(level, msg, fields)
                                                             : textLine(level, msg, fields);
    std::lock_guard<std::mutex> lock(s.mutex);
    std::ostream& out = s.sink ? *s.sink : std::cerr;
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    out.flush();
  } catch (...) {
  }
}

}  // namespace distbench::kube::log
