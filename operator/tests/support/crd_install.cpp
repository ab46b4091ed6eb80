#include "crd_install.h"

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "distbench/testing/kube/kube_test_env.h"

#ifndef DISTBENCH_CRD_FILE
#error "DISTBENCH_CRD_FILE must name the CRD manifest"
#endif
#ifndef DISTBENCH_SCHEDULE_CRD_FILE
#error "DISTBENCH_SCHEDULE_CRD_FILE must name the DistBenchmarkSchedule CRD manifest"
#endif
#ifndef DISTBENCH_PREFLIGHT_POLICY_CRD_FILE
#error "DISTBENCH_PREFLIGHT_POLICY_CRD_FILE must name the DistBenchPreflightPolicy CRD manifest"
#endif
#ifndef DISTBENCH_KUEUE_CRD_DIR
#error "DISTBENCH_KUEUE_CRD_DIR must name the folder of the Kueue CRDs the tests load"
#endif

namespace distbench::kubetest {
namespace {

using web::http::methods;
using Clock = std::chrono::steady_clock;

// The manifest's documents as they are written (a re-emitted document could
// lose quoting: "1" would become 1), those that are CustomResourceDefinitions.
std::vector<std::string> crdDocuments(const std::string& text) {
  std::vector<std::string> documents(1);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("---", 0) == 0) {
      documents.emplace_back();
      continue;
    }
    documents.back() += line + "\n";
  }
  std::vector<std::string> crds;
  for (const auto& doc : documents) {
    YAML::Node node = YAML::Load(doc);
    if (node.IsMap() && node["kind"] && node["kind"].as<std::string>() == "CustomResourceDefinition")
      crds.push_back(doc);
  }
  return crds;
}

// Applies the CRD in `file` and waits until it is Established and its
// resource answers.
Crd install(const std::string& file) {
  std::vector<std::string> documents = crdDocuments(readFile(file));
  if (documents.size() != 1)
    throw std::runtime_error(file + ": expected one CustomResourceDefinition, found " +
                             std::to_string(documents.size()));
  YAML::Node doc = YAML::Load(documents[0]);
  Crd c;
  c.name = doc["metadata"]["name"].as<std::string>();
  c.group = doc["spec"]["group"].as<std::string>();
  c.plural = doc["spec"]["names"]["plural"].as<std::string>();
  c.namespaced = doc["spec"]["scope"].as<std::string>() == "Namespaced";
  for (const auto& v : doc["spec"]["versions"]) {
    if (v["storage"] && v["storage"].as<bool>()) {
      c.version = v["name"].as<std::string>();
      c.schema = v["schema"]["openAPIV3Schema"];
    }
  }
  if (c.version.empty()) throw std::runtime_error(file + ": the CRD has no storage version");

  // kube-apiserver takes YAML request bodies as it takes JSON.
  Response created = call(methods::POST, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                          documents[0], "application/yaml");
  if (created.status != 201 && created.status != 409)
    throw std::runtime_error("creating the CRD: HTTP " + std::to_string(created.status) + ": " +
                             created.body);

  auto deadline = Clock::now() + std::chrono::seconds(60);
  bool established = false;
  std::string last;
  while (!established && Clock::now() < deadline) {
    Response got =
        call(methods::GET, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + c.name);
    last = got.body;
    web::json::value json = got.json();
    // A new CRD answers "conditions": null until its controllers run.
    if (got.status == 200 && json.has_field("status") && json.at("status").has_field("conditions") &&
        json.at("status").at("conditions").is_array()) {
      for (const auto& condition : json.at("status").at("conditions").as_array()) {
        if (condition.at("type").as_string() == "Established" &&
            condition.at("status").as_string() == "True")
          established = true;
      }
    }
    if (!established) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (!established) throw std::runtime_error("the CRD was not Established within 60 s: " + last);

  // Established comes a moment before the resource's handler is in place.
  Response ns = call(methods::POST, "/api/v1/namespaces",
                     R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"crd-test"}})");
  if (ns.status != 201 && ns.status != 409)
    throw std::runtime_error("creating namespace crd-test: " + ns.body);
  deadline = Clock::now() + std::chrono::seconds(30);
  Response list;
  while ((list = call(methods::GET, c.path("crd-test"))).status != 200 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  if (list.status != 200)
    throw std::runtime_error("listing " + c.path("crd-test") + ": HTTP " +
                             std::to_string(list.status) + ": " + list.body);
  return c;
}

// Installs once per test binary; a failure is the same message every time.
const Crd& establishedOnce(const std::string& file, std::optional<Crd>& crd, std::string& failure) {
  if (crd) return *crd;
  if (!failure.empty()) throw std::runtime_error(failure);
  try {
    crd = install(file);
    return *crd;
  } catch (const std::exception& e) {
    failure = e.what();
    throw;
  }
}

}  // namespace

const Crd& establishedCrd() {
  static std::optional<Crd> crd;
  static std::string failure;
  return establishedOnce(DISTBENCH_CRD_FILE, crd, failure);
}

const Crd& establishedScheduleCrd() {
  static std::optional<Crd> crd;
  static std::string failure;
  return establishedOnce(DISTBENCH_SCHEDULE_CRD_FILE, crd, failure);
}

const Crd& establishedPreflightPolicyCrd() {
  static std::optional<Crd> crd;
  static std::string failure;
  return establishedOnce(DISTBENCH_PREFLIGHT_POLICY_CRD_FILE, crd, failure);
}

const Crd& establishedKueueWorkloadCrd() {
  static std::optional<Crd> crd;
  static std::string failure;
  return establishedOnce(std::string(DISTBENCH_KUEUE_CRD_DIR) + "/kueue.x-k8s.io_workloads.yaml",
                         crd, failure);
}

const Crd& establishedKueueAdmissionCheckCrd() {
  static std::optional<Crd> crd;
  static std::string failure;
  return establishedOnce(
      std::string(DISTBENCH_KUEUE_CRD_DIR) + "/kueue.x-k8s.io_admissionchecks.yaml", crd, failure);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace distbench::kubetest
