// Keeps crds/distbench.io_distbenchmarks.yaml and the api library in agreement.
// The API server validates a DistBenchmark with the CRD's schema; `distbench run`
// and the operator with the library. A document must mean the same to both, so
// every check here takes its cases from the schema and asks the library about
// them: a field, default, enum value, bound or type that one side changes and
// the other does not fails a test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "distbench/api/spec_limits.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using ::testing::AssertionFailure;
using ::testing::AssertionResult;
using ::testing::AssertionSuccess;

constexpr const char* kStringTag = "tag:yaml.org,2002:str";

// --- The CRD -------------------------------------------------------------------

const YAML::Node& crd() {
  static const YAML::Node node = YAML::LoadFile(DISTBENCH_CRD);
  return node;
}

const YAML::Node servedVersion() { return crd()["spec"]["versions"][0]; }
const YAML::Node rootSchema() { return servedVersion()["schema"]["openAPIV3Schema"]; }

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  for (std::size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
    keys.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  keys.push_back(path.substr(start));
  return keys;
}

// The schema of the property at dotted `path` ("spec.topology.trainers"); undefined if absent.
// Recursive rather than a loop: assigning to a yaml-cpp Node rebinds the node it referred to.
YAML::Node schemaAt(const YAML::Node& schema, const std::vector<std::string>& keys,
                    std::size_t i = 0) {
  if (i == keys.size() || !schema) return schema;
  const YAML::Node properties = schema["properties"];
  if (!properties) return YAML::Node(YAML::NodeType::Undefined);
  return schemaAt(properties[keys[i]], keys, i + 1);
}
const YAML::Node schemaAt(const std::string& path) {
  return schemaAt(rootSchema(), splitPath(path));
}

// Leaf schemas by dotted path; an object with properties is not a leaf, an array is.
void schemaLeaves(const YAML::Node& schema, const std::string& path,
                  std::map<std::string, YAML::Node>& out) {
  const YAML::Node properties = schema["properties"];
  if (!properties) {
    out[path] = schema;
    return;
  }
  for (const auto& property : properties) {
    schemaLeaves(property.second, path + "." + property.first.Scalar(), out);
  }
}

const std::map<std::string, YAML::Node>& specSchemaLeaves() {
  static const std::map<std::string, YAML::Node> leaves = [] {
    std::map<std::string, YAML::Node> out;
    schemaLeaves(schemaAt("spec"), "spec", out);
    // spec.local's maps are keyed by rank names, which the generic checks'
    // sample keys are not: LocalBlockIsTheLibrarysBlock checks it.
    for (auto it = out.begin(); it != out.end();) {
      it = it->first.rfind("spec.local.", 0) == 0 ? out.erase(it) : std::next(it);
    }
    return out;
  }();
  return leaves;
}

// --- The library ---------------------------------------------------------------

const std::vector<BenchmarkKind> kKinds = {BenchmarkKind::HybridDDPRPC, BenchmarkKind::DDP,
                                           BenchmarkKind::Collectives, BenchmarkKind::Fabric};

// A resource of `kind` with every other field left to the library, as toYaml
// writes it: all defaults, for the kind's own section only. (The presets
// "default" and "ddp" are these; "collectives" changes maxBytes.)
const YAML::Node& defaultDocument(BenchmarkKind kind) {
  static const std::map<BenchmarkKind, YAML::Node> documents = [] {
    std::map<BenchmarkKind, YAML::Node> out;
    for (BenchmarkKind k : kKinds) {
      const std::string spec = std::string("spec:\n  benchmark:\n    kind: ") + toString(k) + "\n";
      out[k] = YAML::Load(toYaml(parseDistBenchmark(test::document(spec))));
    }
    return out;
  }();
  return documents.at(kind);
}

// The section only `kind` writes: "hybridDDPRPC", "ddp", "collectives" or "fabric".
std::string sectionOf(BenchmarkKind kind) {
  for (const auto& entry : defaultDocument(kind)["spec"]["benchmark"]) {
    if (entry.second.IsMap()) return entry.first.Scalar();
  }
  ADD_FAILURE() << "no section for kind " << toString(kind);
  return "";
}

void setAt(YAML::Node node, const std::vector<std::string>& keys, const YAML::Node& value,
           std::size_t i = 0);

// What the library writes at each leaf under spec, per kind that writes it.
using LibraryLeaves = std::map<std::string, std::map<BenchmarkKind, YAML::Node>>;

void libraryLeaves(const YAML::Node& node, const std::string& path, BenchmarkKind kind,
                   LibraryLeaves& out) {
  if (!node.IsMap() || node.size() == 0) {
    out[path][kind] = node;
    return;
  }
  for (const auto& entry : node) {
    libraryLeaves(entry.second, path + "." + entry.first.Scalar(), kind, out);
  }
}

// The optional fields the library writes only when set, and values for them.
const std::map<std::string, std::string> kOptionalFields = [] {
  std::map<std::string, std::string> fields = {
      {"spec.runtime.gpusPerRank", "2"},
      {"spec.runPolicy.activeDeadlineSeconds", "600"},
      {"spec.runPolicy.ttlSecondsAfterFinished", "3600"},
      // One per trainer (8 by default).
      {"spec.benchmark.fabric.nodes", "[n0, n1, n2, n3, n4, n5, n6, n7]"}};
  // The security overrides: each unset in a default document.
  for (const std::string role : {"master", "parameterServer", "trainer"}) {
    const std::string pod = "spec.podTemplates." + role + ".podSecurityContext.";
    const std::string container = "spec.podTemplates." + role + ".securityContext.";
    fields[pod + "runAsNonRoot"] = "false";
    fields[pod + "runAsUser"] = "1000";
    fields[pod + "runAsGroup"] = "1000";
    fields[pod + "fsGroup"] = "1000";
    fields[pod + "seccompProfile.type"] = "Localhost";
    fields[pod + "seccompProfile.localhostProfile"] = "profiles/worker.json";
    fields[container + "allowPrivilegeEscalation"] = "true";
    fields[container + "readOnlyRootFilesystem"] = "false";
    fields[container + "capabilities.add"] = "[IPC_LOCK]";
    fields[container + "capabilities.drop"] = "[ALL]";
  }
  return fields;
}();

std::string dump(const YAML::Node& node);
YAML::Node valueAt(const YAML::Node& doc, const std::string& path);

// Optional objects whose sources exclude one another (spec.baseline names a
// benchmark or a ConfigMap key): each is a document of its own, read and
// written back by the library, so that the fields they leave unset
// (thresholdPercent) come out as the library defaults them.
const std::vector<std::map<std::string, std::string>> kExclusiveOptionals = {
    {{"spec.baseline.benchmark", "nightly"}},
    {{"spec.baseline.configMap.name", "baselines"}, {"spec.baseline.configMap.key", "run.json"}},
};

const LibraryLeaves& specLibraryLeaves() {
  static const LibraryLeaves leaves = [] {
    LibraryLeaves out;
    for (BenchmarkKind kind : kKinds) {
      YAML::Node withOptionals = YAML::Clone(defaultDocument(kind));
      for (const auto& [path, value] : kOptionalFields) {
        // A kind section's optional field belongs to that kind only.
        const std::vector<std::string> keys = splitPath(path);
        if (keys[1] == "benchmark" && keys[2] != sectionOf(kind)) continue;
        setAt(withOptionals, keys, YAML::Load(value));
      }
      libraryLeaves(withOptionals["spec"], "spec", kind, out);
      for (const auto& variant : kExclusiveOptionals) {
        YAML::Node doc = YAML::Clone(defaultDocument(kind));
        for (const auto& [path, value] : variant) setAt(doc, splitPath(path), YAML::Load(value));
        const YAML::Node written = YAML::Load(toYaml(parseDistBenchmark(dump(doc))));
        for (const auto& [path, value] : variant) {
          (void)value;
          libraryLeaves(valueAt(written, path), path, kind, out);
        }
        libraryLeaves(written["spec"]["baseline"]["thresholdPercent"],
                      "spec.baseline.thresholdPercent", kind, out);
      }
    }
    return out;
  }();
  return leaves;
}

