// Leader election against the shared real kube-apiserver: of two replicas
// exactly one leads; a killed leader is replaced once its Lease expires, a
// leader that shuts down hands over at once, and a leader whose Lease is
// taken stops leading. Durations are short but the assertions leave slack
// for a loaded machine.
#include "distbench/kube/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "distbench/process/temp_dir.h"
#include "distbench/testing/kube/kube_test_env.h"
#include "distbench/testing/kube/kube_test_helpers.h"

namespace distbench::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;
using web::json::value;

constexpr char kNamespace[] = "leader-election-test";

// Polls `done` every 10 ms until it holds or `timeout` passes.
bool waitFor(const std::function<bool()>& done, milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  while (!done()) {
    if (steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

double secondsSince(steady_clock::time_point start) {
  return std::chrono::duration<double>(steady_clock::now() - start).count();
}

// One operator replica: an elector and what its callbacks saw.
struct Replica {
  std::unique_ptr<LeaderElector> elector;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};

  Replica(const KubeConfig& config, const std::string& lease, const std::string& identity) {
    LeaderElectionOptions options;
    options.ns = kNamespace;
    options.leaseName = lease;
    options.identity = identity;
    // Short enough for quick tests, and a 2 s renew deadline against 10 ms
    // requests leaves a loaded machine plenty of room.
    options.leaseDuration = seconds(3);
    options.renewDeadline = seconds(2);
    options.retryPeriod = milliseconds(250);
    elector = std::make_unique<LeaderElector>(config, options);
  }
  void run() {
    elector->run([this] { ++started; }, [this] { ++stopped; });
  }
  bool leading() const { return elector->isLeader(); }
};

class LeaderElectionTest : public kubetest::KubeTest {
 protected:
  void SetUp() override {
    kubetest::KubeTest::SetUp();
    if (!cluster_ || !config_.server.empty()) return;
    dir_ = std::make_unique<process::TempDir>("leader-election-test-");
    cluster_->writeKubeconfig(dir_->path() + "/kubeconfig");
    config_ = loadKubeconfig(dir_->path() + "/kubeconfig");
    KubeClient client(config_);
    kubetest::ensureNamespace(client, kNamespace);
  }

  static std::string leasePath(const std::string& name) {
    return groupPath("coordination.k8s.io", "v1", kNamespace, "leases", name);
  }
  static value lease(const std::string& name) { return KubeClient(config_).get(leasePath(name)); }
  static std::string holder(const std::string& name) {
    return lease(name).at("spec").at("holderIdentity").as_string();
  }
  static int transitions(const std::string& name) {
    const value spec = lease(name).at("spec");
    return spec.has_field("leaseTransitions") ? spec.at("leaseTransitions").as_integer() : 0;
  }

  // Starts both replicas and waits for one of them to lead.
  static void startBoth(Replica& a, Replica& b) {
    a.run();
    b.run();
    ASSERT_TRUE(waitFor([&] { return a.leading() || b.leading(); }, seconds(10)))
        << "nobody became leader";
  }

  static std::unique_ptr<process::TempDir> dir_;
  static KubeConfig config_;
};

std::unique_ptr<process::TempDir> LeaderElectionTest::dir_;
KubeConfig LeaderElectionTest::config_;

TEST_F(LeaderElectionTest, ExactlyOneOfTwoReplicasLeads) {
  Replica a(config_, "one-leads", "replica-a"), b(config_, "one-leads", "replica-b");
  ASSERT_NO_FATAL_FAILURE(startBoth(a, b));
  // Sample over more than a lease duration: many renews, never two leaders,
  // never a hand-over.
  int samples = 0, both = 0, none = 0;
  const auto until = steady_clock::now() + seconds(4);
  while (steady_clock::now() < until) {
    const bool la = a.leading(), lb = b.leading();
    both += la && lb;
    none += !la && !lb;
    ++samples;
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_GT(samples, 100);
  EXPECT_EQ(both, 0);
  EXPECT_EQ(none, 0);
  EXPECT_EQ(a.started + b.started, 1);
  EXPECT_EQ(a.stopped + b.stopped, 0);
  Replica& leader = a.leading() ? a : b;
  EXPECT_EQ(holder("one-leads"), leader.elector->identity());
  EXPECT_EQ(transitions("one-leads"), 0);
}

TEST_F(LeaderElectionTest, KilledLeaderIsReplacedAfterTheLeaseExpires) {
  Replica a(config_, "killed", "replica-a"), b(config_, "killed", "replica-b");
  ASSERT_NO_FATAL_FAILURE(startBoth(a, b));
  Replica& leader = a.leading() ? a : b;
  Replica& follower = a.leading() ? b : a;
  const int before = transitions("killed");
  const auto killed = steady_clock::now();
  leader.elector->stop(/*release=*/false);  // as if killed: the Lease stays
  EXPECT_FALSE(leader.leading());
  ASSERT_TRUE(waitFor([&] { return follower.leading(); }, seconds(10)))
      << "the follower never took over";
  const double tookOver = secondsSince(killed);
  // isLeader() turns true just before onStartedLeading runs.
  EXPECT_TRUE(waitFor([&] { return follower.started == 1; }, seconds(2)));
  // The 3 s lease counts from the follower's last sight of a renew, at most
  // one retry (250 ms, jittered up to 550 ms) before the kill.
  EXPECT_GE(tookOver, 2.0);
  EXPECT_LT(tookOver, 8.0);
  EXPECT_EQ(follower.started, 1);
  EXPECT_EQ(holder("killed"), follower.elector->identity());
  EXPECT_EQ(transitions("killed"), before + 1);
}

TEST_F(LeaderElectionTest, ReleasedLeaseIsTakenOverAtOnce) {
  Replica a(config_, "released", "replica-a"), b(config_, "released", "replica-b");
  ASSERT_NO_FATAL_FAILURE(startBoth(a, b));
  Replica& leader = a.leading() ? a : b;
  Replica& follower = a.leading() ? b : a;
  const int before = transitions("released");
  const auto stopped = steady_clock::now();
  leader.elector->stop(/*release=*/true);
  EXPECT_EQ(leader.stopped, 1);  // onStoppedLeading ran before stop() returned
  EXPECT_LT(secondsSince(stopped), 2.0);
  ASSERT_TRUE(waitFor([&] { return follower.leading(); }, seconds(10)))
      << "the follower never took over";
  // The next jittered retry (at most 550 ms), not the 3 s lease.
  EXPECT_LT(secondsSince(stopped), 1.5);
  EXPECT_EQ(holder("released"), follower.elector->identity());
  EXPECT_EQ(transitions("released"), before + 1);
}

TEST_F(LeaderElectionTest, LeaderWhoseLeaseIsTakenStopsLeading) {
  Replica a(config_, "taken", "replica-a");
  a.run();
  // isLeader() turns true just before onStartedLeading runs: wait for both.
  ASSERT_TRUE(waitFor([&] { return a.leading() && a.started == 1; }, seconds(10)))
      << "leading " << a.leading() << ", started " << a.started;
  // Someone else writes itself in as holder, for long enough that the test
  // sees the leader stay out.
  KubeClient client(config_);
  // The leader renews every retry period, so the intruder's write can lose a
  // race with a renew (409): read again and retry, as any writer must.
  for (int attempt = 0;; ++attempt) {
    value taken = lease("taken");
    taken["spec"]["holderIdentity"] = value::string("intruder");
    taken["spec"]["leaseDurationSeconds"] = value::number(30);
    try {
      client.replace(leasePath("taken"), taken);
      break;
    } catch (const KubeApiError& e) {
      if (!e.conflict() || attempt == 20) throw;
    }
  }
  const auto overwritten = steady_clock::now();
  ASSERT_TRUE(waitFor([&] { return a.stopped == 1; }, seconds(5)))
      << "the leader never noticed it lost the Lease";
  // Noticed on the next renew, not at the renew deadline.
  EXPECT_LT(secondsSince(overwritten), 1.5);
  EXPECT_FALSE(a.leading());
  // It goes back to being a candidate and respects the intruder's Lease.
  std::this_thread::sleep_for(seconds(1));
  EXPECT_FALSE(a.leading());
  EXPECT_EQ(a.started, 1);
  EXPECT_EQ(holder("taken"), "intruder");
  a.elector->stop(/*release=*/true);  // not the holder: must leave the Lease alone
  EXPECT_EQ(holder("taken"), "intruder");
  EXPECT_EQ(a.stopped, 1);
}

TEST(LeaderElectionOptionsTest, RejectsDeadlinesThatCannotBeSafe) {
  KubeConfig config;
  config.server = "https://127.0.0.1:1";
  LeaderElectionOptions options;
  options.leaseName = "x";
  EXPECT_NO_THROW(LeaderElector(config, options));
  options.renewDeadline = options.leaseDuration;
  EXPECT_THROW(LeaderElector(config, options), std::invalid_argument);
  options.renewDeadline = seconds(2);
  options.retryPeriod = seconds(2);
  EXPECT_THROW(LeaderElector(config, options), std::invalid_argument);
  options = LeaderElectionOptions();
  EXPECT_THROW(LeaderElector(config, options), std::invalid_argument);  // no lease name
  EXPECT_FALSE(LeaderElector::defaultIdentity().empty());
}

}  // namespace
}  // namespace distbench::kube
