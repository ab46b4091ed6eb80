// The DistBenchmark CRD (crds/distbench.io_distbenchmarks.yaml) on the real
// server: it is accepted and becomes Established, the smallest example is
// accepted, and an invalid document is refused with 422 by the CRD's OpenAPI
// schema with the field's path in the message. Built only when the CRD file
// exists at configure time (operator/tests/CMakeLists.txt).
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "crd_install.h"
#include "kube_test_env.h"

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

}  // namespace
}  // namespace distbench::kubetest
