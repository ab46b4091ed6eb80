#include "distbench/cli/local_run/progress_display.h"


namespace distbench::cli {
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

std::string fraction(const Progress& p) {
  return std::to_string(p.epoch) + "/" + std::to_string(p.total);
}

}  // namespace

std::optional<Progress> parseProgressLine(std::string_view line) {
  if (line.substr(0, kProgressMarker.size()) != kProgressMarker) return std::nullopt;
  line.remove_prefix(kProgressMarker.size());
  // The marker must stand alone: "@@distbench-progressX" is someone's log.
  if (!line.empty() && line.front() != ' ' && line.front() != '\t') return std::nullopt;

  std::optional<long> epoch;
  std::optional<long> total;
  while (!line.empty()) {
    std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    std::size_t end = line.find_first_of(" \t");
    std::string_view field = line.substr(0, end);
    line.remove_prefix(end == std::string_view::npos ? line.size() : end);

    std::size_t equals = field.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    std::string_view key = field.substr(0, equals);
    std::string_view value = field.substr(equals + 1);
    if (key == "epoch") {
      epoch = parseCount(value);
      if (!epoch) return std::nullopt;
    } else if (key == "total") {
      total = parseCount(value);
      if (!total) return std::nullopt;
    }
  }
  if (!epoch || !total) return std::nullopt;
  return Progress{*epoch, *total};
}

void ProgressBoard::update(int rank, const std::string& label, const Progress& progress) {
  entries_[rank] = Entry{label, progress};
}

std::string ProgressBoard::statusLine(std::size_t width) const {
  if (entries_.empty()) return {};
  std::string full = "epochs";
  for (const auto& [rank, entry] : entries_) {
    full += "  " + entry.label + " " + fraction(entry.progress);
  }
  if (full.size() <= width) return full;

  // Eight trainers do not fit in 80 columns; the slowest rank is what a
  // user waits for, so name it.
  const Entry* slowest = nullptr;
  const Entry* fastest = nullptr;
  for (const auto& [rank, entry] : entries_) {
    auto ratio = [](const Progress& p) {
      return p.total > 0 ? static_cast<double>(p.epoch) / p.total : 0.0;
    };
    if (!slowest || ratio(entry.progress) < ratio(slowest->progress)) slowest = &entry;
    if (!fastest || ratio(entry.progress) > ratio(fastest->progress)) fastest = &entry;
  }
  std::string summary = "epochs  " + std::to_string(entries_.size()) + " ranks  slowest " +
                        slowest->label + " " + fraction(slowest->progress) + "  fastest " +
                        fastest->label + " " + fraction(fastest->progress);
  if (summary.size() > width) summary.resize(width);
  return summary;
}

}  // namespace distbench::cli
