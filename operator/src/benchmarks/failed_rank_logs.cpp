#include "distbench/operator/benchmarks/failed_rank_logs.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "distbench/api/object_names.h"
#include "distbench/api/progress_line.h"

namespace distbench::op {

using web::json::value;

std::string keptLogText(const std::string& tail) {
  std::vector<std::string_view> lines;
  const std::string_view text(tail);
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(start, end - start);
    std::string_view bare = line;
    while (!bare.empty() && (bare.back() == '\n' || bare.back() == '\r')) bare.remove_suffix(1);
    if (!api::parseProgressLine(bare)) lines.push_back(line);
    start = end;
  }
  std::size_t first = lines.size();
  std::size_t bytes = 0;
  while (first > 0 && lines.size() - first < kFailedLogKeptLines &&
         bytes + lines[first - 1].size() <= kFailedLogKeptBytes) {
    bytes += lines[first - 1].size();
    --first;
  }
  std::string kept;
  if (first == lines.size() && !lines.empty()) {
    // The last line alone is past the bound (a long traceback line): its
    // end, marked, rather than nothing.
    const std::string_view last = lines.back();
    return "…" + std::string(last.substr(last.size() - (kFailedLogKeptBytes - 4)));
  }
  kept.reserve(bytes);
  for (std::size_t i = first; i < lines.size(); ++i) kept += lines[i];
  return kept;
}

std::vector<const PodState*> ranksToKeepLogsOf(const GangState& gang) {
  std::vector<const PodState*> out;
  for (const PodState* p : gang.failedPods()) {
    if (out.size() == kFailedLogsPerGang) break;
    if (p->phase == "Failed" && p->exitCode >= 0) out.push_back(p);
  }
  return out;
}

value keptRankLogs(const value& existing, const std::map<std::string, std::string>& added) {
  value data = value::object();
  std::size_t used = 0;
  for (const auto& [key, log] : added) {
    data[key] = value::string(log);
    used += key.size() + log.size();
  }
  // Newest gang first; within a gang, by key.
  std::vector<std::pair<int, std::string>> kept;
  if (existing.is_object()) {
    for (const auto& [key, v] : existing.as_object()) {
      if (added.count(key) != 0) continue;
      const std::optional<api::RankLogKey> ours = api::parseRankLogKey(key);
      if (!ours || !v.is_string()) {
        data[key] = v;  // not ours: left as it is
        continue;
      }
      kept.push_back({ours->gang, key});
    }
  }
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto& [gang, key] : kept) {
    const std::size_t size = key.size() + existing.at(key).as_string().size();
    // An older gang never outlives a newer one.
    if (used + size > kMaxKeptLogBytes) break;
    used += size;
    data[key] = existing.at(key);
  }
  return data;
}

}  // namespace distbench::op
