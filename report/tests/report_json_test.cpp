#include "distbench/report/report_json.h"

#include <cpprest/json.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace distbench::report {
namespace {

namespace fs = std::filesystem;
using web::json::value;

Series makeSeries(const std::string& row, int ranks, std::vector<double> samples) {
  Series s;
  s.group = "resnet50 with batch size 32";
  s.groupKey = {{"model", "resnet50"}, {"batchSize", "32"}, {"imageSize", "224"}};
  s.row = row;
  s.ranks = ranks;
  s.sampleOf = "iteration";
  s.workPerSample = 32;
  s.workUnit = "examples";
  s.samples = std::move(samples);
  return s;
}

Report makeReport() {
  Report r;
  r.name = "resnet-sweep";
  r.kind = "DDP";
  r.versions = {{"distbench", "0.2.0"}, {"torch", "1.13.1"}, {"cuda", "11.7"}};
  r.backend = "nccl";
  r.device = "cuda";
  r.host = {"node-1", "AMD EPYC 7742", 128, {"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"}};
  r.trainers = 2;
  r.parameterServers = 0;
  r.worldSize = 3;
  r.seed = -1234567890123LL;
  r.bucketCapMB = 2.5;
  r.configJson = R"({"apiVersion":"distbench.io/v1alpha1","spec":{"topology":{"trainers":2}}})";
  // Values that need all 17 digits to survive a round trip.
  r.series.push_back(makeSeries("no ddp", 1, {0.1, 0.30000000000000004, 1e-7, 0.5, 0.25}));
  r.series.push_back(makeSeries("1M/2R", 2, {0.2, 0.21, 0.19, 0.2}));
  r.resultsJson = R"({"models":[{"model":"resnet50","rows":[{"row":"no ddp","series":0}]}]})";
  return r;
}

void expectSameReport(const Report& a, const Report& b) {
  EXPECT_EQ(a.schemaVersion, b.schemaVersion);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.versions, b.versions);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.host.hostname, b.host.hostname);
  EXPECT_EQ(a.host.cpuModel, b.host.cpuModel);
  EXPECT_EQ(a.host.logicalCpus, b.host.logicalCpus);
  EXPECT_EQ(a.host.gpus, b.host.gpus);
  EXPECT_EQ(a.trainers, b.trainers);
  EXPECT_EQ(a.parameterServers, b.parameterServers);
  EXPECT_EQ(a.worldSize, b.worldSize);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.bucketCapMB, b.bucketCapMB);
  // Key order may change through a parse; the JSON values must not.
  EXPECT_EQ(value::parse(a.configJson), value::parse(b.configJson));
  EXPECT_EQ(value::parse(a.resultsJson), value::parse(b.resultsJson));
  ASSERT_EQ(a.series.size(), b.series.size());
  for (size_t i = 0; i < a.series.size(); ++i) {
    EXPECT_EQ(a.series[i].group, b.series[i].group);
    EXPECT_EQ(a.series[i].groupKey, b.series[i].groupKey);
    EXPECT_EQ(a.series[i].row, b.series[i].row);
    EXPECT_EQ(a.series[i].ranks, b.series[i].ranks);
    EXPECT_EQ(a.series[i].sampleOf, b.series[i].sampleOf);
    EXPECT_EQ(a.series[i].workPerSample, b.series[i].workPerSample);
    EXPECT_EQ(a.series[i].workUnit, b.series[i].workUnit);
    EXPECT_EQ(a.series[i].samples, b.series[i].samples) << "exact, every bit";
    EXPECT_EQ(a.series[i].runSamples, b.series[i].runSamples);
  }
}

TEST(ReportJson, RoundTripKeepsEveryField) {
  const Report original = makeReport();
  const Report parsed = parseReport(toJson(original));
  expectSameReport(original, parsed);
  EXPECT_EQ(toJson(parsed), toJson(original)) << "stable through a second round";
}