std::vector<BenchmarkKind> kindsWriting(const std::string& path) {
  std::vector<BenchmarkKind> kinds;
  auto leaf = specLibraryLeaves().find(path);
  if (leaf != specLibraryLeaves().end()) {
    for (const auto& entry : leaf->second) kinds.push_back(entry.first);
  }
  return kinds;
}

// --- Documents -----------------------------------------------------------------

YAML::Node plain(const std::string& yaml) { return YAML::Load(yaml); }

// A string the parser must read as a string, even "1" or "true".
YAML::Node quoted(const std::string& text) {
  YAML::Node node(text);
  node.SetTag(kStringTag);
  return node;
}

// yaml-cpp loads "3" as the scalar 3 tagged "!" and writes it back as plain 3, an
// integer; an explicit !!str tag survives the round trip.
void keepStrings(YAML::Node node) {
  if (node.IsScalar() && node.Tag() == "!") {
    node.SetTag(kStringTag);
  } else if (node.IsSequence()) {
    for (YAML::Node item : node) keepStrings(item);
  } else if (node.IsMap()) {
    for (const auto& entry : node) keepStrings(entry.second);
  }
}

std::string dump(const YAML::Node& node) {
  YAML::Node copy = YAML::Clone(node);
  keepStrings(copy);
  YAML::Emitter out;
  out << copy;
  return out.c_str();
}

YAML::Node valueAt(const YAML::Node& node, const std::vector<std::string>& keys,
                   std::size_t i = 0) {
  if (i == keys.size() || !node || !node.IsMap()) return node;
  return valueAt(node[keys[i]], keys, i + 1);
}
YAML::Node valueAt(const YAML::Node& doc, const std::string& path) {
  return valueAt(doc, splitPath(path));
}

void setAt(YAML::Node node, const std::vector<std::string>& keys, const YAML::Node& value,
           std::size_t i) {
  if (i + 1 == keys.size()) {
    node[keys[i]] = value;
  } else {
    setAt(node[keys[i]], keys, value, i + 1);
  }
}
void setAt(YAML::Node doc, const std::string& path, const YAML::Node& value) {
  setAt(doc, splitPath(path), value);
}

