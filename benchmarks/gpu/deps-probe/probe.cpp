// Each bundled library once, as distbench uses it: YAML parsing (api/),
// cpprest's JSON and HTTP client and listener headers (cli/, operator/),
// Prometheus' registry and exposer (worker/), OpenSSL, GoogleTest/GoogleMock.
// Built and run by scripts/gpu-check.sh against the unpacked bundle.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <cpprest/http_client.h>
#include <cpprest/http_listener.h>
#include <cpprest/json.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

TEST(DepsProbe, YamlCpp) {
  YAML::Node n = YAML::Load("spec: {topology: {trainers: 2}}");
  EXPECT_EQ(n["spec"]["topology"]["trainers"].as<int>(), 2);
}

TEST(DepsProbe, CpprestJson) {
  auto v = web::json::value::parse(std::string(R"({"ranks": [1, 2]})"));
  EXPECT_EQ(v.at("ranks").as_array().size(), 2u);
  EXPECT_THAT(v.serialize(), testing::HasSubstr("ranks"));
}

TEST(DepsProbe, CpprestHttpClientConstructs) {
  web::http::client::http_client client(std::string("http://127.0.0.1:9"));
  EXPECT_EQ(client.base_uri().port(), 9);
}

TEST(DepsProbe, PrometheusExposerServes) {
  auto registry = std::make_shared<prometheus::Registry>();
  auto& family = prometheus::BuildCounter().Name("probe_total").Help("probe").Register(*registry);
  family.Add({}).Increment();
  prometheus::Exposer exposer("127.0.0.1:0");
  exposer.RegisterCollectable(registry);
  ASSERT_FALSE(exposer.GetListeningPorts().empty());
  EXPECT_GT(exposer.GetListeningPorts().front(), 0);
}

TEST(DepsProbe, OpenSsl) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  const char text[] = "distbench";
  ASSERT_EQ(EVP_Digest(text, sizeof text - 1, digest, &size, EVP_sha256(), nullptr), 1);
  ASSERT_EQ(size, 32u);
  EXPECT_EQ(digest[0], 0x2c);  // sha256("distbench") = 2c65...
  EXPECT_EQ(digest[31], 0x19);
}