TEST(ReportJson, DocumentHasTheDocumentedShape) {
  const value doc = value::parse(toJson(makeReport()));
  EXPECT_EQ(doc.at("schemaVersion").as_integer(), 2);
  EXPECT_EQ(doc.at("benchmark").at("name").as_string(), "resnet-sweep");
  EXPECT_EQ(doc.at("benchmark").at("kind").as_string(), "DDP");
  EXPECT_EQ(doc.at("versions").at("torch").as_string(), "1.13.1");
  EXPECT_EQ(doc.at("host").at("gpus").size(), 2u);
  EXPECT_EQ(doc.at("topology").at("worldSize").as_integer(), 3);
  EXPECT_EQ(doc.at("bucketCapMB").as_double(), 2.5);
  // Embedded objects, not strings holding JSON.
  ASSERT_TRUE(doc.at("config").is_object());
  EXPECT_EQ(doc.at("config").at("spec").at("topology").at("trainers").as_integer(), 2);
  ASSERT_TRUE(doc.at("results").is_object());
  EXPECT_EQ(doc.at("results").at("models").at(0).at("model").as_string(), "resnet50");
  const value& series = doc.at("series").at(1);
  EXPECT_EQ(series.at("row").as_string(), "1M/2R");
  EXPECT_EQ(series.at("groupKey").at("batchSize").as_string(), "32");
  EXPECT_EQ(series.at("samples").size(), 4u);
}

TEST(ReportJson, OptionalBlocksAreAbsentUnlessSetAndSurviveARoundTrip) {
  Report r = makeReport();
  const value plain = value::parse(toJson(r));
  EXPECT_FALSE(plain.has_field("attribution"));
  EXPECT_FALSE(plain.has_field("local"));
  EXPECT_FALSE(plain.has_field("masterOutput"));
  EXPECT_TRUE(parseReport(toJson(r)).localJson.empty());

  r.attributionJson = R"({"summary":"compute-bound","rows":[]})";
  r.localJson = R"({"links":"bandwidth=1gbit","ranks":[{"rank":0,"linkBitsPerSecond":null}]})";
  const value doc = value::parse(toJson(r));
  ASSERT_TRUE(doc.at("local").is_object()) << "embedded, not a string";
  EXPECT_EQ(doc.at("attribution").at("summary").as_string(), "compute-bound");
  const Report parsed = parseReport(toJson(r));
  EXPECT_EQ(value::parse(parsed.attributionJson), value::parse(r.attributionJson));
  EXPECT_EQ(value::parse(parsed.localJson), value::parse(r.localJson));
}

TEST(ReportJson, TheMastersOutputIsKeptByteForByte) {
  Report r = makeReport();
  r.masterOutput = "-----\n  1M/2R: p50:  0.437s \"quoted\"\tand a tab\nBottleneck: x\n";
  EXPECT_EQ(value::parse(toJson(r)).at("masterOutput").as_string(), r.masterOutput);
  EXPECT_EQ(parseReport(toJson(r)).masterOutput, r.masterOutput);
  value doc = value::parse(toJson(r));
  doc["masterOutput"] = value::number(3);
  EXPECT_THROW(parseReport(doc.serialize()), ReportError);
}

TEST(ReportJson, AnOptionalBlockThatIsNotAnObjectIsNamed) {
  value doc = value::parse(toJson(makeReport()));
  doc["local"] = value::string("1gbit");
  try {
    parseReport(doc.serialize(), "run.json");
    FAIL() << "a string for local was accepted";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("local"), std::string::npos) << e.what();
  }
}

TEST(ReportJson, SummaryIsComputedFromTheSamples) {
  const value doc = value::parse(toJson(makeReport()));
  const value& summary = doc.at("series").at(1).at("summary");
  // Samples 0.19, 0.2, 0.2, 0.21.
  EXPECT_EQ(summary.at("count").as_integer(), 4);
  EXPECT_DOUBLE_EQ(summary.at("p50").as_double(), 0.2);
  EXPECT_DOUBLE_EQ(summary.at("p75").as_double(), 0.2025);
  EXPECT_DOUBLE_EQ(summary.at("min").as_double(), 0.19);
  EXPECT_DOUBLE_EQ(summary.at("max").as_double(), 0.21);
  EXPECT_DOUBLE_EQ(summary.at("mean").as_double(), 0.2);
  EXPECT_DOUBLE_EQ(summary.at("ratePerSecond").at("p50").as_double(), 32 / 0.2);
  EXPECT_DOUBLE_EQ(summary.at("ratePerSecond").at("p75").as_double(), 32 / 0.2025);
}

