#include "distbench/api/progress_line.h"

namespace distbench::api {
namespace {

std::optional<long> parseCount(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

bool isUnit(std::string_view text) {
  if (text.empty() || text.size() > 32) return false;
  for (char c : text)
    if (c < 'a' || c > 'z') return false;
  return true;
}

}  // namespace

std::string formatProgressLine(const Progress& p) {
  return std::string(kProgressMarker) + " done=" + std::to_string(p.done) +
         " total=" + std::to_string(p.total) + " unit=" + p.unit + "\n";
}

std::optional<Progress> parseProgressLine(std::string_view line) {
  if (line.substr(0, kProgressMarker.size()) != kProgressMarker) return std::nullopt;
  line.remove_prefix(kProgressMarker.size());
  // The marker must stand alone: "@@distbench-progressX" is someone's log.
  if (!line.empty() && line.front() != ' ' && line.front() != '\t') return std::nullopt;

  std::optional<long> done;
  std::optional<long> total;
  Progress progress;
  while (!line.empty()) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    const std::size_t end = line.find_first_of(" \t");
    const std::string_view field = line.substr(0, end);
    line.remove_prefix(end == std::string_view::npos ? line.size() : end);

    const std::size_t equals = field.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    const std::string_view key = field.substr(0, equals);
    const std::string_view value = field.substr(equals + 1);
    if (key == "done" || key == "epoch") {
      done = parseCount(value);
      if (!done) return std::nullopt;
    } else if (key == "total") {
      total = parseCount(value);
      if (!total) return std::nullopt;
    } else if (key == "unit") {
      if (!isUnit(value)) return std::nullopt;
      progress.unit = std::string(value);
    }
  }
  if (!done || !total || *done > *total) return std::nullopt;
  progress.done = *done;
  progress.total = *total;
  return progress;
}

std::optional<Progress> lastProgress(std::string_view log) {
  std::optional<Progress> last;
  std::size_t start = 0;
  for (std::size_t end = log.find('\n'); end != std::string_view::npos;
       start = end + 1, end = log.find('\n', start)) {
    std::string_view line = log.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (auto p = parseProgressLine(line)) last = std::move(p);
  }
  return last;
}

}  // namespace distbench::api
