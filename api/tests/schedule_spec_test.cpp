// DistBenchmarkSchedule: parsing (strict, defaults, YAML and JSON),
// validation with full field paths, the schedule name's bound that follows
// from its runs' names, and the run each firing creates.
#include "distbench/api/schedule_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "utc_time.h"

namespace distbench::api {
namespace {

using test::utc;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;

const std::string kScheduleHeader =
    "apiVersion: distbench.io/v1alpha1\n"
    "kind: DistBenchmarkSchedule\n"
    "metadata:\n"
    "  name: nightly\n"
    "  namespace: team-a\n";

// The smallest valid schedule: its template is kMinimal's spec.
const std::string kMinimalSchedule = kScheduleHeader +
                                     "spec:\n"
                                     "  schedule: \"*/5 * * * *\"\n"
                                     "  template:\n"
                                     "    spec:\n"
                                     "      topology:\n"
                                     "        trainers: 3\n"
                                     "        parameterServers: 2\n";

// kMinimalSchedule with `extra` lines added under spec (indented by 2).
std::string withSpec(const std::string& extra) { return kMinimalSchedule + extra; }

std::vector<FieldError> parseErrors(const std::string& text) {
  try {
    parseDistBenchmarkSchedule(text);
  } catch (const SpecError& e) {
    return e.errors();
  }
  return {};
}

// The errors' messages at `field`, joined.
std::string errorAt(const std::string& text, const std::string& field) {
  std::string messages;
  for (const FieldError& e : parseErrors(text)) {
    if (e.field == field) messages += e.message + "\n";
  }
  return messages;
}

TEST(ScheduleSpecTest, MinimalScheduleTakesTheDefaults) {
  const DistBenchmarkSchedule s = parseDistBenchmarkSchedule(kMinimalSchedule);
  EXPECT_EQ(s.kind, kScheduleKind);
  EXPECT_EQ(s.metadata.name, "nightly");
  EXPECT_EQ(s.metadata.namespace_, "team-a");
  EXPECT_EQ(s.spec.schedule, "*/5 * * * *");
  EXPECT_EQ(s.spec.timeZone, "UTC");
  EXPECT_EQ(s.spec.concurrencyPolicy, ConcurrencyPolicy::Forbid);
  EXPECT_FALSE(s.spec.startingDeadlineSeconds.has_value());
  EXPECT_FALSE(s.spec.suspend);
  EXPECT_EQ(s.spec.successfulRunsHistoryLimit, 3);
  EXPECT_EQ(s.spec.failedRunsHistoryLimit, 1);
  EXPECT_EQ(s.spec.baseline.runs, 5);
  EXPECT_EQ(s.spec.baseline.thresholdPercent, 5);
  EXPECT_TRUE(s.spec.template_.metadata.labels.empty());
  // The template's spec means what the same spec means in a DistBenchmark.
  EXPECT_EQ(s.spec.template_.spec, test::minimalBenchmark().spec);
}

TEST(ScheduleSpecTest, EveryFieldReadsFromYamlAndJson) {
  const std::string yaml = kScheduleHeader +
                           "  uid: 0b5c-11\n"
                           "  generation: 3\n"
                           "  creationTimestamp: \"2026-11-27T09:00:00Z\"\n"
                           "  resourceVersion: \"42\"\n"
                           "spec:\n"
                           "  schedule: \"@daily\"\n"
                           "  timeZone: Europe/Berlin\n"
                           "  concurrencyPolicy: Replace\n"
                           "  startingDeadlineSeconds: 300\n"
                           "  suspend: true\n"
                           "  successfulRunsHistoryLimit: 10\n"
                           "  failedRunsHistoryLimit: 0\n"
                           "  baseline: {runs: 8, thresholdPercent: 2.5}\n"
                           "  template:\n"
                           "    metadata:\n"
                           "      labels: {team: a}\n"
                           "      annotations: {example.com/note: nightly}\n"
                           "    spec:\n"
                           "      topology: {trainers: 2}\n"
                           "      benchmark: {kind: DDP, ddp: {models: [smallcnn]}}\n"
                           "status:\n"
                           "  lastScheduleTime: \"2026-11-27T00:00:00Z\"\n";
  const DistBenchmarkSchedule s = parseDistBenchmarkSchedule(yaml);
  EXPECT_EQ(s.metadata.uid, "0b5c-11");
  EXPECT_EQ(s.metadata.generation, 3);
  EXPECT_EQ(s.metadata.creationTimestamp, "2026-11-27T09:00:00Z");
  EXPECT_EQ(s.spec.schedule, "@daily");
  EXPECT_EQ(s.spec.timeZone, "Europe/Berlin");
  EXPECT_EQ(s.spec.concurrencyPolicy, ConcurrencyPolicy::Replace);
  EXPECT_EQ(s.spec.startingDeadlineSeconds, 300);
  EXPECT_TRUE(s.spec.suspend);
  EXPECT_EQ(s.spec.successfulRunsHistoryLimit, 10);
  EXPECT_EQ(s.spec.failedRunsHistoryLimit, 0);
  EXPECT_EQ(s.spec.baseline.runs, 8);
  EXPECT_EQ(s.spec.baseline.thresholdPercent, 2.5);
  EXPECT_EQ(s.spec.template_.metadata.labels.at("team"), "a");
  EXPECT_EQ(s.spec.template_.metadata.annotations.at("example.com/note"), "nightly");
  EXPECT_EQ(s.spec.template_.spec.benchmark.kind, BenchmarkKind::DDP);
  EXPECT_EQ(s.spec.template_.spec.topology.parameterServers, 0);  // DDP's default

  const std::string json =
      R"({"apiVersion":"distbench.io/v1alpha1","kind":"DistBenchmarkSchedule",)"
      R"("metadata":{"name":"nightly","namespace":"team-a","uid":"0b5c-11","generation":3,)"
      R"("creationTimestamp":"2026-11-27T09:00:00Z"},)"
      R"("spec":{"schedule":"@daily","timeZone":"Europe/Berlin","concurrencyPolicy":"Replace",)"
      R"("startingDeadlineSeconds":300,"suspend":true,"successfulRunsHistoryLimit":10,)"
      R"("failedRunsHistoryLimit":0,"baseline":{"runs":8,"thresholdPercent":2.5},)"
      R"("template":{"metadata":{"labels":{"team":"a"},"annotations":{"example.com/note":"nightly"}},)"
      R"("spec":{"topology":{"trainers":2},"benchmark":{"kind":"DDP","ddp":{"models":["smallcnn"]}}}}}})";
  const DistBenchmarkSchedule fromJson = parseDistBenchmarkSchedule(json);
  EXPECT_EQ(fromJson.spec.template_.spec, s.spec.template_.spec);
  EXPECT_EQ(fromJson.spec.baseline.thresholdPercent, 2.5);
  EXPECT_EQ(fromJson.spec.startingDeadlineSeconds, 300);
  EXPECT_EQ(fromJson.spec.template_.metadata.annotations, s.spec.template_.metadata.annotations);
}

TEST(ScheduleSpecTest, UnknownFieldsAreRefusedWithTheirPath) {
  const std::string text = kScheduleHeader +
                           "spec:\n"
                           "  schedule: \"@hourly\"\n"
                           "  scheduel: x\n"
                           "  baseline: {runz: 2}\n"
                           "  template:\n"
                           "    metadata: {name: x}\n"
                           "    spek: {}\n"
                           "    spec:\n"
                           "      topology: {trainerz: 2}\n";
  const std::vector<FieldError> errors = parseErrors(text);
  for (const char* field : {"spec.scheduel", "spec.baseline.runz", "spec.template.metadata.name",
                            "spec.template.spek", "spec.template.spec.topology.trainerz"}) {
    EXPECT_THAT(errors, Contains(AllOf(Field(&FieldError::field, field),
                                       Field(&FieldError::message, "unknown field"))))
        << field;
  }
}

TEST(ScheduleSpecTest, TemplateErrorsNameTheFieldUnderTheTemplate) {
  const std::string text = kScheduleHeader +
                           "spec:\n"
                           "  schedule: \"@hourly\"\n"
                           "  template:\n"
                           "    spec:\n"
                           "      topology: {trainers: 0}\n"
                           "      benchmark: {ddp: {}}\n"
                           "      runtime: {masterPort: x}\n";
  EXPECT_THAT(errorAt(text, "spec.template.spec.topology.trainers"), HasSubstr("≥ 1"));
  EXPECT_THAT(errorAt(text, "spec.template.spec.benchmark.ddp"), HasSubstr("only allowed"));
  EXPECT_THAT(errorAt(text, "spec.template.spec.runtime.masterPort"), HasSubstr("integer"));
  for (const FieldError& e : parseErrors(text)) {
    EXPECT_EQ(e.field.rfind("spec.template.spec.", 0), 0u) << e.str();
  }
}

TEST(ScheduleSpecTest, TemplateBaselineIsRefused) {
  EXPECT_THAT(errorAt(withSpec("      baseline: {benchmark: other}\n"),
                      "spec.template.spec.baseline"),
              HasSubstr("set by the schedule"));
}

TEST(ScheduleSpecTest, MissingPartsAreRequired) {
  EXPECT_THAT(errorAt(kScheduleHeader + "spec:\n  template: {}\n", "spec.schedule"),
              HasSubstr("required"));
  EXPECT_THAT(errorAt(kScheduleHeader + "spec:\n  schedule: \"@daily\"\n", "spec.template"),
              HasSubstr("required"));
  EXPECT_THAT(errorAt(kScheduleHeader, "spec"), HasSubstr("required"));
  EXPECT_THAT(errorAt("kind: DistBenchmarkSchedule\nspec: {schedule: '@daily', template: {}}\n",
                      "metadata.name"),
              HasSubstr("required"));
  EXPECT_THAT(errorAt("a: 1\n---\nb: 2\n", "<document>"), HasSubstr("expected one"));
  EXPECT_THAT(errorAt(kMinimalSchedule + "  - x\n", "<document>"), HasSubstr("line"));
}

TEST(ScheduleSpecTest, ScheduleErrorsNameTheCronField) {
  auto scheduled = [](const std::string& schedule) {
    return kScheduleHeader + "spec:\n  schedule: \"" + schedule + "\"\n  template: {}\n";
  };
  EXPECT_THAT(errorAt(scheduled("61 * * * *"), "spec.schedule"), HasSubstr("minute"));
  EXPECT_THAT(errorAt(scheduled("TZ=Europe/Berlin 0 9 * * *"), "spec.schedule"),
              HasSubstr("spec.timeZone"));
  EXPECT_THAT(errorAt(scheduled("@every 1h"), "spec.schedule"), HasSubstr("spec.timeZone"));
  EXPECT_THAT(errorAt(scheduled("0 0 30 2 *"), "spec.schedule"), HasSubstr("never fires"));
  EXPECT_EQ(errorAt(scheduled("0 0 29 2 *"), "spec.schedule"), "");
}

TEST(ScheduleSpecTest, TimeZoneMustBeAnIanaZone) {
  EXPECT_EQ(errorAt(withSpec("  timeZone: America/New_York\n"), "spec.timeZone"), "");
  EXPECT_THAT(errorAt(withSpec("  timeZone: Mars/Base\n"), "spec.timeZone"),
              AllOf(HasSubstr("unknown time zone"), HasSubstr("Mars/Base")));
  EXPECT_THAT(errorAt(withSpec("  timeZone: ../etc/passwd\n"), "spec.timeZone"),
              HasSubstr("not an IANA zone name"));
}

// Validation parses spec.schedule and spec.timeZone once and the schedule
// keeps them, so the controller and `distbench validate` parse neither.
TEST(ScheduleSpecTest, KeepsTheScheduleParsed) {
  const DistBenchmarkSchedule s =
      parseDistBenchmarkSchedule(withSpec("  timeZone: Europe/Berlin\n"));
  ASSERT_TRUE(s.spec.timing.has_value());
  EXPECT_EQ(s.spec.timing->cron.expression(), s.spec.schedule);
  EXPECT_EQ(s.spec.timing->zone.name(), "Europe/Berlin");
  // The one reader, for a reader with only the two texts: validation's errors.
  std::vector<FieldError> errors;
  EXPECT_FALSE(parseScheduleTiming("0 0 30 2 *", "Mars/Base", &errors).has_value());
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].field, "spec.timeZone");
  EXPECT_EQ(errors[1].field, "spec.schedule");
  EXPECT_THAT(errors[1].message, HasSubstr("never fires"));
  EXPECT_TRUE(parseScheduleTiming("*/5 * * * *", "UTC").has_value());
}