TEST(ReportJson, ASummaryMadeElsewhereWritesAsItsSamplesWould) {
  const std::vector<double> samples = {0.3, 0.1, 0.25, 0.7, 0.05};
  EXPECT_EQ(summaryToJson(summarize(samples)), summaryToJson(samples));
}

TEST(ReportJson, ZeroSecondPercentileHasNoRate) {
  Report r = makeReport();
  r.series[0].samples = {0.0, 0.0, 0.0};
  const value doc = value::parse(toJson(r));
  EXPECT_TRUE(doc.at("series").at(0).at("summary").at("ratePerSecond").at("p50").is_null());
}

TEST(ReportJson, SummaryIsIgnoredAndUnknownFieldsAreTolerated) {
  value doc = value::parse(toJson(makeReport()));
  doc["series"][0]["summary"] = value::string("not even an object");
  doc["futureField"] = value::number(7);
  doc["host"]["rackPosition"] = value::string("r12");
  doc["series"][1]["phaseSamples"] = value::array();
  doc["benchmark"]["namespace"] = value::string("perf");
  expectSameReport(parseReport(doc.serialize()), makeReport());
}

TEST(ReportJson, CudaAndNcclVersionsAreOptional) {
  Report r = makeReport();
  r.versions = {{"distbench", "0.2.0"}, {"torch", "1.13.1"}};
  EXPECT_EQ(parseReport(toJson(r)).versions, r.versions);
}

// A valid document with one change, read as base.json.
std::string errorOf(const std::function<void(value&)>& change) {
  value doc = value::parse(toJson(makeReport()));
  change(doc);
  try {
    parseReport(doc.serialize(), "base.json");
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ReportJson, MissingFieldsAreNamedWithTheirPath) {
  EXPECT_EQ(errorOf([](value& d) { d.erase("benchmark"); }),
            "base.json: benchmark: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d["benchmark"].erase("kind"); }),
            "base.json: benchmark.kind: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d["topology"].erase("worldSize"); }),
            "base.json: topology.worldSize: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d["host"].erase("gpus"); }),
            "base.json: host.gpus: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d.erase("config"); }), "base.json: config: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d.erase("results"); }),
            "base.json: results: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d.erase("series"); }), "base.json: series: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d["series"][1].erase("row"); }),
            "base.json: series[1].row: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0].erase("samples"); }),
            "base.json: series[0].samples: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d.erase("bucketCapMB"); }),
            "base.json: bucketCapMB: missing (required)");
}

TEST(ReportJson, WrongTypesAreNamedWithTheirPath) {
  EXPECT_EQ(errorOf([](value& d) { d["benchmark"]["kind"] = value::number(1); }),
            "base.json: benchmark.kind: must be a string");
  EXPECT_EQ(errorOf([](value& d) { d["benchmark"] = value::string("DDP"); }),
            "base.json: benchmark: must be an object");
  EXPECT_EQ(errorOf([](value& d) { d["versions"]["torch"] = value::number(1.13); }),
            "base.json: versions.torch: must be a string");
  EXPECT_EQ(errorOf([](value& d) { d["host"]["logicalCpus"] = value::number(1.5); }),
            "base.json: host.logicalCpus: must be an integer");
  EXPECT_EQ(errorOf([](value& d) { d["host"]["gpus"] = value::string("A100"); }),
            "base.json: host.gpus: must be a list");
  EXPECT_EQ(errorOf([](value& d) { d["host"]["gpus"][1] = value::null(); }),
            "base.json: host.gpus[1]: must be a string");
  EXPECT_EQ(errorOf([](value& d) { d["seed"] = value::string("0"); }),
            "base.json: seed: must be an integer");
  EXPECT_EQ(errorOf([](value& d) { d["bucketCapMB"] = value::string("25"); }),
            "base.json: bucketCapMB: must be a number");
  EXPECT_EQ(errorOf([](value& d) { d["config"] = value::string("{}"); }),
            "base.json: config: must be an object");
  EXPECT_EQ(errorOf([](value& d) { d["results"] = value::array(); }),
            "base.json: results: must be an object");
  EXPECT_EQ(errorOf([](value& d) { d["series"] = value::object(); }),
            "base.json: series: must be a list");
  EXPECT_EQ(errorOf([](value& d) { d["series"][1] = value::number(3); }),
            "base.json: series[1]: must be an object");
  EXPECT_EQ(errorOf([](value& d) { d["series"][1]["groupKey"]["batchSize"] = value::number(32); }),
            "base.json: series[1].groupKey.batchSize: must be a string");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["ranks"] = value::string("1"); }),
            "base.json: series[0].ranks: must be an integer");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["workPerSample"] = value::string("32"); }),
            "base.json: series[0].workPerSample: must be a number");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["samples"] = value::number(0.5); }),
            "base.json: series[0].samples: must be a list");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["samples"][4] = value::string("0.5"); }),
            "base.json: series[0].samples[4]: must be a number");
}