bool intAt(const YAML::Node& doc, const std::string& path, int64_t& out) {
  const YAML::Node node = valueAt(doc, path);
  if (!node || !node.IsScalar()) return false;
  const std::string& text = node.Scalar();
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool scalarIs(const YAML::Node& doc, const std::string& path, const std::string& text) {
  const YAML::Node node = valueAt(doc, path);
  return node && node.IsScalar() && node.Scalar() == text;
}

// Rules between two fields name the edited field too (nccl needs cuda,
// maxBagIndices ≥ minBagIndices). A value the schema allows must be accepted
// once the other field agrees, so set that one as a user would; never to a
// value the other field may not hold on its own (all four minimums are 1), or a
// value the schema refuses would pass as an error about the other field.
void satisfyCrossFieldRules(YAML::Node doc, const std::string& edited) {
  auto endsWith = [&](const std::string& tail) {
    return edited.size() >= tail.size() && edited.compare(edited.size() - tail.size(), tail.size(), tail) == 0;
  };
  auto sibling = [&](const std::string& tail, const std::string& field) {
    return edited.substr(0, edited.size() - tail.size()) + field;
  };
  // Root (runAsUser 0) needs runAsNonRoot false; a Localhost seccomp profile
  // needs its path, and only it has one.
  int64_t user = -1;
  if (endsWith("podSecurityContext.runAsUser") && intAt(doc, edited, user) && user == 0)
    setAt(doc, sibling("runAsUser", "runAsNonRoot"), plain("false"));
  if (endsWith("seccompProfile.type")) {
    if (scalarIs(doc, edited, "Localhost"))
      setAt(doc, sibling("type", "localhostProfile"), plain("worker.json"));
  }
  if (endsWith("seccompProfile.localhostProfile")) {
    const YAML::Node profile = valueAt(doc, edited);
    const bool empty = !profile || profile.IsNull() || (profile.IsScalar() && profile.Scalar().empty());
    setAt(doc, sibling("localhostProfile", "type"), plain(empty ? "RuntimeDefault" : "Localhost"));
  }
  // One shard is at most 16 GiB: the most rows fit with one column.
  if (edited == "spec.benchmark.hybridDDPRPC.numEmbeddings")
    setAt(doc, "spec.benchmark.hybridDDPRPC.embeddingDim", plain("1"));
  // At most 4096 ranks: the most trainers fit with no parameter server (and
  // a short enough name for the pods), the most parameter servers with one
  // trainer.
  int64_t count = 0;
  if (edited == "spec.topology.trainers" && intAt(doc, edited, count) && count > 8)
    setAt(doc, "spec.topology.parameterServers", plain("0"));
  if (edited == "spec.topology.parameterServers" && intAt(doc, edited, count) && count > 8)
    setAt(doc, "spec.topology.trainers", plain("1"));
  const std::string backend = "spec.runtime.backend";
  const std::string device = "spec.runtime.device";
  // GPUs per rank are for a GPU run only.
  if (edited == "spec.runtime.gpusPerRank") setAt(doc, device, plain("cuda"));
  bool bfloat16 = false;
  if (const YAML::Node dtypes = valueAt(doc, "spec.benchmark.collectives.dtypes");
      dtypes && dtypes.IsSequence()) {
    for (const YAML::Node& dtype : dtypes) {
      bfloat16 |= dtype.IsScalar() && dtype.Scalar() == "bfloat16";
    }
  }
  if (scalarIs(doc, backend, "nccl") || scalarIs(doc, device, "cuda") || bfloat16) {
    if (edited != backend) setAt(doc, backend, plain("nccl"));
    if (edited != device) setAt(doc, device, plain("cuda"));
  }
  for (const std::string prefix : {"spec.benchmark.hybridDDPRPC.", "spec.benchmark.collectives."}) {
    const bool bags = prefix == "spec.benchmark.hybridDDPRPC.";
    const std::string low = prefix + (bags ? "minBagIndices" : "minBytes");
    const std::string high = prefix + (bags ? "maxBagIndices" : "maxBytes");
    int64_t lowValue = 0;
    int64_t highValue = 0;
    if (intAt(doc, low, lowValue) && intAt(doc, high, highValue) && highValue < lowValue) {
      if (edited == high && highValue >= 1) {
        setAt(doc, low, valueAt(doc, high));
      } else if (edited != high) {
        setAt(doc, high, valueAt(doc, low));
      }
    }
  }
}

// Errors of single fields and their stated cross-field rules. The derived
// limits (spec_limits.h) on products and sums of several fields are not
// bounds a schema can state, so they are left out: a field at its schema
// maximum may still make, with the defaults, a product past a limit.
std::vector<FieldError> errorsOf(const YAML::Node& doc) {
  std::vector<FieldError> errors;
  try {
    parseDistBenchmark(dump(doc));
  } catch (const SpecError& e) {
    for (const FieldError& error : e.errors()) {
      if (error.message.find(kDerivedLimitNote) == std::string::npos) errors.push_back(error);
    }
  }
  return errors;
}

// The errors of kind's default document with `value` at `path`. `kind` decides
// which section and how many parameter servers a document may have, so a
// document that changes it drops both and takes the new kind's defaults.
std::vector<FieldError> errorsWith(BenchmarkKind kind, const std::string& path,
                                   const YAML::Node& value) {
  YAML::Node doc = YAML::Clone(defaultDocument(kind));
  if (path == "spec.benchmark.kind") {
    doc["spec"]["benchmark"].remove(sectionOf(kind));
    doc["spec"]["topology"].remove("parameterServers");
  }
  setAt(doc, path, value);
  satisfyCrossFieldRules(doc, path);
  return errorsOf(doc);
}

// An error about `path`, an entry of its list or a value of its map.
bool names(const std::vector<FieldError>& errors, const std::string& path) {
  for (const FieldError& e : errors) {
    if (e.field == path || e.field.rfind(path + "[", 0) == 0 || e.field.rfind(path + ".", 0) == 0) {
      return true;
    }
  }
  return false;
}

std::string lines(const std::vector<FieldError>& errors) {
  std::string out;
  for (const FieldError& e : errors) out += "\n    " + e.str();
  return out.empty() ? " (none)" : out;
}

// Accepted: some kind that has the field reports no error about it. Rules
// involving the kind (parameterServers 0 only without HybridDDPRPC) are the
// operator's, so the schema allows what any kind allows.
AssertionResult accepted(const std::string& path, const YAML::Node& value) {
  std::string why;
  for (BenchmarkKind kind : kindsWriting(path)) {
    const std::vector<FieldError> errors = errorsWith(kind, path, value);
    if (!names(errors, path)) return AssertionSuccess();
    why += std::string("\n  kind ") + toString(kind) + ":" + lines(errors);
  }
  return AssertionFailure() << path << ": " << dump(value) << " is rejected by every kind" << why;
}

// Rejected: every kind that has the field reports an error about it.
AssertionResult rejected(const std::string& path, const YAML::Node& value) {
  const std::vector<BenchmarkKind> kinds = kindsWriting(path);
  if (kinds.empty()) return AssertionFailure() << path << " is not a library field";
  for (BenchmarkKind kind : kinds) {
    const std::vector<FieldError> errors = errorsWith(kind, path, value);
    if (!names(errors, path)) {
      return AssertionFailure() << path << ": " << dump(value) << " is accepted by kind "
                                << toString(kind) << "; errors:" << lines(errors);
    }
  }
  return AssertionSuccess();
}

// --- Values --------------------------------------------------------------------

std::string formatDouble(double value) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

bool parseInt(const std::string& text, int64_t& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool parseDouble(const std::string& text, double& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// The text of `keyword` in `schema`, empty when absent.
std::string keywordOf(const YAML::Node& schema, const char* keyword) {
  return schema[keyword] ? schema[keyword].Scalar() : std::string();
}

std::string typeOf(const YAML::Node& schema) { return keywordOf(schema, "type"); }

// Scalars compared as the schema types them: 25 equals 25.0, 1e-04 equals 0.0001.
bool sameScalar(const YAML::Node& a, const YAML::Node& b, const std::string& type) {
  if (!a.IsScalar() || !b.IsScalar()) return false;
  if (type == "integer") {
    int64_t x = 0;
    int64_t y = 0;
    return parseInt(a.Scalar(), x) && parseInt(b.Scalar(), y) && x == y;
  }
  if (type == "number") {
    double x = 0;
    double y = 0;
    return parseDouble(a.Scalar(), x) && parseDouble(b.Scalar(), y) && x == y;
  }
  return a.Scalar() == b.Scalar();
}

bool sameValue(const YAML::Node& schemaValue, const YAML::Node& libraryValue,
               const YAML::Node& schema) {
  if (schemaValue.IsSequence()) {
    if (!libraryValue.IsSequence() || libraryValue.size() != schemaValue.size()) return false;
    for (std::size_t i = 0; i < schemaValue.size(); ++i) {
      if (!sameScalar(schemaValue[i], libraryValue[i], typeOf(schema["items"]))) return false;
    }
    return true;
  }
  return sameScalar(schemaValue, libraryValue, typeOf(schema));
}

// What a YAML 1.1 reader (the API server's, kubectl's) takes for a string. A
// bare True in an enum would reach the API server as a boolean.
bool readsAsString(const YAML::Node& node) {
  if (!node.IsScalar()) return false;
  if (node.Tag() == "!") return true;
  static const std::regex notString(
      "(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
      "|null|Null|NULL|~|[-+]?[0-9][0-9_]*(\\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?\\.[0-9]+"
      "|0x[0-9a-fA-F]+|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))?");
  return !std::regex_match(node.Scalar(), notString);
}

// --- Tests ---------------------------------------------------------------------

TEST(CrdSchemaTest, NamesGroupVersionAndScope) {
  const YAML::Node spec = crd()["spec"];
  EXPECT_EQ(crd()["apiVersion"].Scalar(), "apiextensions.k8s.io/v1");
  EXPECT_EQ(crd()["kind"].Scalar(), "CustomResourceDefinition");
  EXPECT_EQ(crd()["metadata"]["name"].Scalar(), "distbenchmarks.distbench.io");
  EXPECT_EQ(spec["group"].Scalar(), "distbench.io");
  EXPECT_EQ(spec["scope"].Scalar(), "Namespaced");
  EXPECT_EQ(spec["names"]["kind"].Scalar(), kKind);
  EXPECT_EQ(spec["names"]["listKind"].Scalar(), std::string(kKind) + "List");
  EXPECT_EQ(spec["names"]["plural"].Scalar(), "distbenchmarks");
  EXPECT_EQ(spec["names"]["singular"].Scalar(), "distbenchmark");
  EXPECT_EQ(spec["names"]["shortNames"].as<std::vector<std::string>>(),
            std::vector<std::string>{"dbench"});
  EXPECT_EQ(spec["names"]["categories"].as<std::vector<std::string>>(),
            std::vector<std::string>{"distbench"});
  ASSERT_EQ(spec["versions"].size(), 1u);
  const YAML::Node version = servedVersion();
  EXPECT_EQ(spec["group"].Scalar() + "/" + version["name"].Scalar(), kApiVersion);
  EXPECT_TRUE(version["served"].as<bool>());
  EXPECT_TRUE(version["storage"].as<bool>());
  // The operator writes status through its own endpoint, so users cannot.
  ASSERT_TRUE(version["subresources"]["status"]);
  EXPECT_TRUE(version["subresources"]["status"].IsMap());
}

TEST(CrdSchemaTest, PrinterColumnsPointAtFieldsOfTheirType) {
  struct Column {
    std::string name, type, jsonPath;
  };
  const std::vector<Column> expected = {{"Phase", "string", ".status.phase"},
                                        {"Trainers", "integer", ".spec.topology.trainers"},
                                        {"PS", "integer", ".spec.topology.parameterServers"},
                                        {"p50", "string", ".status.results.p50"},
                                        {"Regression", "string",
                                         R"(.status.conditions[?(@.type=="RegressionDetected")].status)"},
                                        {"Age", "date", ".metadata.creationTimestamp"}};
  const YAML::Node columns = servedVersion()["additionalPrinterColumns"];
  ASSERT_EQ(columns.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(columns[i]["name"].Scalar(), expected[i].name);
    EXPECT_EQ(columns[i]["type"].Scalar(), expected[i].type);
    EXPECT_EQ(columns[i]["jsonPath"].Scalar(), expected[i].jsonPath);
    // A column whose field was renamed prints nothing and no error anywhere.
    if (expected[i].type == "date") continue;  // metadata is Kubernetes'
    // A condition's status, found by type in the list.
    const std::string conditionFilter = ".status.conditions[?(@.type==";
    if (expected[i].jsonPath.rfind(conditionFilter, 0) == 0) {
      EXPECT_EQ(typeOf(schemaAt("status.conditions")["items"]["properties"]["status"]), "string");
      continue;
    }
    const YAML::Node field = schemaAt(expected[i].jsonPath.substr(1));
    ASSERT_TRUE(field) << expected[i].jsonPath << " is not in the schema";
    EXPECT_EQ(typeOf(field), expected[i].type);
  }
}

TEST(CrdSchemaTest, StatusHasWhatTheOperatorWrites) {
  const YAML::Node phase = schemaAt("status.phase");
  ASSERT_TRUE(phase);
  EXPECT_EQ(phase["enum"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"Pending", "Running", "Succeeded", "Failed"}));
  const YAML::Node conditions = schemaAt("status.conditions");
  ASSERT_TRUE(conditions);
  EXPECT_EQ(typeOf(conditions), "array");
  EXPECT_EQ(conditions["x-kubernetes-list-type"].Scalar(), "map");
  const YAML::Node condition = conditions["items"];
  EXPECT_EQ(condition["required"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"type", "status"}));
  EXPECT_EQ(condition["properties"]["status"]["enum"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"True", "False", "Unknown"}));
  EXPECT_EQ(condition["properties"]["lastTransitionTime"]["format"].Scalar(), "date-time");
  EXPECT_EQ(typeOf(condition["properties"]["observedGeneration"]), "integer");
  for (const char* role : {"master", "parameterServers", "trainers"}) {
    for (const char* count : {"active", "ready", "succeeded", "failed"}) {
      const std::string path = std::string("status.") + role + "." + count;
      EXPECT_EQ(typeOf(schemaAt(path)), "integer") << path;
    }
  }
  for (const char* time : {"status.startTime", "status.completionTime"}) {
    EXPECT_EQ(schemaAt(time)["format"].Scalar(), "date-time") << time;
  }
  EXPECT_EQ(typeOf(schemaAt("status.restartCount")), "integer");
  EXPECT_EQ(typeOf(schemaAt("status.observedGeneration")), "integer");
  EXPECT_EQ(typeOf(schemaAt("status.message")), "string");
  // Each kind summarizes its own rows: kept as written, not pruned.
  EXPECT_TRUE(schemaAt("status.results")["x-kubernetes-preserve-unknown-fields"].as<bool>());
  EXPECT_TRUE(schemaAt("status.results.summary"));
}

