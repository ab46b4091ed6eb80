#include "distbench/cli/local_run/progress_display.h"

namespace distbench::cli {
namespace {

std::string fraction(const Progress& p) {
  return std::to_string(p.done) + "/" + std::to_string(p.total);
}

}  // namespace

void ProgressBoard::update(int rank, const std::string& label, const Progress& progress) {
  entries_[rank] = Entry{label, progress};
}

std::string ProgressBoard::statusLine(std::size_t width) const {
  if (entries_.empty()) return {};
  // The lowest rank's unit: every rank of a kind counts the same thing.
  const std::string& unit = entries_.begin()->second.progress.unit;
  std::string full = unit;
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
      return p.total > 0 ? static_cast<double>(p.done) / p.total : 0.0;
    };
    if (!slowest || ratio(entry.progress) < ratio(slowest->progress)) slowest = &entry;
    if (!fastest || ratio(entry.progress) > ratio(fastest->progress)) fastest = &entry;
  }
  std::string summary = unit + "  " + std::to_string(entries_.size()) + " ranks  slowest " +
                        slowest->label + " " + fraction(slowest->progress) + "  fastest " +
                        fastest->label + " " + fraction(fastest->progress);
  if (summary.size() > width) summary.resize(width);
  return summary;
}

}  // namespace distbench::cli