TEST(ReportJson, BadValuesAreNamedWithTheirPath) {
  EXPECT_EQ(errorOf([](value& d) { d["series"][1]["samples"] = value::array(); }),
            "base.json: series[1].samples: must not be empty");
  EXPECT_EQ(errorOf([](value& d) { d["series"][1]["samples"][2] = value::number(-0.1); }),
            "base.json: series[1].samples[2]: must be between 0 and 1e+07 seconds, not -0.1");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["ranks"] = value::number(0); }),
            "base.json: series[0].ranks: must be between 1 and 65536");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["workPerSample"] = value::number(-1); }),
            "base.json: series[0].workPerSample: must be between 0 and 1e+15, not -1");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["sampleOf"] = value::string("step"); }),
            "base.json: series[0].sampleOf: must be \"iteration\", \"epoch\" or \"op\", not "
            "\"step\"");
  EXPECT_EQ(errorOf([](value& d) { d["series"][0]["workUnit"] = value::string("flops"); }),
            "base.json: series[0].workUnit: must be \"examples\" or \"bytes\", not \"flops\"");
}

// A valid document with one number spelled `literal` in the text (JSON can
// spell 1e999; a double cannot hold it, and reads it as infinity).
std::string errorOfLiteral(const std::function<void(value&, const value&)>& place,
                           const std::string& literal) {
  value doc = value::parse(toJson(makeReport()));
  const value marker = value::number(424242.125);
  place(doc, marker);
  std::string text = doc.serialize();
  const size_t at = text.find("424242.125");
  if (at == std::string::npos) return "(marker not found)";
  text.replace(at, std::string("424242.125").size(), literal);
  try {
    parseReport(text, "base.json");
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ReportJson, ANonFiniteOrAbsurdNumberIsRefusedNamingTheField) {
  const std::string finite = "must be a finite number";
  struct Case {
    std::function<void(value&, const value&)> place;
    std::string literal, field, why;
  };
  const std::vector<Case> cases = {
      {[](value& d, const value& m) { d["series"][0]["samples"][1] = m; }, "1e999",
       "series[0].samples[1]", finite},
      {[](value& d, const value& m) { d["series"][0]["samples"][1] = m; }, "-1e999",
       "series[0].samples[1]", finite},
      {[](value& d, const value& m) { d["series"][0]["workPerSample"] = m; }, "1e999",
       "series[0].workPerSample", finite},
      {[](value& d, const value& m) { d["bucketCapMB"] = m; }, "1e999", "bucketCapMB", finite},
      // Anywhere: a report carrying one could not be written back, nor copied.
      {[](value& d, const value& m) { d["results"]["models"] = value::array({m}); }, "1e999",
       "results.models[0]", finite},
      {[](value& d, const value& m) { d["series"][0]["samples"][1] = m; }, "1e300",
       "series[0].samples[1]", "must be between 0 and 1e+07 seconds"},
      {[](value& d, const value& m) { d["series"][0]["samples"][1] = m; }, "1e-300",
       "series[0].samples[1]", "must be 0 or at least 1e-12 seconds"},
      {[](value& d, const value& m) { d["series"][0]["workPerSample"] = m; }, "1e16",
       "series[0].workPerSample", "must be between 0 and 1e+15"},
      {[](value& d, const value& m) { d["bucketCapMB"] = m; }, "1e7", "bucketCapMB",
       "must be between 0 and 1e+06"},
      {[](value& d, const value& m) { d["series"][0]["ranks"] = m; }, "100000", "series[0].ranks",
       "must be between 1 and 65536"},
      {[](value& d, const value& m) { d["topology"]["worldSize"] = m; }, "1000000000",
       "topology.worldSize", "must be between 1 and 65536"},
      {[](value& d, const value& m) { d["topology"]["trainers"] = m; }, "-1", "topology.trainers",
       "must be between 0 and 65536"},
  };
  for (const Case& c : cases) {
    const std::string error = errorOfLiteral(c.place, c.literal);
    EXPECT_EQ(error.rfind("base.json: " + c.field + ": " + c.why, 0), 0u)
        << c.field << " = " << c.literal << ": " << error;
  }
}

TEST(ReportJson, RunSamplesAreWrittenOnlyForAPoolAndSurviveARoundTrip) {
  Report r = makeReport();
  EXPECT_FALSE(value::parse(toJson(r)).at("series").at(1).has_field("runSamples"))
      << "one run: the field is absent, as in every report before pools";
  r.series[1].runSamples = {3, 1};
  const value doc = value::parse(toJson(r));
  EXPECT_EQ(doc.at("series").at(1).at("runSamples").size(), 2u);
  EXPECT_EQ(doc.at("series").at(1).at("runSamples").at(0).as_integer(), 3);
  expectSameReport(r, parseReport(toJson(r)));
}

TEST(ReportJson, RunSamplesMustCountTheSamples) {
  auto runs = [](std::vector<int> counts) {
    return [counts](value& d) {
      value list = value::array(counts.size());
      for (size_t i = 0; i < counts.size(); ++i) list[i] = value::number(counts[i]);
      d["series"][1]["runSamples"] = list;
    };
  };
  EXPECT_EQ(errorOf(runs({2, 1})),
            "base.json: series[1].runSamples: adds up to 3 samples, the series has 4");
  EXPECT_EQ(errorOf(runs({4, 0})), "base.json: series[1].runSamples[1]: must be at least 1");
  EXPECT_EQ(errorOf([](value& d) { d["series"][1]["runSamples"] = value::number(4); }),
            "base.json: series[1].runSamples: must be a list");
}

TEST(ReportJson, OnlySchemaVersionTwoIsRead) {
  const std::string older = errorOf([](value& d) {
    d["schemaVersion"] = value::number(1);
    d.erase("series");  // a version-1 report: the version must be what is reported
  });
  EXPECT_EQ(
      older.rfind("base.json: schemaVersion: is 1, this distbench reads schema version 2;", 0), 0u)
      << older;
  EXPECT_NE(older.find("older distbench"), std::string::npos) << older;

  const std::string newer = errorOf([](value& d) { d["schemaVersion"] = value::number(3); });
  EXPECT_EQ(
      newer.rfind("base.json: schemaVersion: is 3, this distbench reads schema version 2;", 0), 0u)
      << newer;
  EXPECT_NE(newer.find("newer distbench"), std::string::npos) << newer;

  EXPECT_EQ(errorOf([](value& d) { d.erase("schemaVersion"); }),
            "base.json: schemaVersion: missing (required)");
  EXPECT_EQ(errorOf([](value& d) { d["schemaVersion"] = value::string("2"); }),
            "base.json: schemaVersion: must be an integer");
}

TEST(ReportJson, NotJsonOrNotAnObject) {
  try {
    parseReport("{\"schemaVersion\": 2,", "base.json");
    FAIL() << "no error";
  } catch (const ReportError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("base.json: not valid JSON: ", 0), 0u)
        << error.what();
  }
  try {
    parseReport("[1, 2]", "test.json");
    FAIL() << "no error";
  } catch (const ReportError& error) {
    EXPECT_STREQ(error.what(), "test.json: must be a JSON object (a report)");
  }
}

