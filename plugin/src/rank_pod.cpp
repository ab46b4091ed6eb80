#include "distbench/plugin/rank_pod.h"

#include <cctype>
#include <stdexcept>

#include "distbench/api/object_names.h"
#include "distbench/api/rank_layout.h"
#include "distbench/api/role.h"
#include "distbench/cli/arg_parser.h"

namespace distbench::plugin {
namespace {

// The digits after `prefix`, or -1.
int indexAfter(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size() ||
      text.size() > prefix.size() + 6) {
    return -1;
  }
  for (std::size_t i = prefix.size(); i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return -1;
  }
  return std::stoi(text.substr(prefix.size()));
}

}  // namespace

RankPod rankPod(const std::string& benchmark, const std::string& rank, int parameterServers,
                int trainers) {
  const std::string range =
      "master" +
      (parameterServers > 0 ? ", ps0..ps" + std::to_string(parameterServers - 1) : std::string()) +
      ", trainer0..trainer" + std::to_string(trainers - 1) + ", or a global rank 0.." +
      std::to_string(parameterServers + trainers);
  // A global rank is named by the layout's own label (api::rankLabel).
  std::string label = rank;
  if (const int global = indexAfter(rank, ""); global >= 0) {
    api::TopologySpec topology;
    topology.parameterServers = parameterServers;
    topology.trainers = trainers;
    try {
      label = api::rankLabel(topology, global);
    } catch (const std::out_of_range&) {
      // no such rank: said below
    }
  }
  if (label == "master") return {label, api::podName(benchmark, api::Role::Master, 0)};
  const int ps = indexAfter(label, "ps");
  const int trainer = indexAfter(label, "trainer");
  if (ps >= 0 && ps < parameterServers)
    return {"ps" + std::to_string(ps), api::podName(benchmark, api::Role::ParameterServer, ps)};
  if (trainer >= 0 && trainer < trainers)
    return {"trainer" + std::to_string(trainer),
            api::podName(benchmark, api::Role::Trainer, trainer)};
  throw cli::UsageError("--rank " + rank + ": " + benchmark + " has no such rank (" + range + ")");
}

}  // namespace distbench::plugin
