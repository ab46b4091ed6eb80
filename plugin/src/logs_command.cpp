// logs: a rank's log by role and index. A gang restart deletes the gang's
// pods and makes them again under the same names, so the pods hold the
// current gang's logs only; of an earlier gang (or of pods the run's
// clean-up deleted) what the operator kept is shown: the failed ranks' last
// lines in ConfigMap <name>-logs, and each restart's cause.
#include <cpprest/json.h>

#include <iostream>
#include <optional>

#include "distbench/api/object_names.h"
#include "distbench/cli/arg_parser.h"
#include "distbench/plugin/cluster_objects.h"
#include "distbench/plugin/commands.h"
#include "distbench/plugin/exit_codes.h"
#include "distbench/plugin/object_fields.h"
#include "distbench/plugin/rank_pod.h"

namespace distbench::plugin {
namespace {

using web::json::value;

// The run's Restarting Events, oldest first: "gang 1: <message>".
void printRestarts(const Kubectl& kubectl, const std::string& name) {
  const auto events =
      listObjects(kubectl, "events",
                  {"--field-selector", "involvedObject.name=" + name + ",reason=Restarting"});
  if (events.empty()) {
    std::cout << "(no Restarting Event left: Events expire after about an hour)\n";
    return;
  }
  for (const value& e : events) {
    std::cout << textAt(e, "lastTimestamp") << "  " << textAt(e, "message") << "\n";
  }
}

// What the operator kept of gang `gang`'s rank `rank` (failed_rank_logs.h
// in the operator): printed, true; else which ranks it kept, false.
bool printKeptLog(const Kubectl& kubectl, const std::string& name, int64_t gang,
                  const RankPod& rank) {
  const std::string cm = api::rankLogsConfigMapName(name);
  std::optional<value> kept;
  try {
    kept = getObject(kubectl, "configmap", cm);
  } catch (const KubectlError& e) {
    // Not allowed to read ConfigMaps, say: what the Events say still helps.
    std::cout << "(the logs the operator kept could not be read: " << e.what() << ")\n";
    return false;
  }
  const value& data = kept ? fieldAt(*kept, "data") : value::null();
  const std::string key = api::rankLogKey(static_cast<int>(gang), rank.label);
  if (data.is_object() && data.has_field(key) && data.at(key).is_string()) {
    std::cout << "(" << rank.label << " of gang " << gang
              << ", which failed: its last lines, kept by the operator in ConfigMap " << cm << ")\n"
              << data.at(key).as_string();
    return true;
  }
  std::string others;
  if (data.is_object()) {
    for (const auto& [k, v] : data.as_object()) {
      const std::optional<api::RankLogKey> of = api::parseRankLogKey(k);
      if (of && of->gang == gang) others += (others.empty() ? "" : ", ") + of->rankLabel;
    }
  }
  std::cout << "(" << rank.label << "'s log of gang " << gang << " was not kept: the operator "
            << "keeps the last lines of the ranks that failed"
            << (others.empty() ? ", and kept none of gang " + std::to_string(gang)
                               : " (of gang " + std::to_string(gang) + ": " + others +
                                     "; try --rank with one of them)")
            << ")\n";
  return false;
}

}  // namespace

const char* const kLogsHelp =
    R"(usage: kubectl distbench logs NAME [--rank RANK] [--gang N] [-f] [--tail N]

A rank's log (default: the master's, which ends with the result table).
RANK: master, ps0.., trainer0.., or a global rank. The pods hold the
current gang's logs (status.restartCount); a gang restart deletes every
pod of the gang and makes them again, so for an earlier gang (--gang N),
or a pod the run's clean-up deleted, what the operator kept is shown: the
last 100 lines of each rank that failed (up to 4 a gang, in ConfigMap
NAME-logs), and each restart's cause.

examples:
  kubectl distbench logs small
  kubectl distbench logs small --rank trainer3 -f
  kubectl distbench logs small --rank trainer3 --gang 0
)";

int logsCommand(const Kubectl& kubectl, const std::vector<std::string>& args) {
  const cli::ParsedArgs parsed = cli::ArgParser({{"--rank", true},
                                                 {"--gang", true},
                                                 {"--tail", true},
                                                 {"-f", false},
                                                 {"--follow", false}})
                                     .parse(args);
  if (parsed.has("--help")) {
    std::cout << kLogsHelp;
    return kExitOk;
  }
  if (parsed.positionals().size() != 1) throw cli::UsageError("expected one NAME, the run");
  const std::string name = parsed.positionals()[0];
  const auto run = getObject(kubectl, kBenchmarks, name);
  if (!run) {
    std::cerr << "kubectl distbench logs: no DistBenchmark " << name << "\n";
    return kExitCluster;
  }
  const value& spec = run->at("spec");
  const int ps = static_cast<int>(integerAt(fieldAt(spec, "topology"), "parameterServers"));
  const int trainers = static_cast<int>(integerAt(fieldAt(spec, "topology"), "trainers"));
  const RankPod rank = rankPod(name, parsed.value("--rank").value_or("master"), ps, trainers);
  const std::string& pod = rank.pod;
  const int64_t gang = integerAt(fieldAt(*run, "status"), "restartCount");
  if (auto asked = parsed.value("--gang")) {
    const int64_t n = cli::parseNonNegativeIntFlag("--gang", *asked);
    if (n > gang)
      throw cli::UsageError("--gang " + *asked + ": " + name + " is at gang " +
                            std::to_string(gang));
    if (n < gang) {
      std::cout << "gang " << n << "'s pods were replaced (" << name << " is at gang " << gang
                << ")\n";
      if (printKeptLog(kubectl, name, n, rank)) return kExitOk;
      std::cout << "what the operator recorded of the restarts:\n";
      printRestarts(kubectl, name);
      return kExitOk;
    }
  }
  if (!getObject(kubectl, "pods", pod)) {
    std::cerr << "kubectl distbench logs: pod " << pod << " is gone (the run's cleanPodPolicy "
              << "deletes finished pods, or it was never made)\n";
    if (printKeptLog(kubectl, name, gang, rank)) return kExitOk;
    std::cout << "what the operator recorded of the restarts:\n";
    printRestarts(kubectl, name);
    return kExitCluster;
  }
  std::vector<std::string> logs = {"logs", pod, "-c", "worker"};
  if (parsed.has("-f") || parsed.has("--follow")) logs.push_back("--follow");
  if (auto tail = parsed.value("--tail")) logs.push_back("--tail=" + *tail);
  std::cout.flush();
  kubectl.exec(logs);
}

}  // namespace distbench::plugin