// What an apiextensions.k8s.io/v1 server of 1.20 takes: a structural schema
// (a type everywhere), no CEL and no keyword it would drop. A misspelt
// "minimun" would be decoded away, leaving the field unbounded.
void checkStructural(const YAML::Node& schema, const std::string& path) {
  // clang-format off
  static const std::set<std::string> allowed = {
      "type", "format", "description", "properties", "items", "enum", "default", "required", "nullable",
      "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
      "minItems", "maxItems", "pattern", "additionalProperties", "x-kubernetes-int-or-string",
      "x-kubernetes-preserve-unknown-fields", "x-kubernetes-list-type",
      "x-kubernetes-list-map-keys", "oneOf"};
  // clang-format on
  SCOPED_TRACE(path);
  ASSERT_TRUE(schema.IsMap());
  for (const auto& entry : schema) {
    EXPECT_TRUE(allowed.count(entry.first.Scalar())) << "keyword " << entry.first.Scalar();
  }
  // A structural schema's oneOf may only validate, never declare: here,
  // which of the properties must be present.
  if (const YAML::Node oneOf = schema["oneOf"]) {
    ASSERT_TRUE(oneOf.IsSequence());
    for (const YAML::Node& branch : oneOf) {
      ASSERT_TRUE(branch.IsMap());
      for (const auto& entry : branch) EXPECT_EQ(entry.first.Scalar(), "required");
      for (const YAML::Node& name : branch["required"])
        EXPECT_TRUE(schema["properties"][name.Scalar()]) << "oneOf requires " << name.Scalar();
    }
  }
  const bool intOrString = schema["x-kubernetes-int-or-string"].IsDefined();
  const bool preserve = schema["x-kubernetes-preserve-unknown-fields"].IsDefined();
  EXPECT_TRUE(schema["type"] || intOrString || preserve) << "no type";
  // Unknown fields under spec are pruned, never kept: the library would refuse them.
  if (preserve) {
    EXPECT_THAT(path, ::testing::StartsWith("status.results"));
  }
  const std::string type = typeOf(schema);
  for (const char* keyword : {"minimum", "maximum", "default"}) {
    if (schema[keyword] && (type == "integer" || type == "number")) {
      double value = 0;
      EXPECT_EQ(schema[keyword].Tag(), "?") << keyword << " is quoted";
      EXPECT_TRUE(parseDouble(schema[keyword].Scalar(), value)) << keyword;
    }
  }
  if (type == "string") {
    if (schema["default"]) {
      EXPECT_TRUE(readsAsString(schema["default"])) << "default";
    }
    for (const YAML::Node& value : schema["enum"]) {
      EXPECT_TRUE(readsAsString(value)) << "enum value " << value.Scalar();
    }
  }
  if (type == "array") {
    ASSERT_TRUE(schema["items"]) << "array without items";
    checkStructural(schema["items"], path + "[]");
  }
  if (schema["additionalProperties"]) {
    EXPECT_FALSE(schema["properties"]) << "both properties and additionalProperties";
    checkStructural(schema["additionalProperties"], path + ".*");
  }
  for (const auto& property : schema["properties"]) {
    checkStructural(property.second,
                    path.empty() ? property.first.Scalar() : path + "." + property.first.Scalar());
  }
}

TEST(CrdSchemaTest, SchemaIsStructuralForAKubernetes120Server) {
  checkStructural(rootSchema(), "");
}

TEST(CrdSchemaTest, SpecLeavesAreTheLibraryFields) {
  std::set<std::string> inSchema;
  for (const auto& entry : specSchemaLeaves()) inSchema.insert(entry.first);
  std::set<std::string> inLibrary;
  for (const auto& entry : specLibraryLeaves()) inLibrary.insert(entry.first);
  // 55 in topology, benchmark and runtime; 4 in runPolicy; 15 per role in
  // podTemplates (5, and 10 security overrides); 4 in baseline.
  EXPECT_EQ(inLibrary.size(), 108u);
  EXPECT_EQ(inSchema, inLibrary);
}

TEST(CrdSchemaTest, DefaultsAreTheLibraryDefaults) {
  // The library's choices with nothing given, the kind included.
  const YAML::Node untouched = YAML::Load(toYaml(parseDistBenchmark(test::kHeader)));
  std::set<std::string> withoutDefault;
  for (const auto& [path, schema] : specSchemaLeaves()) {
    SCOPED_TRACE(path);
    if (!schema["default"]) {
      withoutDefault.insert(path);
      continue;
    }
    if (const YAML::Node written = valueAt(untouched, path)) {
      EXPECT_TRUE(sameValue(schema["default"], written, schema))
          << "schema default " << dump(schema["default"]) << ", library " << dump(written);
    }
    // Each kind's own defaults; its documents name the kind, so that one is not a default.
    if (path == "spec.benchmark.kind") continue;
    for (BenchmarkKind kind : kindsWriting(path)) {
      const YAML::Node written = specLibraryLeaves().at(path).at(kind);
      EXPECT_TRUE(sameValue(schema["default"], written, schema))
          << "schema default " << dump(schema["default"]) << ", library (kind " << toString(kind)
          << ") " << dump(written);
    }
  }
  // Its default depends on the kind, which a schema default cannot follow.
  std::set<std::string> expected = {"spec.topology.parameterServers"};
  // Empty: the operator's image for the device, which the schema cannot know.
  expected.insert("spec.runtime.image");
  // Unset unless given.
  for (const auto& entry : kOptionalFields) expected.insert(entry.first);
  for (const auto& variant : kExclusiveOptionals)
    for (const auto& entry : variant) expected.insert(entry.first);
  // An absent role template means no settings at all, so nothing is filled in there.
  for (const auto& entry : specSchemaLeaves()) {
    if (entry.first.rfind("spec.podTemplates.", 0) == 0) expected.insert(entry.first);
  }
  EXPECT_EQ(withoutDefault, expected);
  const auto& parameterServers = specLibraryLeaves().at("spec.topology.parameterServers");
  EXPECT_EQ(parameterServers.at(BenchmarkKind::HybridDDPRPC).Scalar(), "8");
  EXPECT_EQ(parameterServers.at(BenchmarkKind::DDP).Scalar(), "0");
  EXPECT_EQ(parameterServers.at(BenchmarkKind::Collectives).Scalar(), "0");
  EXPECT_EQ(parameterServers.at(BenchmarkKind::Fabric).Scalar(), "0");
}