TEST(ScheduleSpecTest, ConcurrencyPolicyRefusesAllow) {
  EXPECT_THAT(errorAt(withSpec("  concurrencyPolicy: Allow\n"), "spec.concurrencyPolicy"),
              HasSubstr("disturb each other"));
  EXPECT_THAT(errorAt(withSpec("  concurrencyPolicy: forbid\n"), "spec.concurrencyPolicy"),
              HasSubstr("Forbid, Replace"));
}

TEST(ScheduleSpecTest, BoundsAreEnforcedAtTheirEdges) {
  const struct {
    const char* line;
    const char* field;
    bool ok;
  } cases[] = {
      {"  startingDeadlineSeconds: 0\n", "spec.startingDeadlineSeconds", true},
      {"  startingDeadlineSeconds: 31536000\n", "spec.startingDeadlineSeconds", true},
      {"  startingDeadlineSeconds: -1\n", "spec.startingDeadlineSeconds", false},
      {"  startingDeadlineSeconds: 31536001\n", "spec.startingDeadlineSeconds", false},
      {"  successfulRunsHistoryLimit: 100\n", "spec.successfulRunsHistoryLimit", true},
      {"  successfulRunsHistoryLimit: 101\n", "spec.successfulRunsHistoryLimit", false},
      {"  failedRunsHistoryLimit: -1\n", "spec.failedRunsHistoryLimit", false},
      {"  failedRunsHistoryLimit: 0\n", "spec.failedRunsHistoryLimit", true},
      {"  baseline: {runs: 1}\n", "spec.baseline.runs", true},
      {"  baseline: {runs: 50}\n", "spec.baseline.runs", true},
      {"  baseline: {runs: 0}\n", "spec.baseline.runs", false},
      {"  baseline: {runs: 51}\n", "spec.baseline.runs", false},
      // The rule of a DistBenchmark's and of --threshold (regression_threshold.h).
      {"  baseline: {thresholdPercent: -0.01}\n", "spec.baseline.thresholdPercent", false},
      {"  baseline: {thresholdPercent: 0}\n", "spec.baseline.thresholdPercent", true},
      {"  baseline: {thresholdPercent: 1000.5}\n", "spec.baseline.thresholdPercent", true},
      {"  suspend: maybe\n", "spec.suspend", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(errorAt(withSpec(c.line), c.field).empty(), c.ok) << c.line;
  }
}

TEST(ScheduleSpecTest, NameIsBoundedByItsRunsPodNames) {
  // Runs are "<name>-<8 digits>"; with 3 trainers their longest pod name
  // adds "-trainer-2": 19 characters after the schedule's name, of 63.
  auto named = [](const std::string& name) {
    std::string text = kMinimalSchedule;
    text.replace(text.find("name: nightly"), 13, "name: " + name);
    return text;
  };
  EXPECT_EQ(errorAt(named(std::string(44, 'a')), "metadata.name"), "");
  EXPECT_THAT(errorAt(named(std::string(45, 'a')), "metadata.name"),
              AllOf(HasSubstr("too long for its runs' names"), HasSubstr("-99999999")));
  EXPECT_THAT(errorAt(named("Nightly"), "metadata.name"), HasSubstr("DNS-1123"));
  EXPECT_THAT(errorAt(named("1nightly"), "metadata.name"), HasSubstr("starting with a letter"));
}

TEST(ScheduleSpecTest, TemplateMetadataMustBeValidOnARun) {
  EXPECT_THAT(errorAt(withSpec("    metadata: {labels: {distbench.io/schedule: x}}\n"),
                      "spec.template.metadata.labels.distbench.io/schedule"),
              HasSubstr("set by the schedule"));
  EXPECT_THAT(errorAt(withSpec("    metadata: {labels: {\"bad key!\": x}}\n"),
                      "spec.template.metadata.labels.bad key!"),
              HasSubstr("not a label key"));
  EXPECT_THAT(errorAt(withSpec("    metadata: {labels: {team: \"a b\"}}\n"),
                      "spec.template.metadata.labels.team"),
              HasSubstr("not a label value"));
  EXPECT_THAT(errorAt(withSpec("    metadata: {annotations: {distbench.io/scheduled-at: x}}\n"),
                      "spec.template.metadata.annotations.distbench.io/scheduled-at"),
              HasSubstr("set by the schedule"));
}

TEST(ScheduleSpecTest, RunNamesCountMinutesAndSortByTime) {
  // 2026-11-27T09:00Z is 1795770000 s after the epoch: 29929500 minutes.
  EXPECT_EQ(scheduledRunName("nightly", utc(2026, 11, 27, 9)), "nightly-29929500");
  EXPECT_EQ(scheduledRunName("nightly", utc(2026, 11, 27, 9, 0, 59)), "nightly-29929500");
  // Eight digits from 2160's first minutes back to 1990: names sort as times.
  EXPECT_EQ(scheduledRunName("n", utc(2159, 12, 31, 23, 59)).size(), 2u + kRunSuffixDigits);
  EXPECT_EQ(scheduledRunName("n", utc(1990, 1, 1)).size(), 2u + kRunSuffixDigits);
  EXPECT_LT(scheduledRunName("n", utc(2026, 11, 27, 9)), scheduledRunName("n", utc(2026, 11, 27, 10)));
  EXPECT_EQ(scheduleBaselineConfigMapName("nightly"), "nightly-baseline");
}

TEST(ScheduleSpecTest, ScheduledRunIsTheTemplateLabelledWithItsSchedule) {
  DistBenchmarkSchedule s = parseDistBenchmarkSchedule(
      withSpec("    metadata: {labels: {team: a}, annotations: {note: x}}\n"));
  const DistBenchmark run = scheduledRun(s, utc(2026, 11, 27, 9));
  EXPECT_EQ(run.kind, kKind);
  EXPECT_EQ(run.metadata.name, "nightly-29929500");
  EXPECT_EQ(run.metadata.namespace_, "team-a");
  EXPECT_EQ(run.metadata.labels,
            (std::map<std::string, std::string>{{"team", "a"}, {kScheduleLabel, "nightly"}}));
  EXPECT_EQ(run.metadata.annotations,
            (std::map<std::string, std::string>{{"note", "x"},
                                                {kScheduledAtAnnotation, "2026-11-27T09:00:00Z"}}));
  EXPECT_EQ(run.spec, s.spec.template_.spec);
  EXPECT_FALSE(run.spec.baseline.has_value());
  // What the operator creates passes DistBenchmark validation.
  EXPECT_TRUE(validate(run).empty());
  EXPECT_EQ(parseDistBenchmark(toYaml(run)), run);
}

}  // namespace
}  // namespace distbench::api
