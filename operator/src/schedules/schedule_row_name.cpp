#include "distbench/operator/schedules/schedule_row_name.h"

#include <cstdint>
#include <cstdio>

#include "distbench/kube/bounded_message.h"

namespace distbench::op {

std::string boundedRowName(const std::string& name) {
  if (name.size() <= kMaxRowNameBytes) return name;
  // FNV-1a: stable across builds and replicas, unlike std::hash.
  uint32_t hash = 2166136261u;
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 16777619u;
  }
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "~%08x", static_cast<unsigned>(hash));
  const std::string tail(suffix);
  return kube::truncateUtf8(name, kMaxRowNameBytes - tail.size()) + tail;
}

}  // namespace distbench::op
