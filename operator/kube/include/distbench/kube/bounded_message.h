// Every message the operator writes to a DistBenchmark's status (conditions,
// status.message) and to Events is bounded. Much of what goes into them is
// the user's: a line of the master's log, a report's row names, the API
// server's answer quoting the spec. Unbounded, one benchmark could make its
// own status larger than the API server takes, and the reconcile would
// retry forever, reading the master's log again each time.
#pragma once

#include <cstddef>
#include <string>

namespace distbench::kube {

// What a condition message, status.message or an Event's message may hold:
// `kubectl describe` prints each on one line, and events.k8s.io/v1 caps its
// note at this size.
inline constexpr std::size_t kMaxMessageBytes = 1024;

// `text` if it fits in `maxBytes`, else its first bytes up to a UTF-8
// character boundary (the API server gets valid text) and a marker saying
// how long it was: "... [cut, 5321 bytes in all]". The result never holds
// more than `maxBytes` bytes.
std::string boundedMessage(const std::string& text, std::size_t maxBytes = kMaxMessageBytes);

// The first at most `maxBytes` bytes of `text`, cut before a character that
// would not fit whole (never inside a UTF-8 sequence).
std::string truncateUtf8(const std::string& text, std::size_t maxBytes);

}  // namespace distbench::kube
