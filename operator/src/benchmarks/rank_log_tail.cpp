#include "distbench/operator/benchmarks/rank_log_tail.h"

#include <algorithm>

#include "distbench/kube/kube_client.h"

namespace distbench::op {

std::string logTailQuery(std::size_t lines, std::size_t bytes) {
  return "container=worker&tailLines=" + std::to_string(lines) +
         "&limitBytes=" + std::to_string(bytes);
}

std::string readLogTail(const std::function<std::string(const std::string&, std::size_t)>& read,
                        std::size_t lines, std::size_t bytes) {
  for (std::size_t n = std::max<std::size_t>(1, lines);; n = std::max<std::size_t>(1, n / 4)) {
    bool cut = false;
    std::string text;
    try {
      text = read(logTailQuery(n, bytes), bytes);
      cut = text.size() >= bytes;
    } catch (const kube::ResponseTooLarge&) {
      cut = true;
    }
    // The last line alone past the bound: its start, cut, is what there is.
    if (!cut || n == 1) return text;
  }
}

}  // namespace distbench::op
