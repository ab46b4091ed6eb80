// For tests that wait for something another process does: poll a condition
// until it holds or a deadline passes, instead of sleeping a guessed time.
// Fast when things go well, and the default deadline is generous for a
// loaded 2-core machine. The API server tests use it as kubetest::eventually.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace distbench::process {

// Whether `condition` held by `deadline`; it is checked once more at the end.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds deadline = std::chrono::seconds(30)) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

}  // namespace distbench::process