// The API server's defaulting (structuraldefaulting.Default in 1.20): a missing
// or null property with a default gets a copy of it, then every property
// present is visited, the new ones included.
void applySchemaDefaults(YAML::Node object, const YAML::Node& schema) {
  if (!object.IsMap()) return;
  const YAML::Node view = object;  // lookups through a const Node add no keys
  for (const auto& property : schema["properties"]) {
    const std::string& key = property.first.Scalar();
    const YAML::Node defaultValue = property.second["default"];
    if (defaultValue && (!view[key] || view[key].IsNull())) {
      object[key] = YAML::Clone(defaultValue);
    }
    if (view[key]) applySchemaDefaults(object[key], property.second);
  }
}

TEST(CrdSchemaTest, WhatTheApiServerDefaultsMeansTheSameToTheLibrary) {
  for (BenchmarkKind kind : kKinds) {
    SCOPED_TRACE(toString(kind));
    YAML::Node written = plain(
        test::document(std::string("spec:\n  benchmark:\n    kind: ") + toString(kind) + "\n"));
    YAML::Node withSection = YAML::Clone(written);
    withSection["spec"]["benchmark"][sectionOf(kind)] = YAML::Node(YAML::NodeType::Map);
    for (const YAML::Node& doc : {written, withSection}) {
      YAML::Node stored = YAML::Clone(doc);
      applySchemaDefaults(stored, rootSchema());
      ASSERT_TRUE(errorsOf(stored).empty()) << dump(stored) << lines(errorsOf(stored));
      EXPECT_EQ(parseDistBenchmark(dump(stored)), parseDistBenchmark(dump(doc))) << dump(stored);
    }
  }
  YAML::Node empty = plain(test::kHeader);
  applySchemaDefaults(empty, rootSchema());
  YAML::Node expected = plain(test::kHeader);
  EXPECT_EQ(parseDistBenchmark(dump(empty)), parseDistBenchmark(dump(expected))) << dump(empty);
}

TEST(CrdSchemaTest, OnlyObjectsEveryKindHasAreDefaulted) {
  // A defaulted section would put, say, hybridDDPRPC into a DDP resource,
  // which the library refuses.
  for (const char* path :
       {"spec", "spec.topology", "spec.benchmark", "spec.runtime", "spec.runPolicy"}) {
    const YAML::Node defaultValue = schemaAt(path)["default"];
    EXPECT_TRUE(defaultValue && defaultValue.IsMap() && defaultValue.size() == 0) << path;
  }
  // Not wrong, but a stored resource would carry three empty templates.
  EXPECT_FALSE(schemaAt("spec.podTemplates")["default"]);
  for (BenchmarkKind kind : kKinds) {
    const std::string path = "spec.benchmark." + sectionOf(kind);
    ASSERT_TRUE(schemaAt(path)) << path;
    EXPECT_FALSE(schemaAt(path)["default"]) << path;
  }
}

TEST(CrdSchemaTest, TypesAreTheLibraryTypes) {
  for (const auto& [path, schema] : specSchemaLeaves()) {
    SCOPED_TRACE(path);
    const std::string type = typeOf(schema);
    std::vector<YAML::Node> wrong;
    if (type == "integer") {
      wrong = {plain("1.5"), quoted("1"), plain("true"), plain("[1]"), plain("{a: 1}")};
      const YAML::Node beyondInt32 = plain("2147483648");
      if (keywordOf(schema, "format") == "int64") {
        EXPECT_TRUE(accepted(path, beyondInt32));
      } else {
        EXPECT_EQ(keywordOf(schema, "format"), "int32");
        EXPECT_TRUE(rejected(path, beyondInt32));
      }
    } else if (type == "number") {
      wrong = {quoted("1"), plain("true"), plain("[1]"), plain("{a: 1}")};
      EXPECT_EQ(keywordOf(schema, "format"), "double");
      // Both read an integer as a number: the smallest one the bounds allow.
      double minimum = schema["minimum"] ? schema["minimum"].as<double>() : 0;
      const bool exclusive = schema["exclusiveMinimum"] && schema["exclusiveMinimum"].as<bool>();
      EXPECT_TRUE(accepted(path, plain(std::to_string(static_cast<int64_t>(
                                     exclusive ? std::floor(minimum) + 1 : std::ceil(minimum))))));
    } else if (type == "boolean") {
      wrong = {quoted("true"), plain("1"), plain("yes"), plain("[true]"), plain("{a: b}")};
      EXPECT_TRUE(accepted(path, plain("true")));
      EXPECT_TRUE(accepted(path, plain("false")));
    } else if (type == "string") {
      wrong = {plain("3"), plain("true"), plain("[x]"), plain("{a: b}")};
    } else if (type == "object") {
      // A map: nodeSelector's values are strings, resources' quantities.
      wrong = {plain("x"), plain("3"), plain("[a]")};
      const YAML::Node values = schema["additionalProperties"];
      ASSERT_TRUE(values) << "an object leaf that is not a map";
      if (typeOf(values) == "string") {
        for (const char* map : {"{a: 3}", "{a: true}", "{a: [b]}", "{a: {b: c}}"}) {
          wrong.push_back(plain(map));
        }
        EXPECT_TRUE(accepted(path, plain("{a: b}")));
        // Label values may be empty: nullable, as for strings below, and null is "".
        EXPECT_TRUE(values["nullable"] && values["nullable"].as<bool>()) << "not nullable";
        EXPECT_TRUE(accepted(path, plain("{a: \"\"}")));
        EXPECT_TRUE(accepted(path, plain("{a: null}")));
      } else if (values["x-kubernetes-int-or-string"].as<bool>()) {
        for (const char* map : {"{cpu: 1.5}", "{cpu: true}", "{cpu: [1]}", "{cpu: {a: 1}}"}) {
          wrong.push_back(plain(map));
        }
        YAML::Node asString(YAML::NodeType::Map);
        asString["cpu"] = quoted("1");
        EXPECT_TRUE(accepted(path, asString));
        EXPECT_TRUE(accepted(path, plain("{cpu: 1}")));
      } else {
        ADD_FAILURE() << "map values of an unexpected type";
      }
    } else if (type == "array") {
      wrong = {plain("x"), plain("{a: b}")};
      const YAML::Node items = schema["items"];
      if (typeOf(items) == "object") {
        // Tolerations: TolerationsAreTheLibrarysTolerations checks their fields.
        wrong.push_back(plain("[3]"));
        wrong.push_back(plain("[[a]]"));
      } else if (typeOf(items) == "string") {
        wrong.push_back(plain("[3]"));
      } else if (typeOf(items) == "integer") {
        for (const char* item : {"[x]", "[1.5]", "[true]", "[[8]]"}) wrong.push_back(plain(item));
        YAML::Node asString(YAML::NodeType::Sequence);
        asString.push_back(quoted("8"));
        wrong.push_back(asString);
        EXPECT_TRUE(accepted(path, plain("[8]")));
      } else if (items["x-kubernetes-int-or-string"].as<bool>()) {
        for (const char* item : {"[1.5]", "[true]", "[[8]]", "[{a: 8}]"}) {
          wrong.push_back(plain(item));
        }
        YAML::Node asString(YAML::NodeType::Sequence);
        asString.push_back(quoted("8"));
        EXPECT_TRUE(accepted(path, asString));
        EXPECT_TRUE(accepted(path, plain("[8]")));
      } else {
        ADD_FAILURE() << "items of an unexpected type";
      }
    } else {
      ADD_FAILURE() << "unexpected type \"" << type << "\"";
    }
    for (const YAML::Node& value : wrong) EXPECT_TRUE(rejected(path, value));
  }
}

