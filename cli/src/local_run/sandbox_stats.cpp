#include "distbench/cli/local_run/sandbox_stats.h"

#include <cpprest/json.h>

namespace distbench::cli {
namespace {

using web::json::value;

long long integer(const value& object, const char* name) {
  if (!object.has_field(name) || !object.at(name).is_number()) return 0;
  return object.at(name).as_number().to_int64();
}

value optionalNumber(const std::optional<double>& number) {
  return number ? value::number(*number) : value::null();
}

value countersJson(const std::optional<QdiscCounters>& counters) {
  if (!counters) return value::null();
  value object = value::object();
  object["bytes"] = value::number(static_cast<int64_t>(counters->bytes));
  object["packets"] = value::number(static_cast<int64_t>(counters->packets));
  object["overlimits"] = value::number(static_cast<int64_t>(counters->overlimits));
  object["drops"] = value::number(static_cast<int64_t>(counters->drops));
  return object;
}

}  // namespace

std::optional<QdiscCounters> parseTbfCounters(const std::string& tcJson) {
  value root;
  try {
    root = value::parse(tcJson);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!root.is_array()) return std::nullopt;
  for (const value& qdisc : root.as_array()) {
    if (!qdisc.is_object() || !qdisc.has_field("kind")) continue;
    if (!qdisc.at("kind").is_string() || qdisc.at("kind").as_string() != "tbf") continue;
    QdiscCounters counters;
    counters.bytes = integer(qdisc, "bytes");
    counters.packets = integer(qdisc, "packets");
    counters.overlimits = integer(qdisc, "overlimits");
    counters.drops = integer(qdisc, "drops");
    return counters;
  }
  return std::nullopt;
}

std::string localBlockJson(const SandboxPlan& plan, const std::string& links,
                           const std::string& slow, const std::map<int, RankCounters>& counters) {
  value local = value::object();
  local["links"] = value::string(links);
  local["slow"] = value::string(slow);
  local["latencyEmulated"] = value::boolean(false);
  value ranks = value::array();
  std::size_t i = 0;
  for (const RankSandbox& rank : plan.ranks) {
    value entry = value::object();
    entry["rank"] = value::number(rank.rank);
    entry["name"] = value::string(rank.label);
    entry["address"] = rank.address.empty() ? value::null() : value::string(rank.address);
    entry["linkBitsPerSecond"] = optionalNumber(rank.linkBitsPerSecond);
    entry["cpuLimit"] = optionalNumber(rank.cpuLimit);
    const auto it = counters.find(rank.rank);
    const RankCounters none;
    const RankCounters& c = it == counters.end() ? none : it->second;
    entry["cpuSeconds"] = optionalNumber(c.cpuSeconds);
    entry["throttledSeconds"] = optionalNumber(rank.cpuLimit ? c.throttledSeconds : std::nullopt);
    entry["egress"] = countersJson(c.egress);
    entry["ingress"] = countersJson(c.ingress);
    ranks[i++] = entry;
  }
  local["ranks"] = ranks;
  return local.serialize();
}

}  // namespace distbench::cli
