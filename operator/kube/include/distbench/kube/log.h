// The operator's logs: one line per record on stderr, JSON by default so
// that a cluster's log pipeline (Loki, Elasticsearch, `kubectl logs | jq`)
// can filter by level and key without guessing at a format, or text for a
// person at a terminal:
//   {"ts":"2026-01-02T03:04:05.678Z","level":"info","msg":"reconciled","key":"ns/name"}
//   2026-01-02T03:04:05.678Z INFO reconciled key=ns/name error="quota \"x\" exceeded"
// Fields are strings: a number goes through std::to_string at the call site,
// which keeps each call a single line of code.
#pragma once

#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace distbench::kube::log {

enum class Level { Debug, Info, Warn, Error };
enum class Format { Json, Text };

using Fields = std::initializer_list<std::pair<std::string_view, std::string>>;

// Records below the level are dropped before they are formatted. Default: Info.
void setLevel(Level level);
Level level();
bool enabled(Level level);
// Default: Json.
void setFormat(Format format);
// Where lines go; nullptr restores stderr. The stream must outlive its use:
// tests set their own and restore stderr before it goes away.
void setSink(std::ostream* sink);

// "debug", "info", "warn" (or "warning"), "error"; nullopt otherwise.
std::optional<Level> parseLevel(std::string_view name);
// "json", "text"; nullopt otherwise.
std::optional<Format> parseFormat(std::string_view name);

// Formats the whole line first and writes it with one call under a lock, so
// lines from different threads never interleave. Never throws: a log line is
// not worth failing the caller (out of memory, it is dropped).
void write(Level level, std::string_view msg, Fields fields = {}) noexcept;
inline void debug(std::string_view msg, Fields fields = {}) noexcept {
  write(Level::Debug, msg, fields);
}
inline void info(std::string_view msg, Fields fields = {}) noexcept {
  write(Level::Info, msg, fields);
}
inline void warn(std::string_view msg, Fields fields = {}) noexcept {
  write(Level::Warn, msg, fields);
}
inline void error(std::string_view msg, Fields fields = {}) noexcept {
  write(Level::Error, msg, fields);
}

}  // namespace distbench::kube::log