// The values the library's error lists: "must be one of a, b" or "...; known: a, b".
std::set<std::string> listedValues(const std::string& message) {
  std::set<std::string> values;
  std::size_t at = std::string::npos;
  for (const std::string marker : {"must be one of ", "known: "}) {
    const std::size_t found = message.find(marker);
    if (found != std::string::npos) at = found + marker.size();
  }
  if (at == std::string::npos) return values;
  for (std::size_t comma = message.find(", ", at); at != std::string::npos;
       comma = message.find(", ", at)) {
    values.insert(message.substr(at, comma == std::string::npos ? comma : comma - at));
    at = comma == std::string::npos ? comma : comma + 2;
  }
  return values;
}

TEST(CrdSchemaTest, EnumsAreTheValuesTheLibraryAccepts) {
  int enums = 0;
  for (const auto& [path, schema] : specSchemaLeaves()) {
    const bool list = typeOf(schema) == "array";
    const YAML::Node values = list ? schema["items"]["enum"] : schema["enum"];
    if (!values) continue;
    SCOPED_TRACE(path);
    ++enums;
    std::set<std::string> inSchema;
    for (const YAML::Node& value : values) {
      inSchema.insert(value.Scalar());
      YAML::Node single = list ? YAML::Node(YAML::NodeType::Sequence) : value;
      if (list) single.push_back(value);
      EXPECT_TRUE(accepted(path, single));
    }
    // Enum values are case-sensitive on both sides.
    std::string other = values[0].Scalar();
    other[0] = std::islower(other[0]) ? std::toupper(other[0]) : std::tolower(other[0]);
    ASSERT_FALSE(inSchema.count(other));
    YAML::Node bad = list ? YAML::Node(YAML::NodeType::Sequence) : plain(other);
    if (list) bad.push_back(other);
    EXPECT_TRUE(rejected(path, bad));
    // And the library accepts no value the schema lacks: its error lists them all.
    for (BenchmarkKind kind : kindsWriting(path)) {
      bool listed = false;
      for (const FieldError& e : errorsWith(kind, path, bad)) {
        if (e.field != path && e.field != path + "[0]") continue;
        EXPECT_EQ(listedValues(e.message), inSchema) << e.str();
        listed = true;
      }
      EXPECT_TRUE(listed) << "no error lists the values";
    }
  }
  // kind, embeddingMode, parameterServerMode, models, ops, dtypes, backend, device,
  // cleanPodPolicy.
  EXPECT_EQ(enums, 12);  // 9, and seccompProfile.type per role
}

struct Bound {
  const char* keyword;
  const char* exclusive;
  bool upper;
};

TEST(CrdSchemaTest, BoundsAreTheLibraryBounds) {
  int bounds = 0;
  for (const auto& [path, schema] : specSchemaLeaves()) {
    SCOPED_TRACE(path);
    const std::string type = typeOf(schema);
    if (type != "integer" && type != "number") continue;
    const bool int64 = keywordOf(schema, "format") == "int64";
    for (const Bound& b : {Bound{"minimum", "exclusiveMinimum", false},
                           Bound{"maximum", "exclusiveMaximum", true}}) {
      const YAML::Node limit = schema[b.keyword];
      if (!limit) {
        EXPECT_FALSE(schema[b.exclusive]) << b.exclusive << " without " << b.keyword;
        // No bound in the schema: the library must take the extreme value too.
        std::string extreme;
        if (type == "number") {
          extreme = formatDouble(b.upper ? std::numeric_limits<double>::max()
                                         : std::numeric_limits<double>::lowest());
        } else if (int64) {
          extreme = std::to_string(b.upper ? std::numeric_limits<int64_t>::max()
                                           : std::numeric_limits<int64_t>::min());
        } else {
          extreme = std::to_string(b.upper ? std::numeric_limits<int32_t>::max()
                                           : std::numeric_limits<int32_t>::min());
        }
        EXPECT_TRUE(accepted(path, plain(extreme)));
        continue;
      }
      ++bounds;
      const bool exclusive = schema[b.exclusive] && schema[b.exclusive].as<bool>();
      std::string at;
      std::string inside;
      std::string outside;
      if (type == "integer") {
        EXPECT_FALSE(exclusive) << "integer bounds are written inclusive";
        const int64_t value = limit.as<int64_t>();
        at = std::to_string(value);
        inside = at;
        outside = std::to_string(b.upper ? value + 1 : value - 1);
      } else {
        // The neighbouring doubles, 5e-324 next to 0: exactly one side of the bound.
        const double value = limit.as<double>();
        const double toward = b.upper ? -std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::infinity();
        at = formatDouble(value);
        inside = formatDouble(std::nextafter(value, toward));
        outside = formatDouble(std::nextafter(value, -toward));
      }
      if (exclusive) {
        EXPECT_TRUE(rejected(path, plain(at)));
      } else {
        EXPECT_TRUE(accepted(path, plain(at)));
      }
      EXPECT_TRUE(accepted(path, plain(inside)));
      EXPECT_TRUE(rejected(path, plain(outside)));
    }
  }
  EXPECT_GE(bounds, 30);  // the walk reached the numeric fields
}

TEST(CrdSchemaTest, StringAndListLimitsAreTheLibraryLimits) {
  for (const auto& [path, schema] : specSchemaLeaves()) {
    SCOPED_TRACE(path);
    const std::string type = typeOf(schema);
    if (type == "string" && !schema["enum"]) {
      const std::size_t minLength = schema["minLength"] ? schema["minLength"].as<std::size_t>() : 0;
      if (minLength > 0) {
        EXPECT_TRUE(rejected(path, quoted(std::string(minLength - 1, 'x'))));
      }
      EXPECT_TRUE(accepted(path, quoted(std::string(minLength, 'x'))));
      // A 1.20 server's validator takes "" for null and refuses it unless the
      // field is nullable, so a string that may be empty must be; null then
      // reaches the library, which reads it as the default.
      if (minLength == 0) {
        EXPECT_TRUE(schema["nullable"] && schema["nullable"].as<bool>()) << "not nullable";
        EXPECT_TRUE(accepted(path, plain("null")));
      }
    }
    // Lists of objects (tolerations) and of capabilities have their own tests.
    if (type != "array" || typeOf(schema["items"]) == "object" ||
        path.find(".capabilities.") != std::string::npos)
      continue;
    // A list without a default (fabric.nodes: none given) builds its lists
    // from the value the optional fields give it.
    const YAML::Node defaults =
        schema["default"] ? schema["default"] : YAML::Load(kOptionalFields.at(path));
    const std::size_t minItems = schema["minItems"] ? schema["minItems"].as<std::size_t>() : 0;
    ASSERT_TRUE(defaults && defaults.size() >= std::max<std::size_t>(minItems, 1))
        << "the default has too few entries to build lists from";
    auto firstOf = [&](std::size_t n) {
      YAML::Node list(YAML::NodeType::Sequence);
      for (std::size_t i = 0; i < n; ++i) list.push_back(YAML::Clone(defaults[i]));
      return list;
    };
    if (minItems > 0) {
      EXPECT_TRUE(rejected(path, firstOf(minItems - 1)));
    }
    EXPECT_TRUE(accepted(path, firstOf(minItems)));
    // A set refuses repeats; any other list takes them, but for fabric.nodes
    // whose repeats depend on onePerNode (its own test, below).
    if (path == "spec.benchmark.fabric.nodes") continue;
    YAML::Node repeated = firstOf(1);
    repeated.push_back(YAML::Clone(defaults[0]));
    if (schema["x-kubernetes-list-type"] && schema["x-kubernetes-list-type"].Scalar() == "set") {
      EXPECT_TRUE(rejected(path, repeated));
    } else {
      EXPECT_TRUE(accepted(path, repeated));
    }
  }
}

