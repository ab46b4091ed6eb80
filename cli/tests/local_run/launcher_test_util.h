// Shared by the launcher tests: ranks that are /bin/sh scripts, and a
// RunOutput that records what the launcher says instead of printing it.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "distbench/api/renderer.h"
#include "distbench/cli/local_run/run_output.h"
#include "distbench/process/process_gone.h"

namespace distbench::cli::testing {

inline api::RankProcess shellRank(const std::string& label, int rank, api::Role role,
                                  const std::string& script) {
  api::RankProcess process;
  process.name = "test-" + label;
  process.rankLabel = label;
  process.role = role;
  process.rank = rank;
  process.roleIndex = 0;
  process.command = {"/bin/sh", "-c", script};
  return process;
}

class CapturedOutput : public RunOutput {
 public:
  void result(std::string_view line) override { results.emplace_back(line); }
  void log(std::string_view line) override { logs.emplace_back(line); }
  void progress(int rank, const std::string& label, const Progress& p) override {
    progressEvents.emplace_back(rank, label, p.done, p.total);
  }

  // Index of the first log line containing `text`, or -1.
  int find(const std::string& text) const {
    for (std::size_t i = 0; i < logs.size(); ++i) {
      if (logs[i].find(text) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  }
  bool contains(const std::string& text) const { return find(text) >= 0; }

  std::string all() const {
    std::string text;
    for (const auto& line : logs) text += line + "\n";
    return text;
  }

  // The pid in "distbench: started LABEL (rank N, pid PID)".
  pid_t startedPid(const std::string& label) const {
    int i = find("distbench: started " + label + " ");
    if (i < 0) return -1;
    const std::string& line = logs[i];
    std::size_t at = line.find("pid ");
    return at == std::string::npos ? -1 : std::stoi(line.substr(at + 4));
  }

  std::vector<std::string> results;
  std::vector<std::string> logs;
  std::vector<std::tuple<int, std::string, long, long>> progressEvents;
};

using process::processGone;

}  // namespace distbench::cli::testing
