#include "status_conditions.h"

#include <ctime>
#include <iomanip>
#include <sstream>

namespace distbench::op {

using web::json::value;

std::string formatTime(SystemTime t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::optional<SystemTime> parseTime(const std::string& text) {
  std::tm utc{};
  std::istringstream in(text);
  in >> std::get_time(&utc, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return std::nullopt;
  std::string rest;
  in >> rest;
  if (rest.empty() || rest.back() != 'Z') return std::nullopt;
  double fraction = 0;
  if (rest.size() > 1) {
    if (rest[0] != '.') return std::nullopt;
    try {
      fraction = std::stod("0" + rest.substr(0, rest.size() - 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  const std::time_t secs = timegm(&utc);
  return std::chrono::system_clock::from_time_t(secs) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::chrono::duration<double>(fraction));
}

namespace {

value* findCondition(value& status, const std::string& type) {
  if (!status.has_field("conditions") || !status.at("conditions").is_array()) return nullptr;
  for (value& c : status["conditions"].as_array())
    if (c.has_field("type") && c.at("type").as_string() == type) return &c;
  return nullptr;
}

}  // namespace

bool setCondition(value& status, const std::string& type, bool isTrue, const std::string& reason,
                  const std::string& message, const std::string& now, int64_t generation) {
  const std::string wanted = isTrue ? "True" : "False";
  if (!status.has_field("conditions") || !status.at("conditions").is_array())
    status["conditions"] = value::array();
  value* c = findCondition(status, type);
  bool transitioned = false;
  if (c == nullptr) {
    value& conditions = status["conditions"];
    conditions[conditions.size()] = value::object();
    c = &conditions[conditions.size() - 1];
    (*c)["type"] = value::string(type);
    transitioned = isTrue;
    (*c)["lastTransitionTime"] = value::string(now);
  } else if (!c->has_field("status") || c->at("status").as_string() != wanted) {
    transitioned = true;
    (*c)["lastTransitionTime"] = value::string(now);
  }
  (*c)["status"] = value::string(wanted);
  (*c)["reason"] = value::string(reason);
  (*c)["message"] = value::string(message);
  (*c)["observedGeneration"] = value::number(generation);
  return transitioned;
}

bool conditionIsTrue(const value& status, const std::string& type) {
  if (!status.is_object() || !status.has_field("conditions") || !status.at("conditions").is_array())
    return false;
  for (const value& c : status.at("conditions").as_array())
    if (c.has_field("type") && c.at("type").as_string() == type)
      return c.has_field("status") && c.at("status").as_string() == "True";
  return false;
}

}  // namespace distbench::op
