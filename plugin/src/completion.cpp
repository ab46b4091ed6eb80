#include "distbench/plugin/completion.h"

#include <iostream>

#include "distbench/plugin/cluster_objects.h"

namespace distbench::plugin {
namespace {

// Cobra's directives, which kubectl's completion script understands.
constexpr int kNoFileComp = 4;
constexpr int kDefault = 0;

const std::vector<std::string> kCommands = {"run",  "get",     "list", "report",
                                            "diff", "predict", "logs"};

}  // namespace

int complete(const Kubectl& kubectl, const std::vector<std::string>& words) {
  // words: the command line after the plugin's name, the last one being
  // completed (possibly empty).
  const std::string current = words.empty() ? "" : words.back();
  if (words.size() <= 1) {
    for (const std::string& c : kCommands) {
      if (c.rfind(current, 0) == 0) std::cout << c << "\n";
    }
    std::cout << ":" << kNoFileComp << "\n";
    return 0;
  }
  const std::string& command = words[0];
  const std::string previous = words[words.size() - 2];
  if (command == "run" || previous == "-o" || previous == "--output" || previous == "-f") {
    std::cout << ":" << kDefault << "\n";  // files
    return 0;
  }
  if (previous == "--rank") {
    for (const char* r : {"master", "trainer0", "ps0"}) std::cout << r << "\n";
    std::cout << ":" << kNoFileComp << "\n";
    return 0;
  }
  if (command == "get" || command == "report" || command == "diff" || command == "predict" ||
      command == "logs" || previous == "--baseline") {
    try {
      for (const auto& b : listObjects(kubectl, kBenchmarks)) {
        const std::string name = b.at("metadata").at("name").as_string();
        if (name.rfind(current, 0) == 0) std::cout << name << "\n";
      }
      if (command == "get" || command == "report") {
        for (const auto& s : listObjects(kubectl, kSchedules)) {
          const std::string name = s.at("metadata").at("name").as_string();
          if (name.rfind(current, 0) == 0) std::cout << name << "\n";
        }
      }
    } catch (const std::exception&) {
      // No cluster, no CRD: nothing to offer.
    }
  }
  std::cout << ":" << kNoFileComp << "\n";
  return 0;
}

}  // namespace distbench::plugin
