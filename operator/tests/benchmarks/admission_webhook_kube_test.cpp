// A validating admission webhook that is down, against the real API server:
// with failurePolicy Fail every create it covers gets 500 "failed calling
// webhook". Those creates are retried, but count toward the CreateFailed
// deadline like a refusal: the run fails, it is not retried forever.
#include "distbench/testing/kube/kube_test_helpers.h"
#include "distbench/testing/kube/operator_process.h"
#include "support/controller_test_fixture.h"

namespace distbench::op {
namespace {

class AdmissionWebhookTest : public ControllerTest {
 protected:
  void TearDown() override {
    ControllerTest::TearDown();
    if (!webhook_.empty()) {
      try {
        client_->remove(webhookPath(webhook_));
      } catch (const std::exception& e) {
        ADD_FAILURE() << "could not delete webhook " << webhook_ << ": " << e.what();
      }
    }
  }

  static std::string webhookPath(const std::string& name) {
    return kube::groupPath("admissionregistration.k8s.io", "v1", "",
                           "validatingwebhookconfigurations", name);
  }

  // A webhook on pod creates of benchmark `benchmark`'s pods (and no other
  // test's), at a port where nothing listens.
  void deadWebhookOnPodsOf(const std::string& benchmark) {
    webhook_ = "dead-" + ns_;
    const value config = kubetest::deadWebhookConfiguration(webhook_, "", "v1", "pods", "CREATE",
                                                            kLabelBenchmark, benchmark);
    client_->create(kube::groupPath("admissionregistration.k8s.io", "v1", "",
                                    "validatingwebhookconfigurations"),
                    config);
  }

  std::string webhook_;
};

TEST_F(AdmissionWebhookTest, AWebhookThatIsDownIsACreateFailedConditionThenFailed) {
  deadWebhookOnPodsOf("hooked");
  startController(6s);
  createBenchmark("hooked");
  ASSERT_TRUE(benchmarkWhere("hooked", [](const value& b) { return conditionTrue(b, "CreateFailed"); }))
      << last_.serialize();
  const std::string message = condition(last_, "CreateFailed")->at("message").as_string();
  EXPECT_NE(message.find("failed calling webhook"), std::string::npos) << message;
  EXPECT_NE(message.find("500"), std::string::npos) << message;
  EXPECT_EQ(str(last_, {"status", "phase"}), "Pending");

  ASSERT_TRUE(benchmarkWhere("hooked", [](const value& b) { return str(b, {"status", "phase"}) == "Failed"; }))
      << last_.serialize();
  EXPECT_EQ(condition(last_, "Failed")->at("reason").as_string(), "CreateFailed");
  EXPECT_TRUE(podsAre("hooked", 0));
}

}  // namespace
}  // namespace distbench::op
