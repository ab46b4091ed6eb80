// `distbench predict`: what a measured run's rows would take at another link
// speed or world size (report/prediction.h; the model: docs/performance.md,
// "Prediction").
#include <iostream>

#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/exit_codes.h"
#include "distbench/report/alpha_beta.h"
#include "distbench/report/bit_rate.h"
#include "distbench/report/prediction.h"
#include "distbench/report/report_json.h"

namespace distbench::cli {

const char* const kPredictUsage =
    R"USAGE(usage: distbench predict REPORT --bandwidth RATE [--rank N=RATE ...] [flags]

Predict each row's p50 step (or op) time of a measured run (distbench run
--report) at another link speed or world size, with an interval. Compute as
the run measured it (scaled where ranks share the host's CPUs differently);
the ring allreduce and the parameter servers' traffic from the bytes the run
moved, over token-bucket links, each stage's own cost calibrated so that the
model gives back the run as measured; DDP's overlap of allreduce with
backward replayed from the measured bucket launch times (without them: both
bounds, full overlap and none). Prints a table (group, row, measured p50,
predicted p50, interval, bound, efficiency) and the model's terms. The model,
its assumptions and how far it was checked: docs/performance.md,
"Prediction".

flags:
  --bandwidth RATE   every rank's link: 100mbit, 1gbit, 500kbit, 1e9 (bit/s);
                     left out: each link as measured (unshaped: unlimited)
  --rank N=RATE      global rank N's link, over --bandwidth; may be repeated.
                     A ring runs at its slowest link
  --world-size N     predict with N trainers (Collectives: N ranks), each
                     computing as a rank of the measured run did (ranks
                     sharing the host's CPUs: as many more or fewer share
                     them); at most 65536
  --parameter-servers N
                     HybridDDPRPC: predict with N parameter servers, each
                     serving as one of the run's did; at most 65536
  --link-burst B     what the links set by --bandwidth/--rank pass at once
                     after a pause: 0 (default: a NIC's link), BYTES, or
                     'tbf' (the bucket distbench run --links shapes with:
                     max(32 KiB, 1 ms at the rate)); links left as measured
                     keep the measured run's
  --efficiency E     eta, the share of a link's nominal rate a transfer gets,
                     in (0, 1] (default 0.87, measured with Gloo over tbf)
  --json             print the prediction as JSON instead of the table

exit status: 0 predicted, 2 bad command line or a report that cannot be read
(a report with over 65536 ranks, over 2^50 gradient bytes in a row, or a DDP
row cut into over 1e6 buckets of bucketCapMB is refused, naming the field)
)USAGE";

namespace {

double rateFlag(const std::string& flag, const std::string& text) {
  try {
    return report::parseBitRate(text);
  } catch (const report::BitRateError& error) {
    throw UsageError(flag + ": " + error.what());
  }
}

// "5=100mbit".
void addRank(report::PredictOptions& options, const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw UsageError("--rank needs N=RATE (a global rank and its link, e.g. 5=100mbit), not '" +
                     text + "'");
  }
  const std::string number = text.substr(0, eq);
  const int rank = parseNonNegativeIntFlag("--rank", number);
  options.rankBitsPerSecond[rank] = rateFlag("--rank " + number, text.substr(eq + 1));
}

// "tbf", "0" or a number of bytes.
void burstFlag(report::PredictOptions& options, const std::string& text) {
  if (text == "tbf") {
    options.burst = report::LinkBurst::Tbf;
    return;
  }
  const std::string what = "'tbf' or a number of bytes (0: none)";
  const double bytes = parseNumberFlag("--link-burst", text, what);
  if (bytes < 0) throw UsageError("--link-burst needs " + what + ", not '" + text + "'");
  options.burst = bytes > 0 ? report::LinkBurst::Bytes : report::LinkBurst::None;
  options.burstBytes = bytes;
}

double efficiencyFlag(const std::string& text) {
  const std::string what = "a number in (0, 1]";
  const double value = parseNumberFlag("--efficiency", text, what);
  if (!(value > 0 && value <= 1)) {
    throw UsageError("--efficiency needs " + what + ", not '" + text + "'");
  }
  return value;
}

}  // namespace

std::vector<FlagSpec> predictFlags() {
  // --rank repeats, so predictCommand takes it out before parsing; listed
  // for whoever needs to know which flags take a value.
  return {{"--bandwidth", true},  {"--rank", true},
          {"--world-size", true}, {"--parameter-servers", true},
          {"--link-burst", true}, {"--efficiency", true},
          {"--json", false}};
}

int predictCommand(const std::vector<std::string>& args, const ReportLoader& load) {
  // --rank may be given several times; the parser keeps one value per
  // flag, so collect them first.
  report::PredictOptions options;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--rank") {
      if (i + 1 >= args.size()) throw UsageError("--rank needs a value");
      addRank(options, args[++i]);
    } else if (args[i].rfind("--rank=", 0) == 0) {
      addRank(options, args[i].substr(7));
    } else {
      rest.push_back(args[i]);
      if (args[i] == "--") {
        rest.insert(rest.end(), args.begin() + i + 1, args.end());
        break;
      }
    }
  }
  const ParsedArgs parsed = ArgParser(predictFlags()).parse(rest);
  if (parsed.has("--help")) {
    std::cout << kPredictUsage;
    return kExitOk;
  }
  const std::vector<std::string>& files = parsed.positionals();
  if (files.empty()) throw UsageError("missing REPORT");
  if (files.size() > 1) {
    throw UsageError("expected one report, not " + std::to_string(files.size()) + " files");
  }
  if (auto b = parsed.value("--bandwidth")) options.bitsPerSecond = rateFlag("--bandwidth", *b);
  if (auto n = parsed.value("--world-size")) {
    options.worldSize = parseNonNegativeIntFlag("--world-size", *n);
  }
  if (auto n = parsed.value("--parameter-servers")) {
    options.parameterServers = parseNonNegativeIntFlag("--parameter-servers", *n);
  }
  if (auto b = parsed.value("--link-burst")) burstFlag(options, *b);
  if (auto e = parsed.value("--efficiency")) options.efficiency = efficiencyFlag(*e);

  try {
    const report::Report measured = load(files[0]);
    const report::Prediction prediction = report::predictReport(measured, options);
    std::cout << (parsed.has("--json") ? report::predictionToJson(prediction) + "\n"
                                       : report::formatPrediction(measured, prediction));
    return kExitOk;
  } catch (const report::PredictOptionError& error) {
    throw UsageError(error.what());
  } catch (const report::ReportError& error) {
    std::cerr << "distbench predict: " << error.what() << "\n";
  }
  return kExitUsage;
}

}  // namespace distbench::cli
