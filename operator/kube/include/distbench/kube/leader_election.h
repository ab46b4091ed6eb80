// Leader election on a coordination.k8s.io/v1 Lease, as client-go's
// leaderelection package does it, so that of several operator replicas
// exactly one reconciles and another takes over when it dies.
//
// Expiry is judged on this process's own clock: a candidate records when it
// last saw the Lease change (any write bumps resourceVersion) and treats the
// holder as gone once leaseDuration has passed since then with no change.
// The renewTime in the Lease is written for people and other tools, never
// compared with local time, so clock skew between nodes does not matter.
//
// Safety: the leader stops acting (isLeader() false, then onStoppedLeading)
// when it has not renewed for renewDeadline, which is shorter than
// leaseDuration, so it has stopped before any candidate can consider the
// Lease expired.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "distbench/kube/clock.h"
#include "distbench/kube/kube_client.h"
#include "distbench/kube/kube_config.h"

namespace distbench::kube {

struct LeaderElectionOptions {
  std::string ns = "default";
  std::string leaseName;
  std::string identity;  // empty: defaultIdentity()
  // How long candidates wait after the Lease last changed before taking it.
  // Written to the Lease in whole seconds (rounded up).
  std::chrono::milliseconds leaseDuration{15000};
  // How long the leader keeps acting without a successful renew.
  std::chrono::milliseconds renewDeadline{10000};
  // Time between tries to acquire (jittered, as client-go) and to renew.
  std::chrono::milliseconds retryPeriod{2000};
};

class LeaderElector {
 public:
  using Callback = std::function<void()>;

  // Throws std::invalid_argument unless leaseDuration > renewDeadline >
  // 1.2 * retryPeriod (client-go's rule: the jittered retry must fit in the
  // renew deadline, which must end before the lease does) and leaseName is set.
  LeaderElector(const KubeConfig& config, LeaderElectionOptions options,
                Clock& clock = steadyClock());
  ~LeaderElector();  // stop(true)

  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts the election on its own thread. onStartedLeading runs when this
  // replica becomes leader, onStoppedLeading when it stops (lost the Lease,
  // could not renew within renewDeadline, or stop()); after losing, it goes
  // back to trying to acquire. Both run on the election thread and must
  // return promptly: renewing waits for them. Call at most once.
  void run(Callback onStartedLeading, Callback onStoppedLeading);

  // True only while leading and within renewDeadline of the last successful
  // renew, even if the election thread is stuck in a slow request.
  bool isLeader() const;

  // Ends the election and joins its thread. If leading, onStoppedLeading runs
  // first and then, with `release`, the Lease is handed back (empty holder,
  // 1 s duration) so a successor need not wait for it to expire. Returns
  // within about one API request timeout (renewDeadline / 2, at least 1 s).
  // Idempotent; stop(false) is what a killed process looks like to others.
  void stop(bool release = true);

  const std::string& identity() const { return options_.identity; }

  // "<hostname>_<pid>": unique among replicas, readable in the Lease.
  static std::string defaultIdentity();

 private:
  enum class Attempt { kAcquired, kHeldByOther, kFailed };

  void loop(const Callback& onStartedLeading, const Callback& onStoppedLeading);
  Attempt tryAcquireOrRenew();
  void release();
  // Waits until `deadline` or stop(); returns false when stopping.
  bool waitUntil(Clock::TimePoint deadline);
  Clock::Duration jitteredRetry();

  LeaderElectionOptions options_;
  Clock& clock_;
  std::unique_ptr<KubeClient> client_;
  std::string leasePath_;
  std::string collectionPath_;

  // Election-thread state: the Lease as last seen and when it last changed.
  web::json::value observed_;
  std::string observedVersion_;
  Clock::TimePoint observedTime_{};
  std::mt19937_64 rng_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool release_ = true;
  bool leading_ = false;
  Clock::TimePoint lastRenew_{};
  Clock::WatchId jumpWatch_ = 0;
  std::thread thread_;
  std::mutex stopMutex_;  // serializes stop() callers around join()
};

}  // namespace distbench::kube
