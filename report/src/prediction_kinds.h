// What prediction.cpp hands each kind's model: the report, the links
// before (as measured) and after (as the options say), eta, and readers
// for the results JSON. Private to the report library.
#pragma once

#include <cpprest/json.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/report/predict_options.h"
#include "distbench/report/report.h"
#include "distbench/report/row_prediction.h"

namespace distbench::report::prediction {

class Context {
 public:
  Context(const Report& report, const PredictOptions& options, double efficiency,
          std::vector<std::string>& notes);

  const Report& report() const { return report_; }
  double efficiency() const { return efficiency_; }
  std::optional<int> worldSize() const { return worldSize_; }
  std::optional<int> parameterServers() const { return options_.parameterServers; }
  // A rank's link in the measured run (the report's `local` block; an
  // unlisted or unshaped rank: unlimited) and as the options predict it.
  double measuredLink(int rank) const;
  double targetLink(int rank) const;
  // The slowest of ranks first..first+count-1.
  double slowestMeasured(int first, int count) const;
  double slowestTarget(int first, int count) const;
  // The slowest of those links as the model sends over it: its rate and its
  // token bucket. Measured: the bucket the report's `local` block gives (a
  // shaped link of an older report: tbf's); target: the options' burst for
  // a link they set, the measured one's for a link left as measured.
  struct LinkView {
    double bitsPerSecond = 0;
    double burstBytes = 0;
  };
  LinkView measuredLinkView(int first, int count) const;
  LinkView targetLinkView(int first, int count) const;

  // Whether the run's ranks shared one host's CPUs: a local run (the
  // `local` block), or a CPU run with more ranks than the host has CPUs.
  bool sharesCpus() const;
  // How much longer a rank's compute takes with `after` busy ranks on the
  // host than with `before`: max(1, after / CPUs) / max(1, before / CPUs)
  // where ranks share CPUs, else 1.
  double contention(int before, int after) const;
  // Sets row.lowSeconds, highSeconds and uncertainty (prediction_interval.cpp).
  void setInterval(RowPrediction& row, int seriesIndex, double contention,
                   bool worldSizeChanged) const;
  // A row named as series[index] is, with its measured p50.
  RowPrediction rowFor(int index, const std::string& path) const;
  // p50 of series[index] (ReportError naming `path` if there is none).
  double seriesP50(int index, const std::string& path) const;
  const Series& series(int index, const std::string& path) const;
  void note(const std::string& text) const;

 private:
  const Report& report_;
  PredictOptions options_;
  double efficiency_;
  std::optional<int> worldSize_;
  std::map<int, double> measuredLinks_;
  std::map<int, double> measuredBursts_;  // bytes, where `local` records them
  double burstFor(int rank, double bitsPerSecond, bool overridden) const;
  std::vector<std::string>& notes_;
};

// Readers that tolerate what older reports lack: absent or not a number is
// nullopt. What a crafted report could hold is refused with a ReportError
// naming `path`.`name`: a number that is not finite (1e999), or a whole
// number outside min..max.
std::optional<double> number(const web::json::value& object, const std::string& name,
                             const std::string& path = "");
std::optional<int> wholeNumber(const web::json::value& object, const std::string& name,
                               const std::string& path, int min, int max);
// p50 of object[name] (a summary), if present.
std::optional<double> p50(const web::json::value& object, const std::string& name,
                          const std::string& path = "");
// A groupKey value as a number.
std::optional<double> keyNumber(const Series& series, const std::string& key);

// Fills bound and scalingEfficiency from predicted and communication.
void classify(RowPrediction& row, double computeOnlySeconds);

std::vector<RowPrediction> predictDdp(const web::json::value& results, const Context& context);
std::vector<RowPrediction> predictHybrid(const web::json::value& results, const Context& context);
std::vector<RowPrediction> predictCollectives(const Context& context);

}  // namespace distbench::report::prediction
