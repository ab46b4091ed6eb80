// The DistBenchmark CRD (crds/distbench.io_distbenchmarks.yaml) on the real
// server: it is accepted and becomes Established, the smallest example is
// accepted, and an invalid document is refused with 422 by the CRD's OpenAPI
// schema with the field's path in the message. Built only when the CRD file
// exists at configure time (operator/tests/CMakeLists.txt).
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "distbench/api/spec_yaml.h"
#include "distbench/testing/kube/kube_test_env.h"
#include "support/crd_install.h"

#ifndef DISTBENCH_EXAMPLES_DIR
#error "DISTBENCH_EXAMPLES_DIR must name the examples directory"
#endif

namespace distbench::kubetest {
namespace {

using web::http::methods;
using Clock = std::chrono::steady_clock;

class DistBenchmarkCrd : public KubeTest {};

std::string statusMessage(const Response& r) {
  web::json::value json = r.json();
  if (json.is_object() && json.has_field("message"))
    return utility::conversions::to_utf8string(json.at("message").as_string());
  return r.body;
}

TEST_F(DistBenchmarkCrd, BecomesEstablished) {
  const Crd& crd = establishedCrd();
  EXPECT_EQ(crd.group, "distbench.io");
  EXPECT_EQ(crd.plural, "distbenchmarks");
}

TEST_F(DistBenchmarkCrd, AcceptsSmallExample) {
  const Crd& crd = establishedCrd();
  std::string small = readFile(std::string(DISTBENCH_EXAMPLES_DIR) + "/small.yaml");
  Response created = call(methods::POST, crd.path("crd-test"), small, "application/yaml");
  ASSERT_EQ(created.status, 201) << created.body;
  Response got = call(methods::GET, crd.path("crd-test") + "/small");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.json().at("spec").at("topology").at("trainers").as_integer(), 3);
}

// examples/small.yaml with another name and spec.topology.trainers replaced.
std::string smallWithTrainers(const std::string& name, const YAML::Node& trainers) {
  YAML::Node doc = YAML::LoadFile(std::string(DISTBENCH_EXAMPLES_DIR) + "/small.yaml");
  doc["metadata"]["name"] = name;
  doc["spec"]["topology"]["trainers"] = trainers;
  return YAML::Dump(doc);
}

TEST_F(DistBenchmarkCrd, RejectsTrainersOfWrongType) {
  const Crd& crd = establishedCrd();
  YAML::Node text("x");
  Response r = call(methods::POST, crd.path("crd-test"), smallWithTrainers("bad-type", text), "application/yaml");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(statusMessage(r).find("spec.topology.trainers"), std::string::npos) << statusMessage(r);
  std::printf("  HTTP %d: %s\n", r.status, statusMessage(r).c_str());
}

TEST_F(DistBenchmarkCrd, RejectsTrainersBelowMinimum) {
  const Crd& crd = establishedCrd();
  YAML::Node trainers = crd.schema["properties"]["spec"]["properties"]["topology"]["properties"]["trainers"];
  // The API server, not the operator, must turn a trainer count below 1 away.
  ASSERT_TRUE(trainers && trainers["minimum"]) << "no minimum for spec.topology.trainers";
  long below = trainers["minimum"].as<long>() - 1;
  Response r = call(methods::POST, crd.path("crd-test"), smallWithTrainers("bad-range", YAML::Node(below)),
                    "application/yaml");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(statusMessage(r).find("spec.topology.trainers"), std::string::npos) << statusMessage(r);
  std::printf("  HTTP %d: %s\n", r.status, statusMessage(r).c_str());
}

// examples/small.yaml named `name`, with `spec` (a YAML mapping) merged into its spec.
std::string smallWith(const std::string& name, const std::string& spec) {
  YAML::Node doc = YAML::LoadFile(std::string(DISTBENCH_EXAMPLES_DIR) + "/small.yaml");
  doc["metadata"]["name"] = name;
  for (const auto& entry : YAML::Load(spec)) doc["spec"][entry.first.Scalar()] = entry.second;
  return YAML::Dump(doc);
}

// POSTs `body` and expects 422 naming every one of `fields`.
void expectRejected(const Crd& crd, const std::string& body, const std::vector<std::string>& fields) {
  Response r = call(methods::POST, crd.path("crd-test"), body, "application/yaml");
  EXPECT_EQ(r.status, 422) << r.body;
  for (const std::string& field : fields)
    EXPECT_NE(statusMessage(r).find(field), std::string::npos) << field << " not named: " << statusMessage(r);
  std::printf("  HTTP %d: %s\n", r.status, statusMessage(r).c_str());
}

TEST_F(DistBenchmarkCrd, RejectsBadRunPolicy) {
  const Crd& crd = establishedCrd();
  expectRejected(crd, smallWith("bad-run-policy", "runPolicy: {backoffLimit: -1, cleanPodPolicy: Sometimes}"),
                 {"spec.runPolicy.backoffLimit", "spec.runPolicy.cleanPodPolicy"});
  expectRejected(crd, smallWith("bad-deadline", "runPolicy: {activeDeadlineSeconds: 0}"),
                 {"spec.runPolicy.activeDeadlineSeconds"});
}

TEST_F(DistBenchmarkCrd, RejectsBadTolerationEffect) {
  const Crd& crd = establishedCrd();
  // A 1.20 server leaves the index out of the path (tolerations.effect); later ones put it in.
  expectRejected(crd,
                 smallWith("bad-effect", "podTemplates: {trainer: {tolerations: [{key: gpu, operator: Exists}, "
                                         "{key: gpu, effect: NoEvict}]}}"),
                 {"spec.podTemplates.trainer.tolerations", ".effect", "NoEvict"});
  expectRejected(crd, smallWith("bad-operator", "podTemplates: {master: {tolerations: [{operator: In}]}}"),
                 {"spec.podTemplates.master.tolerations", ".operator", "\"In\""});
}

TEST_F(DistBenchmarkCrd, RejectsBadQuantities) {
  const Crd& crd = establishedCrd();
  const std::string requests = "spec.podTemplates.parameterServer.resources.requests.";
  // A malformed string, a negative integer and a float (quantities are integers or strings).
  expectRejected(crd,
                 smallWith("bad-quantity",
                           "podTemplates: {parameterServer: {resources: {requests: {cpu: 2x, memory: -1, gpu: 0.5}}}}"),
                 {requests + "cpu", requests + "memory", requests + "gpu"});
  expectRejected(crd, smallWith("bad-selector", "podTemplates: {trainer: {nodeSelector: {zone: 1}}}"),
                 {"spec.podTemplates.trainer.nodeSelector.zone"});
}

TEST_F(DistBenchmarkCrd, RejectsGpusPerRankOutOfRange) {
  const Crd& crd = establishedCrd();
  expectRejected(crd, smallWith("gpus-0", "runtime: {device: cuda, gpusPerRank: 0}"),
                 {"spec.runtime.gpusPerRank"});
  expectRejected(crd, smallWith("gpus-17", "runtime: {device: cuda, gpusPerRank: 17}"),
                 {"spec.runtime.gpusPerRank"});
}

// The server fills in no gpusPerRank (a CPU resource would become invalid)
// and no image (empty is the operator's default for the device): a stored
// resource means what was written, on CPU and on CUDA.
TEST_F(DistBenchmarkCrd, StoresNoGpusPerRankOrImageThatWereNotWritten) {
  const Crd& crd = establishedCrd();
  int i = 0;
  for (const char* spec : {"runtime: {}", "runtime: {device: cuda, backend: gloo}"}) {
    SCOPED_TRACE(spec);
    const std::string name = "no-default-" + std::to_string(i++);
    const std::string body = smallWith(name, spec);
    Response r = call(methods::POST, crd.path("crd-test"), body, "application/yaml");
    ASSERT_EQ(r.status, 201) << statusMessage(r);
    const YAML::Node runtime = YAML::Load(r.body)["spec"]["runtime"];
    EXPECT_FALSE(runtime["gpusPerRank"]) << r.body;
    EXPECT_FALSE(runtime["image"]) << r.body;
    EXPECT_EQ(runtime["metricsPort"].as<int>(), 9400) << "the other defaults are filled in";
    api::DistBenchmark expected = api::parseDistBenchmark(body);
    expected.metadata.namespace_ = "crd-test";
    EXPECT_EQ(api::parseDistBenchmark(r.body), expected) << r.body;
  }
}

// A 1.20 server's validator takes "" for null and refuses it in a string
// field that is not nullable; the strings that may be empty are nullable, so
// what the library accepts (null meaning the default, "") the server keeps.
TEST_F(DistBenchmarkCrd, AcceptsEmptyStringsWhereTheLibraryDoes) {
  const Crd& crd = establishedCrd();
  int i = 0;
  for (const char* spec : {"podTemplates: {trainer: {nodeSelector: {node-role.kubernetes.io/gpu: \"\"}}}",
                           "podTemplates: {trainer: {image: \"\"}}",
                           "runtime: {image: \"\"}",
                           "runtime: {image: null}",
                           "podTemplates: {trainer: {tolerations: [{key: \"\", operator: Exists, value: \"\"}]}}",
                           "podTemplates: {trainer: {nodeSelector: {a: null}, image: null, "
                           "tolerations: [{key: null, value: null, operator: Exists}]}}"}) {
    SCOPED_TRACE(spec);
    const std::string name = "empty-" + std::to_string(i++);
    const std::string body = smallWith(name, spec);
    Response r = call(methods::POST, crd.path("crd-test"), body, "application/yaml");
    ASSERT_EQ(r.status, 201) << statusMessage(r);
    api::DistBenchmark expected = api::parseDistBenchmark(body);
    expected.metadata.namespace_ = "crd-test";
    EXPECT_EQ(api::parseDistBenchmark(r.body), expected) << r.body;
  }
}

// Every field of `sent` is in `stored` with the same text: nothing pruned.
void expectContains(const YAML::Node& stored, const YAML::Node& sent, const std::string& path) {
  if (!stored) {
    ADD_FAILURE() << path << " was pruned";
    return;
  }
  if (sent.IsMap()) {
    ASSERT_TRUE(stored.IsMap()) << path;
    for (const auto& entry : sent) {
      const std::string key = entry.first.Scalar();
      expectContains(stored[key], entry.second, path + "." + key);
    }
  } else if (sent.IsSequence()) {
    ASSERT_TRUE(stored.IsSequence()) << path;
    ASSERT_EQ(stored.size(), sent.size()) << path;
    for (std::size_t i = 0; i < sent.size(); ++i)
      expectContains(stored[i], sent[i], path + "[" + std::to_string(i) + "]");
  } else if (stored.Scalar() != sent.Scalar()) {
    // Numbers come back as Go writes them: 1e-04 as 0.0001.
    auto number = [](const std::string& text, double& out) {
      char* end = nullptr;
      out = std::strtod(text.c_str(), &end);
      return !text.empty() && *end == '\0';
    };
    double a = 0, b = 0;
    EXPECT_TRUE(number(stored.Scalar(), a) && number(sent.Scalar(), b) && a == b)
        << path << ": sent " << sent.Scalar() << ", stored " << stored.Scalar();
  }
}

// examples/gpu-ddp.yaml sets every runPolicy field and a template with each
// kind of setting: the server keeps all of it, and what it returns means the
// same to the library as the file.
TEST_F(DistBenchmarkCrd, PodTemplatesAndRunPolicyRoundTripUnpruned) {
  const Crd& crd = establishedCrd();
  const std::string path = std::string(DISTBENCH_EXAMPLES_DIR) + "/gpu-ddp.yaml";
  const YAML::Node sent = YAML::LoadFile(path);
  ASSERT_TRUE(sent["spec"]["runPolicy"] && sent["spec"]["podTemplates"]);
  Response created = call(methods::POST, crd.path("crd-test"), readFile(path), "application/yaml");
  ASSERT_EQ(created.status, 201) << created.body;
  Response got = call(methods::GET, crd.path("crd-test") + "/gpu-ddp");
  ASSERT_EQ(got.status, 200) << got.body;
  const YAML::Node stored = YAML::Load(got.body);
  expectContains(stored["spec"], sent["spec"], "spec");
  api::DistBenchmark expected = api::loadDistBenchmarkFile(path);
  expected.metadata.namespace_ = "crd-test";
  EXPECT_EQ(api::parseDistBenchmark(got.body), expected) << got.body;
  // Written back by the library (quantities as strings, every default), it is kept too.
  api::DistBenchmark everything = expected;
  everything.metadata.name = "gpu-ddp-written";
  everything.spec.runPolicy.cleanPodPolicy = api::CleanPodPolicy::None;
  everything.spec.podTemplates.parameterServer.image = "example/ps:1";
  everything.spec.podTemplates.trainer.tolerations.push_back({"spot", "Equal", "true", "NoExecute", 30});
  const std::string json = api::toJson(everything);
  created = call(methods::POST, crd.path("crd-test"), json);
  ASSERT_EQ(created.status, 201) << created.body;
  got = call(methods::GET, crd.path("crd-test") + "/gpu-ddp-written");
  ASSERT_EQ(got.status, 200) << got.body;
  expectContains(YAML::Load(got.body)["spec"], YAML::Load(json)["spec"], "spec");
  EXPECT_EQ(api::parseDistBenchmark(got.body), everything) << got.body;
}

}  // namespace
}  // namespace distbench::kubetest
