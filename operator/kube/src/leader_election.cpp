#include "distbench/kube/leader_election.h"

#include "distbench/kube/json_fields.h"
#include "distbench/kube/rfc3339.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <stdexcept>

namespace distbench::kube {
namespace {

using web::json::value;

// metav1.MicroTime.
std::string microTimeNow() { return formatRfc3339(std::chrono::system_clock::now(), 6); }

// The Lease stores whole seconds; rounding up keeps candidates from taking
// over earlier than the leader's renewDeadline arithmetic assumes.
int leaseSeconds(std::chrono::milliseconds d) {
  return static_cast<int>(std::max<std::int64_t>(1, (d.count() + 999) / 1000));
}

}  // namespace

std::string LeaderElector::defaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  return std::string(host) + "_" + std::to_string(getpid());
}

LeaderElector::LeaderElector(const KubeConfig& config, LeaderElectionOptions options, Clock& clock)
    : options_(std::move(options)), clock_(clock), rng_(std::random_device{}()) {
  if (options_.leaseName.empty()) throw std::invalid_argument("leader election: no lease name");
  if (options_.ns.empty()) throw std::invalid_argument("leader election: no namespace");
  if (options_.leaseDuration <= options_.renewDeadline)
    throw std::invalid_argument("leader election: leaseDuration must exceed renewDeadline");
  if (options_.retryPeriod.count() <= 0 ||
      options_.renewDeadline.count() * 10 <= options_.retryPeriod.count() * 12)
    throw std::invalid_argument("leader election: renewDeadline must exceed 1.2 * retryPeriod");
  if (options_.identity.empty()) options_.identity = defaultIdentity();
  // A request that hangs must not use up the whole renew deadline: half of it
  // leaves room for a retry. Whole seconds, as the client takes them.
  const auto timeout =
      std::chrono::seconds(std::max<std::int64_t>(1, options_.renewDeadline.count() / 2000));
  client_ = std::make_unique<KubeClient>(config, timeout);
  collectionPath_ = groupPath("coordination.k8s.io", "v1", options_.ns, "leases");
  leasePath_ = collectionPath_ + "/" + options_.leaseName;
  jumpWatch_ = clock_.watchJumps([this] {
    std::lock_guard<std::mutex> lock(mutex_);
    cv_.notify_all();
  });
}

LeaderElector::~LeaderElector() {
  stop(true);
  clock_.unwatchJumps(jumpWatch_);
}

void LeaderElector::run(Callback onStartedLeading, Callback onStoppedLeading) {
  std::lock_guard<std::mutex> stopLock(stopMutex_);
  if (thread_.joinable()) throw std::logic_error("LeaderElector::run called twice");
  thread_ = std::thread([this, started = std::move(onStartedLeading),
                         stopped = std::move(onStoppedLeading)] { loop(started, stopped); });
}

bool LeaderElector::isLeader() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return leading_ && clock_.now() < addSaturating(lastRenew_, options_.renewDeadline);
}

void LeaderElector::stop(bool release) {
  std::lock_guard<std::mutex> stopLock(stopMutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) release_ = release;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::waitUntil(Clock::TimePoint deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_ && clock_.now() < deadline) clock_.waitUntil(lock, cv_, deadline);
  return !stopping_;
}

// client-go's wait.JitterUntil(retryPeriod, 1.2): candidates that started
// together spread out instead of colliding on every try.
Clock::Duration LeaderElector::jitteredRetry() {
  const double factor = 1.0 + 1.2 * std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  return std::chrono::duration_cast<Clock::Duration>(options_.retryPeriod * factor);
}

void LeaderElector::loop(const Callback& onStartedLeading, const Callback& onStoppedLeading) {
  while (true) {
    // Acquire.
    Clock::TimePoint attemptStart = clock_.now();
    while (tryAcquireOrRenew() != Attempt::kAcquired) {
      if (!waitUntil(clock_.now() + jitteredRetry())) return;
      attemptStart = clock_.now();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) {
        // Won the Lease just as we were told to stop: hand it back below
        // without ever having acted as leader.
        leading_ = false;
      } else {
        leading_ = true;
        // The attempt's start, not its end: others may have seen the write
        // (and started their expiry countdown) as early as that.
        lastRenew_ = attemptStart;
      }
    }
    bool wasLeading = isLeader();
    if (wasLeading && onStartedLeading) onStartedLeading();

    // Renew every retryPeriod; stop leading when someone else holds the Lease
    // or no renew has succeeded for renewDeadline.
    Clock::TimePoint lastRenew = attemptStart;
    while (wasLeading && waitUntil(attemptStart + std::chrono::duration_cast<Clock::Duration>(
                                                      options_.retryPeriod))) {
      attemptStart = clock_.now();
      const Clock::TimePoint deadline = addSaturating(lastRenew, options_.renewDeadline);
      if (attemptStart >= deadline) break;
      const Attempt attempt = tryAcquireOrRenew();
      if (attempt == Attempt::kHeldByOther) break;
      if (attempt == Attempt::kAcquired) {
        lastRenew = attemptStart;
        std::lock_guard<std::mutex> lock(mutex_);
        lastRenew_ = attemptStart;
      } else if (clock_.now() >= deadline) {
        break;
      }
    }

    bool stopping, release;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      leading_ = false;
      stopping = stopping_;
      release = release_;
    }
    // Stop acting before handing the Lease on, so that two replicas never
    // act at once.
    if (wasLeading && onStoppedLeading) onStoppedLeading();
    if (stopping) {
      if (release) this->release();
      return;
    }
  }
}

