// A reconcile function that reports how each call ended and how long it
// took (the operator's reconcile metrics and logs), for the worker pools of
// both controllers.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "distbench/kube/reconcile_result.h"

namespace distbench::op {

// `error` is null when the reconcile returned.
using OnReconciled = std::function<void(const std::string& key, std::chrono::duration<double> took,
                                        const kube::Result& result, const std::string* error)>;

// `reconcile` wrapped: each call is reported to `onReconciled` (when set),
// and an exception still reaches the caller (the pool retries the key).
std::function<kube::Result(const std::string&)> timedReconcile(
    std::function<kube::Result(const std::string&)> reconcile, OnReconciled onReconciled);

}  // namespace distbench::op
