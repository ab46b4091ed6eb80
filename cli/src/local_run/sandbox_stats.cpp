#include "distbench/cli/local_run/sandbox_stats.h"

#include <cpprest/json.h>

#include <cstdio>

#include "distbench/report/alpha_beta.h"

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
    if (!qdisc.at("kind").is_string()) continue;
    const std::string kind = qdisc.at("kind").as_string();
    if (kind != "tbf" && kind != "htb") continue;
    QdiscCounters counters;
    counters.bytes = integer(qdisc, "bytes");
    counters.packets = integer(qdisc, "packets");
    counters.overlimits = integer(qdisc, "overlimits");
    counters.drops = integer(qdisc, "drops");
    return counters;
  }
  return std::nullopt;
}

std::optional<QdiscCounters> parseClassCounters(const std::string& tcText) {
  const std::size_t at = tcText.find("Sent ");
  if (at == std::string::npos) return std::nullopt;
  QdiscCounters counters;
  if (std::sscanf(tcText.c_str() + at, "Sent %lld bytes %lld pkt (dropped %lld, overlimits %lld",
                  &counters.bytes, &counters.packets, &counters.drops, &counters.overlimits) != 4) {
    return std::nullopt;
  }
  return counters;
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
    entry["burstBytes"] =
        rank.linkBitsPerSecond
            ? value::number(static_cast<double>(report::tbfBurstBytes(*rank.linkBitsPerSecond)))
            : value::null();
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
  value pairs = value::array();
  std::size_t p = 0;
  auto sent = [&counters](int from, int to) {
    const auto it = counters.find(from);
    if (it == counters.end()) return value::null();
    const auto peer = it->second.sentToPeer.find(to);
    return peer == it->second.sentToPeer.end() ? value::null() : countersJson(peer->second);
  };
  for (const auto& [ranksOf, bitsPerSecond] : plan.pairs) {
    value entry = value::object();
    const RankSandbox* a = plan.find(ranksOf.first);
    const RankSandbox* b = plan.find(ranksOf.second);
    entry["ranks"] = value::array({value::number(ranksOf.first), value::number(ranksOf.second)});
    entry["names"] =
        value::array({value::string(a ? a->label : ""), value::string(b ? b->label : "")});
    entry["bitsPerSecond"] = value::number(bitsPerSecond);
    entry["sent"] =
        value::array({sent(ranksOf.first, ranksOf.second), sent(ranksOf.second, ranksOf.first)});
    pairs[p++] = entry;
  }
  local["pairs"] = pairs;
  return local.serialize();
}

}  // namespace distbench::cli
