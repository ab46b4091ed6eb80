// The end of a rank's log, read through the API server (pods/<pod>/log).
// The kubelet takes the last `tailLines` of the log and then the *first*
// `limitBytes` of those, so a bound on bytes cuts off the newest lines, the
// very ones wanted. A read that reaches the bound is asked again for a
// quarter of the lines (down to one), so what comes back is the true end of
// the log: whole lines, the last the newest. Pure but for `read`.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace distbench::op {

// The pods/log query of the worker container for `lines` lines and at most
// `bytes` bytes.
std::string logTailQuery(std::size_t lines, std::size_t bytes);

// `read(query, maxBytes)` asks the API server (KubeClient::getText); its
// KubeApiError passes through, but a ResponseTooLarge (an answer that
// ignored limitBytes) counts as reaching the bound. At most `lines` lines
// and fewer than `bytes` bytes; when even the last line is longer, its
// first `bytes` bytes (no newline at their end), or "" where the answer
// ignored the bound.
std::string readLogTail(const std::function<std::string(const std::string&, std::size_t)>& read,
                        std::size_t lines, std::size_t bytes);

}  // namespace distbench::op