// fabric.nodes repeats a node only with onePerNode false, a rule across two
// fields the schema cannot state: it must take repeats (not a set), and the
// library decides.
TEST(CrdSchemaTest, FabricNodesMayRepeatWhereTheLibrarySaysSo) {
  const YAML::Node nodes = specSchemaLeaves().at("spec.benchmark.fabric.nodes");
  EXPECT_EQ(nodes["x-kubernetes-list-type"].Scalar(), "atomic");
  const std::string spec =
      "apiVersion: distbench.io/v1alpha1\nkind: DistBenchmark\nmetadata: {name: f}\n"
      "spec:\n  topology: {trainers: 2}\n  benchmark:\n    kind: Fabric\n"
      "    fabric:\n      nodes: [n0, n0]\n";
  EXPECT_THROW(parseDistBenchmark(spec), SpecError);
  EXPECT_NO_THROW(parseDistBenchmark(spec + "      onePerNode: false\n"));
}

// denseLayers entries are integers or strings, so their rules are a minimum
// for the one and a pattern for the other. Go's regexp and ECMAScript agree on
// this pattern's syntax.
TEST(CrdSchemaTest, DenseLayerEntriesFollowTheLibrary) {
  const std::string path = "spec.benchmark.hybridDDPRPC.denseLayers";
  const YAML::Node items = schemaAt(path)["items"];
  ASSERT_TRUE(items["pattern"]);
  ASSERT_TRUE(items["minimum"]);
  const std::regex pattern(items["pattern"].Scalar());
  // The last entry must be a class count, so each sample goes first, before 8.
  auto list = [](const YAML::Node& entry) {
    YAML::Node layers(YAML::NodeType::Sequence);
    layers.push_back(entry);
    layers.push_back(8);
    return layers;
  };
  for (const std::string text : {"ReLU", "relu", "RELU", "8", "08", "1", "0", "00", "-1", "+4",
                                 "1.5", "8x", " 8", "", "x"}) {
    SCOPED_TRACE("\"" + text + "\"");
    if (std::regex_search(text, pattern)) {
      EXPECT_TRUE(accepted(path, list(quoted(text))));
    } else {
      EXPECT_TRUE(rejected(path, list(quoted(text))));
    }
  }
  for (int64_t width : {-1, 0, 1, 2, 1000}) {
    SCOPED_TRACE(width);
    if (width >= items["minimum"].as<int64_t>()) {
      EXPECT_TRUE(accepted(path, list(plain(std::to_string(width)))));
    } else {
      EXPECT_TRUE(rejected(path, list(plain(std::to_string(width)))));
    }
  }
}

const std::vector<std::string> kRoles = {"master", "parameterServer", "trainer"};

// One schema per role, the same but for its description.
TEST(CrdSchemaTest, RolesShareOneTemplateSchema) {
  const YAML::Node templates = schemaAt("spec.podTemplates");
  ASSERT_TRUE(templates);
  ASSERT_EQ(templates["properties"].size(), kRoles.size());
  auto withoutDescription = [](const YAML::Node& schema) {
    YAML::Node copy = YAML::Clone(schema);
    copy.remove("description");
    return dump(copy);
  };
  for (const std::string& role : kRoles) {
    SCOPED_TRACE(role);
    ASSERT_TRUE(templates["properties"][role]);
    EXPECT_EQ(withoutDescription(templates["properties"][role]),
              withoutDescription(templates["properties"]["trainer"]));
  }
}

// Resource quantities are integers or strings: strings match the schema's
// pattern (the Kubernetes quantity grammar, unsigned), integers its minimum.
// Go's regexp and ECMAScript agree on this pattern's syntax.
TEST(CrdSchemaTest, QuantitiesFollowTheLibrary) {
  int maps = 0;
  for (const std::string& role : kRoles) {
    for (const char* part : {"requests", "limits"}) {
      const std::string path = "spec.podTemplates." + role + ".resources." + part;
      SCOPED_TRACE(path);
      ++maps;
      const YAML::Node values = schemaAt(path)["additionalProperties"];
      ASSERT_TRUE(values["x-kubernetes-int-or-string"].as<bool>());
      ASSERT_TRUE(values["pattern"]);
      ASSERT_TRUE(values["minimum"]);
      const std::regex pattern(values["pattern"].Scalar());
      auto map = [](const YAML::Node& quantity) {
        YAML::Node m(YAML::NodeType::Map);
        m["cpu"] = quantity;
        return m;
      };
      for (const std::string text :
           {"1",   "0",   "007",   "500m", "0.5", ".5",   "5.", "1.5Gi", "2Ki",
            "8Ei", "1e3", "1E-2",  "1e+9", "1E",  "100M", "1n", "1u",    "2k",
            "+1",  "-1",  "1.2.3", "",     ".",   "x",    " 1", "1 ",    "1Gb",
            "1ki", "1K",  "1e",    "1E3i", "e3",  "1mi",  "Gi"}) {
        SCOPED_TRACE("\"" + text + "\"");
        if (std::regex_search(text, pattern)) {
          EXPECT_TRUE(accepted(path, map(quoted(text))));
        } else {
          EXPECT_TRUE(rejected(path, map(quoted(text))));
        }
      }
      for (int64_t number : {-5, -1, 0, 1, 64}) {
        SCOPED_TRACE(number);
        if (number >= values["minimum"].as<int64_t>()) {
          EXPECT_TRUE(accepted(path, map(plain(std::to_string(number)))));
        } else {
          EXPECT_TRUE(rejected(path, map(plain(std::to_string(number)))));
        }
      }
    }
  }
  EXPECT_EQ(maps, 6);
}

// A toleration's fields, as the schema types, bounds and defaults them. The
// rules between its fields (Exists wants no value, tolerationSeconds wants
// NoExecute, an empty key wants Exists) are the library's alone, so every
// sample starts from a toleration that satisfies them.
TEST(CrdSchemaTest, CapabilitiesAreTheLibrarysCapabilities) {
  for (const std::string role : {"master", "parameterServer", "trainer"}) {
    for (const std::string list : {"add", "drop"}) {
      const std::string path = "spec.podTemplates." + role + ".securityContext.capabilities." + list;
      SCOPED_TRACE(path);
      const YAML::Node schema = schemaAt(path);
      ASSERT_TRUE(schema);
      EXPECT_EQ(schema["x-kubernetes-list-type"].Scalar(), "atomic");
      const std::regex pattern(schema["items"]["pattern"].Scalar());
      for (const char* name : {"ALL", "IPC_LOCK", "SYS_PTRACE", "NET_BIND_SERVICE"}) {
        EXPECT_TRUE(std::regex_search(name, pattern)) << name;
        EXPECT_TRUE(accepted(path, plain(std::string("[") + name + "]")));
      }
      for (const char* name : {"ipc_lock", "CAP-X", ""}) {
        EXPECT_FALSE(std::regex_search(name, pattern)) << name;
        YAML::Node bad(YAML::NodeType::Sequence);
        bad.push_back(quoted(name));
        EXPECT_TRUE(rejected(path, bad));
      }
      EXPECT_TRUE(accepted(path, plain("[]")));
      EXPECT_TRUE(accepted(path, plain("[IPC_LOCK, IPC_LOCK]")));  // atomic, not a set
    }
  }
}

