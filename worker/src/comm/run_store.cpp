#include "distbench/worker/comm/run_store.h"

#include <mutex>
#include <string>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "distbench/api/run_key.h"
#include "distbench/worker/comm/store_connection.h"

namespace distbench::worker {
namespace {

// Written once, early; read by whichever thread prints last.
std::mutex gKeyMutex;
std::string gRunKey;

}  // namespace

c10::intrusive_ptr<c10d::Store> connectRunStore(const WorkerIdentity& id, bool host,
                                                std::chrono::milliseconds timeout) {
  const std::string address = id.role == api::Role::Master ? "127.0.0.1" : id.masterAddr;
  c10::intrusive_ptr<c10d::Store> store = connectTcpStore(address, id.masterPort, host, timeout);
  if (id.runKey.empty()) return store;
  return c10::make_intrusive<c10d::PrefixStore>("run-" + id.runKey, std::move(store));
}

void rememberRunKey(const std::string& key) {
  std::lock_guard<std::mutex> lock(gKeyMutex);
  gRunKey = key;
}

std::string redactRunKey(const std::string& text) {
  std::string key;
  {
    std::lock_guard<std::mutex> lock(gKeyMutex);
    key = gRunKey;
  }
  return api::redactRunKeys(text, key);
}

}  // namespace distbench::worker
