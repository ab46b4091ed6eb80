#include "distbench/kube/timed_reconcile.h"

#include <exception>

namespace distbench::kube {

std::function<Result(const std::string&)> timedReconcile(
    std::function<Result(const std::string&)> reconcile, OnReconciled onReconciled) {
  return [reconcile = std::move(reconcile),
          onReconciled = std::move(onReconciled)](const std::string& key) {
    const auto start = std::chrono::steady_clock::now();
    try {
      Result r = reconcile(key);
      if (onReconciled) onReconciled(key, std::chrono::steady_clock::now() - start, r, nullptr);
      return r;
    } catch (const std::exception& e) {
      const std::string error = e.what();
      if (onReconciled)
        onReconciled(key, std::chrono::steady_clock::now() - start, Result{}, &error);
      throw;
    }
  };
}

}  // namespace distbench::kube