TEST(CrdSchemaTest, TolerationsAreTheLibrarysTolerations) {
  for (const std::string& role : kRoles) {
    const std::string path = "spec.podTemplates." + role + ".tolerations";
    SCOPED_TRACE(path);
    const YAML::Node items = schemaAt(path)["items"];
    ASSERT_EQ(typeOf(items), "object");
    std::set<std::string> fields;
    for (const auto& property : items["properties"]) fields.insert(property.first.Scalar());
    EXPECT_EQ(fields,
              (std::set<std::string>{"key", "operator", "value", "effect", "tolerationSeconds"}));

    const Toleration defaults;
    auto errorsFor = [&](const std::string& field, const YAML::Node& value) {
      YAML::Node toleration(YAML::NodeType::Map);
      toleration["key"] = quoted("k");
      toleration["effect"] = plain("NoExecute");
      toleration[field] = value;
      YAML::Node list(YAML::NodeType::Sequence);
      list.push_back(toleration);
      YAML::Node doc = YAML::Clone(defaultDocument(BenchmarkKind::HybridDDPRPC));
      setAt(doc, path, list);
      return errorsOf(doc);
    };
    for (const auto& property : items["properties"]) {
      const std::string field = property.first.Scalar();
      const YAML::Node schema = property.second;
      const std::string fieldPath = path + "[0]." + field;
      SCOPED_TRACE(field);
      auto isAccepted = [&](const YAML::Node& value) {
        const std::vector<FieldError> errors = errorsFor(field, value);
        return names(errors, fieldPath) ? AssertionFailure() << dump(value) << lines(errors)
                                        : AssertionSuccess();
      };
      auto isRejected = [&](const YAML::Node& value) {
        return names(errorsFor(field, value), fieldPath)
                   ? AssertionSuccess()
                   : AssertionFailure() << dump(value) << " is accepted";
      };
      const std::string type = typeOf(schema);
      if (type == "integer") {
        EXPECT_EQ(keywordOf(schema, "format"), "int64");
        EXPECT_FALSE(schema["minimum"] || schema["maximum"]);
        for (int64_t extreme :
             {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
          EXPECT_TRUE(isAccepted(plain(std::to_string(extreme))));
        }
        for (const char* bad : {"1.5", "true", "[1]"}) EXPECT_TRUE(isRejected(plain(bad)));
        EXPECT_TRUE(isRejected(quoted("1")));
        continue;
      }
      ASSERT_EQ(type, "string");
      for (const char* bad : {"3", "true", "[x]", "{a: b}"}) EXPECT_TRUE(isRejected(plain(bad)));
      if (!schema["enum"]) {
        EXPECT_FALSE(schema["pattern"] || schema["minLength"]);
        // Any string, "" included, so nullable (see StringAndListLimitsAreTheLibraryLimits).
        EXPECT_TRUE(isAccepted(quoted("x")));
        EXPECT_TRUE(isAccepted(quoted("")));
        EXPECT_TRUE(schema["nullable"] && schema["nullable"].as<bool>()) << "not nullable";
        EXPECT_TRUE(isAccepted(plain("null")));
        continue;
      }
      std::set<std::string> inSchema;
      for (const YAML::Node& value : schema["enum"]) {
        inSchema.insert(value.Scalar());
        EXPECT_TRUE(isAccepted(value));
      }
      std::string other = schema["enum"][0].Scalar();
      other[0] = std::tolower(other[0]);
      EXPECT_TRUE(isRejected(plain(other)));
      bool listed = false;
      for (const FieldError& e : errorsFor(field, plain(other))) {
        if (e.field != fieldPath) continue;
        EXPECT_EQ(listedValues(e.message), inSchema) << e.str();
        listed = true;
      }
      EXPECT_TRUE(listed) << "no error lists the values";
    }
    // The one default is the library's.
    EXPECT_EQ(items["properties"]["operator"]["default"].Scalar(), defaults.operator_);
    for (const char* field : {"key", "value", "effect", "tolerationSeconds"}) {
      EXPECT_FALSE(items["properties"][field]["default"]) << field;
    }
  }
}

TEST(CrdSchemaTest, LocalBlockIsTheLibrarysBlock) {
  std::map<std::string, YAML::Node> leaves;
  schemaLeaves(schemaAt("spec.local"), "spec.local", leaves);
  std::set<std::string> paths;
  for (const auto& entry : leaves) paths.insert(entry.first);
  EXPECT_EQ(paths, (std::set<std::string>{"spec.local.links.bandwidth", "spec.local.links.ranks",
                                          "spec.local.links.pairs", "spec.local.slow"}));
  // Rates and caps are int-or-string, as the library reads them.
  const YAML::Node slowValues = schemaAt("spec.local.slow")["additionalProperties"];
  EXPECT_EQ(typeOf(slowValues), "object");
  ASSERT_EQ(slowValues["required"].size(), 1u);
  EXPECT_EQ(slowValues["required"][0].Scalar(), "cpu");
  for (const YAML::Node& schema : {schemaAt("spec.local.links.bandwidth"),
                                   schemaAt("spec.local.links.ranks")["additionalProperties"],
                                   schemaAt("spec.local.links.pairs")["additionalProperties"],
                                   slowValues["properties"]["cpu"]}) {
    ASSERT_TRUE(schema);
    EXPECT_TRUE(schema["x-kubernetes-int-or-string"].as<bool>());
    EXPECT_FALSE(schema["type"]);
  }
  // The library writes each of those paths, and takes what the schema takes.
  const std::string spec = "spec:\n  topology: {trainers: 2, parameterServers: 1}\n  local:\n";
  const std::string full = spec +
                           "    links: {bandwidth: 1gbit, ranks: {rank3: 100mbit}, "
                           "pairs: {rank1-trainer1: 50mbit}}\n"
                           "    slow: {trainer0: {cpu: 50%}}\n";
  const YAML::Node written = YAML::Load(toYaml(parseDistBenchmark(test::document(full))));
  for (const std::string& path : paths) EXPECT_TRUE(valueAt(written, path)) << path;
  for (const char* ok :
       {"    links: {bandwidth: 1000000}\n", "    links: {ranks: {ps0: \"5mbit\"}}\n",
        "    links: {pairs: {ps0-master: 5000000}}\n", "    slow: {rank1: {cpu: \"0.5\"}}\n",
        "    slow: {rank1: {cpu: 1}}\n"}) {
    EXPECT_TRUE(errorsOf(YAML::Load(test::document(spec + ok))).empty()) << ok;
  }
  // What the schema refuses (a float, a bool, a list; a cap without cpu), the library refuses.
  for (const char* wrong :
       {"    links: {bandwidth: 1.5}\n", "    links: {ranks: {rank1: true}}\n",
        "    links: {ranks: {rank1: [1gbit]}}\n", "    slow: {rank1: {}}\n",
        "    links: {pairs: {rank1-rank2: 0.5}}\n", "    slow: {rank1: {cpu: 0.5}}\n"}) {
    const std::vector<FieldError> errors = errorsOf(YAML::Load(test::document(spec + wrong)));
    EXPECT_TRUE(names(errors, "spec.local")) << wrong << lines(errors);
  }
}

}  // namespace
}  // namespace distbench::api
