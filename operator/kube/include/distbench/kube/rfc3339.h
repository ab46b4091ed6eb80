// Timestamps as the Kubernetes API writes them: RFC 3339 in UTC.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace distbench::kube {

using SystemTime = std::chrono::system_clock::time_point;

// `fractionDigits` 0 is metav1.Time ("2026-11-22T03:04:05Z"), 6 is
// metav1.MicroTime; 3 (milliseconds) is what the logs use.
std::string formatRfc3339(SystemTime t, int fractionDigits = 0);
// Reads RFC 3339 in UTC ("Z"), with or without fractional seconds.
std::optional<SystemTime> parseRfc3339(const std::string& text);

}  // namespace distbench::kube
