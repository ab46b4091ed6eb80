// A reconcile function that reports how each call ended and how long it
// took (a controller's reconcile metrics and logs): what Controller runs on
// its workers.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "distbench/kube/reconcile_result.h"

namespace distbench::kube {

// `error` is null when the reconcile returned.
using OnReconciled = std::function<void(const std::string& key, std::chrono::duration<double> took,
                                        const Result& result, const std::string* error)>;

// `reconcile` wrapped: each call is reported to `onReconciled` (when set),
// and an exception still reaches the caller (the pool retries the key).
std::function<Result(const std::string&)> timedReconcile(
    std::function<Result(const std::string&)> reconcile, OnReconciled onReconciled);

}  // namespace distbench::kube