LeaderElector::Attempt LeaderElector::tryAcquireOrRenew() {
  const Clock::TimePoint now = clock_.now();
  const std::string wallNow = microTimeNow();
  const int seconds = leaseSeconds(options_.leaseDuration);
  value lease;
  try {
    lease = client_->get(leasePath_);
  } catch (const KubeApiError& e) {
    if (!e.notFound()) return Attempt::kFailed;
    value body = value::object();
    body["apiVersion"] = value::string("coordination.k8s.io/v1");
    body["kind"] = value::string("Lease");
    body["metadata"] = value::object();
    body["metadata"]["name"] = value::string(options_.leaseName);
    body["metadata"]["namespace"] = value::string(options_.ns);
    value& spec = body["spec"] = value::object();
    spec["holderIdentity"] = value::string(options_.identity);
    spec["leaseDurationSeconds"] = value::number(seconds);
    spec["acquireTime"] = value::string(wallNow);
    spec["renewTime"] = value::string(wallNow);
    spec["leaseTransitions"] = value::number(0);
    try {
      const value created = client_->create(collectionPath_, body);
      observedVersion_ = stringField(created.at("metadata"), "resourceVersion");
      observedTime_ = now;
      return Attempt::kAcquired;
    } catch (const KubeApiError&) {
      return Attempt::kFailed;  // AlreadyExists: another candidate was first
    }
  }

  // Any write changes resourceVersion: a renew, a takeover, a release.
  const std::string version = stringField(lease.at("metadata"), "resourceVersion");
  if (version != observedVersion_) {
    observedVersion_ = version;
    observedTime_ = now;
  }
  if (!lease.has_field("spec") || !lease.at("spec").is_object()) lease["spec"] = value::object();
  value& spec = lease["spec"];
  const std::string holder = stringField(spec, "holderIdentity");
  const bool mine = holder == options_.identity;
  // The holder's own duration, as it wrote it, against our observed time.
  const Clock::TimePoint expiry =
      addSaturating(observedTime_, std::chrono::seconds(intField(spec, "leaseDurationSeconds")));
  if (!holder.empty() && !mine && now < expiry) return Attempt::kHeldByOther;

  if (!mine) {
    spec["acquireTime"] = value::string(wallNow);
    spec["leaseTransitions"] = value::number(intField(spec, "leaseTransitions") + 1);
  }
  spec["holderIdentity"] = value::string(options_.identity);
  spec["leaseDurationSeconds"] = value::number(seconds);
  spec["renewTime"] = value::string(wallNow);
  try {
    // PUT carries the resourceVersion we read: 409 if anyone wrote since.
    const value updated = client_->replace(leasePath_, lease);
    observedVersion_ = stringField(updated.at("metadata"), "resourceVersion");
    observedTime_ = now;
    return Attempt::kAcquired;
  } catch (const KubeApiError&) {
    return Attempt::kFailed;
  }
}

void LeaderElector::release() {
  try {
    value lease = client_->get(leasePath_);
    value& spec = lease["spec"];
    if (stringField(spec, "holderIdentity") != options_.identity) return;  // not ours anymore
    // client-go's release: empty holder and a 1 s duration, so candidates
    // take it on their next try rather than after leaseDuration.
    const std::string wallNow = microTimeNow();
    spec["holderIdentity"] = value::string("");
    spec["leaseDurationSeconds"] = value::number(1);
    spec["acquireTime"] = value::string(wallNow);
    spec["renewTime"] = value::string(wallNow);
    client_->replace(leasePath_, lease);
  } catch (const std::exception&) {
    // Best effort: the Lease then expires on its own after leaseDuration.
  }
}

}  // namespace distbench::kube