TEST(ReportJson, WritingRefusesWhatCannotBeWritten) {
  Report emptySeries = makeReport();
  emptySeries.series[1].samples.clear();
  EXPECT_THROW(toJson(emptySeries), ReportError);

  Report badConfig = makeReport();
  badConfig.configJson = "{not json";
  EXPECT_THROW(toJson(badConfig), ReportError);
  badConfig.configJson = "[]";
  EXPECT_THROW(toJson(badConfig), ReportError);

  Report badResults = makeReport();
  badResults.resultsJson = "3";
  EXPECT_THROW(toJson(badResults), ReportError);
}

class ReportFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "report-json-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string loadError(const std::string& file) const {
    try {
      loadReportFile(file);
    } catch (const ReportError& error) {
      return error.what();
    }
    return "(no error)";
  }

  fs::path dir_;
};

TEST_F(ReportFiles, WriteThenLoad) {
  writeReportFile(path("r.json"), makeReport());
  expectSameReport(loadReportFile(path("r.json")), makeReport());
  EXPECT_FALSE(fs::exists(path("r.json.partial")));

  // Overwrites an earlier report.
  Report other = makeReport();
  other.name = "second";
  writeReportFile(path("r.json"), other);
  EXPECT_EQ(loadReportFile(path("r.json")).name, "second");
}

TEST_F(ReportFiles, FileErrorsNameThePath) {
  EXPECT_EQ(loadError(path("missing.json")),
            "cannot read " + path("missing.json") + ": No such file or directory");
  EXPECT_EQ(loadError(dir_.string()), "cannot read " + dir_.string() + ": Is a directory");

  std::ofstream(path("broken.json")) << "{\"schemaVersion\": 2, \"benchmark\": 5}";
  EXPECT_EQ(loadError(path("broken.json")), path("broken.json") + ": benchmark: must be an object");

  try {
    writeReportFile(path("no/such/dir/r.json"), makeReport());
    FAIL() << "no error";
  } catch (const ReportError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot write " + path("no/such/dir/r.json") + ": No such file or directory");
  }
}

TEST_F(ReportFiles, FailedWriteKeepsTheEarlierReport) {
  writeReportFile(path("r.json"), makeReport());
  Report bad = makeReport();
  bad.series[0].samples.clear();
  EXPECT_THROW(writeReportFile(path("r.json"), bad), ReportError);
  EXPECT_EQ(loadReportFile(path("r.json")).series[0].samples, makeReport().series[0].samples);
  EXPECT_FALSE(fs::exists(path("r.json.partial")));
}

// A local run writes its report as root, often under /tmp: the old temporary
// name PATH.partial was opened following links, so a link planted there
// overwrote whatever it named with the report.
TEST_F(ReportFiles, APlantedPartialLinkIsNotFollowed) {
  std::ofstream(path("victim")) << "keep";
  fs::create_symlink(path("victim"), path("out.json.partial"));
  writeReportFile(path("out.json"), makeReport());
  std::stringstream victim;
  victim << std::ifstream(path("victim")).rdbuf();
  EXPECT_EQ(victim.str(), "keep");
  expectSameReport(loadReportFile(path("out.json")), makeReport());
  EXPECT_TRUE(fs::is_symlink(path("out.json.partial")));
}

TEST_F(ReportFiles, AReportPathThatIsALinkIsRefusedAndWhatItNamesKept) {
  std::ofstream(path("victim")) << "keep";
  fs::create_symlink(path("victim"), path("out.json"));
  try {
    writeReportFile(path("out.json"), makeReport());
    FAIL() << "wrote through a symbolic link";
  } catch (const ReportError& error) {
    EXPECT_NE(std::string(error.what()).find(path("out.json") + ": it is a symbolic link"),
              std::string::npos)
        << error.what();
  }
  std::stringstream victim;
  victim << std::ifstream(path("victim")).rdbuf();
  EXPECT_EQ(victim.str(), "keep");
  EXPECT_TRUE(fs::is_symlink(path("out.json")));
}

}  // namespace
}  // namespace distbench::report
