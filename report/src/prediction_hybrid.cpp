// HybridDDPRPC: per trainer step, compute and the parameter servers'
// service as measured; the RPC traffic (per PS: Lookup, PushGrad and Step
// requests, two replies, each a fixed-size buffer) and the dense allreduce
// move over the links. Every trainer talks to every PS each step (the dense
// allreduce keeps them in step), so a PS's link carries all trainers'
// traffic.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "distbench/report/alpha_beta.h"
#include "prediction_kinds.h"

namespace distbench::report::prediction {
namespace {

using web::json::value;

constexpr int kFirstParameterServer = 1;
constexpr int kHeaderBytes = 64;  // every PS message: a 64-byte header and a fixed-size body

// Per step, of one trainer, to and from all PSs together.
struct StepBytes {
  double sent = 0, received = 0;
};

struct Links {
  double trainer, ps, eta;
};

// The RPC wire time of one step: the busiest direction of the trainer's
// link and of the PS's. Requests and replies of different trainers, and a
// PS's service, overlap with each other's transfers (measured over tbf: a
// link-bound step takes the busiest direction's time, not the sum of the
// legs), so the busiest direction paces the step.
// `ps`: what the busiest PS carries per step with `measuredTrainers`
// (from the report, or the trainers' bytes spread evenly over the PSs); it
// scales with the trainers.
double rpcWireSeconds(const StepBytes& bytes, const StepBytes& ps, int measuredTrainers,
                      int trainers, const Links& links) {
  const double psIn = ps.sent * trainers / measuredTrainers;
  const double psOut = ps.received * trainers / measuredTrainers;
  return std::max({wireSeconds(bytes.sent, links.trainer, links.eta),
                   wireSeconds(bytes.received, links.trainer, links.eta),
                   wireSeconds(psIn, links.ps, links.eta), wireSeconds(psOut, links.ps, links.eta)});
}

// "8" or "32,relu,8": Linear widths, from the embedding width on.
double denseBytesFromKey(const Series& series) {
  auto layers = series.groupKey.find("denseLayers");
  const auto dim = keyNumber(series, "embeddingDim");
  if (layers == series.groupKey.end() || !dim) return 0;
  double width = *dim, parameters = 0;
  std::stringstream in(layers->second);
  std::string token;
  while (std::getline(in, token, ',')) {
    char* end = nullptr;
    const double out = std::strtod(token.c_str(), &end);
    if (end == token.c_str()) continue;  // relu
    parameters += width * out + out;
    width = out;
  }
  return 4 * parameters;
}

}  // namespace

std::vector<RowPrediction> predictHybrid(const value& results, const Context& context) {
  const Report& report = context.report();
  if (!results.has_field("trainers") || !results.at("trainers").is_array()) {
    throw ReportError("results.trainers: missing; not a HybridDDPRPC report");
  }
  const int servers = std::max(1, report.parameterServers);
  const int measuredTrainers = std::max(1, report.trainers);
  const int trainers = context.worldSize().value_or(measuredTrainers);
  const double eta = context.efficiency();
  const int firstTrainer = kFirstParameterServer + report.parameterServers;

  // The PSs: their links, and (if the report has them) their service times.
  const double psMeasured = context.slowestMeasured(kFirstParameterServer, servers);
  const double psTarget = context.slowestTarget(kFirstParameterServer, servers);
  std::optional<double> psServicePerTrainer;
  // What the busiest PS took in and sent per step, where the report says.
  std::optional<StepBytes> psBytes;
  if (results.has_field("parameterServers") && results.at("parameterServers").is_array()) {
    const auto& list = results.at("parameterServers").as_array();
    for (size_t i = 0; i < list.size(); ++i) {
      const value& ps = list.at(i);
      const std::string path = "results.parameterServers[" + std::to_string(i) + "]";
      if (ps.has_field("bytesPerStep")) {
        StepBytes b = psBytes.value_or(StepBytes{});
        const std::string where = path + ".bytesPerStep";
        // A PS receives what trainers send it, and the other way round.
        b.sent = std::max(b.sent, number(ps.at("bytesPerStep"), "received", where).value_or(0));
        b.received = std::max(b.received, number(ps.at("bytesPerStep"), "sent", where).value_or(0));
        psBytes = b;
      }
      if (!ps.has_field("service")) continue;
      const value& service = ps.at("service");
      const std::string where = path + ".service";
      const double sum = p50(service, "lookup", where).value_or(0) +
                         p50(service, "pushGrad", where).value_or(0) +
                         p50(service, "step", where).value_or(0);
      psServicePerTrainer = std::max(psServicePerTrainer.value_or(0), sum);
    }
  }

  std::vector<RowPrediction> out;
  std::vector<double> deltas;
  const auto& list = results.at("trainers").as_array();
  for (size_t i = 0; i < list.size(); ++i) {
    const value& trainer = list.at(i);
    const std::string path = "results.trainers[" + std::to_string(i) + "]";
    const int seriesIndex = wholeNumber(trainer, "series", path, 0, INT_MAX).value_or(-1);
    const Series& series = context.series(seriesIndex, path + ".series");
    RowPrediction row;
    row.group = series.group;
    row.row = series.row;
    row.sampleOf = series.sampleOf;
    row.measuredSeconds = context.seriesP50(seriesIndex, path + ".series");
    const double batches = keyNumber(series, "batchesPerEpoch").value_or(1);
    const int rank =
        wholeNumber(trainer, "rank", path, 0, INT_MAX).value_or(firstTrainer + static_cast<int>(i));

    StepBytes bytes;
    if (trainer.has_field("bytesPerStep")) {
      bytes.sent = number(trainer.at("bytesPerStep"), "sent", path + ".bytesPerStep").value_or(0);
      bytes.received =
          number(trainer.at("bytesPerStep"), "received", path + ".bytesPerStep").value_or(0);
    } else {
      const double m = keyNumber(series, "maxBagIndices").value_or(0);
      const double dim = keyNumber(series, "embeddingDim").value_or(0);
      const double request = kHeaderBytes + std::max(16 * m, 4 * m * dim);
      const double reply = kHeaderBytes + 4 * m * dim;
      bytes.sent = servers * 3 * request;
      bytes.received = servers * 2 * reply;
      context.note("hybrid trainers without bytesPerStep: PS message sizes from maxBagIndices "
                   "and embeddingDim (3 requests and 2 replies per PS per step)");
    }
    double denseBytes = number(trainer, "denseGradientBytes", path).value_or(0);
    if (denseBytes <= 0) {
      denseBytes = denseBytesFromKey(series);
      context.note("hybrid trainers without denseGradientBytes: dense gradient bytes from "
                   "denseLayers and embeddingDim");
    }

    const Links before{context.measuredLink(rank), psMeasured, eta};
    const Links after{context.targetLink(rank), psTarget, eta};
    const StepBytes ps = psBytes.value_or(StepBytes{bytes.sent * measuredTrainers / servers,
                                                    bytes.received * measuredTrainers / servers});
    const double wireBefore = rpcWireSeconds(bytes, ps, measuredTrainers, measuredTrainers, before);
    const double wireAfter = rpcWireSeconds(bytes, ps, measuredTrainers, trainers, after);
    const double ringBefore = context.slowestMeasured(firstTrainer, measuredTrainers);
    const double ringAfter = context.slowestTarget(firstTrainer, trainers);

    const value phases = trainer.has_field("phases") ? trainer.at("phases") : value::object();
    const std::string where = path + ".phases";
    const double rpc =
        p50(phases, "lookup", where).value_or(0) + p50(phases, "push", where).value_or(0);
    const double wait = p50(phases, "allreduceWait", where).value_or(0);
    // What the RPCs cost besides the wire (copies, the PS's service) runs
    // while the bytes move: the step takes the longer of the two.
    const double rpcAfter = std::max(std::max(0.0, rpc - wireBefore), wireAfter);
    // The dense allreduce, as alpha_beta.h's ring: the slower of its own
    // cost and the wire.
    const double waitAfter =
        std::max(std::max(0.0, wait - ringWireSeconds(denseBytes, measuredTrainers, ringBefore, eta)),
                 ringWireSeconds(denseBytes, trainers, ringAfter, eta));

    const double stepBefore = row.measuredSeconds / batches;
    double stepAfter = stepBefore + (rpcAfter - rpc) + (waitAfter - wait);
    row.basis = "PS traffic per step and a dense allreduce of " +
                std::to_string(static_cast<long long>(denseBytes)) + " bytes";
    // A PS serves one lookup, push and step of every trainer each step.
    if (psServicePerTrainer && trainers * *psServicePerTrainer > stepAfter) {
      stepAfter = trainers * *psServicePerTrainer;
      row.basis += "; bound by the PS's service time";
    }
    const double comm = rpcAfter + waitAfter;
    row.predictedSeconds = row.measuredSeconds + batches * (stepAfter - stepBefore);
    row.communicationSeconds = batches * comm;
    row.ranks = trainers;
    row.linkBitsPerSecond = std::min({after.trainer, after.ps, ringAfter});
    deltas.push_back(row.predictedSeconds - row.measuredSeconds);
    classify(row, std::max(0.0, row.predictedSeconds - row.communicationSeconds));
    out.push_back(row);
  }

  // The pooled row moves with the trainers' mean.
  if (results.has_field("all") && !deltas.empty()) {
    if (const auto index = wholeNumber(results.at("all"), "series", "results.all", 0, INT_MAX)) {
      const Series& series = context.series(static_cast<int>(*index), "results.all.series");
      RowPrediction all;
      all.group = series.group;
      all.row = series.row;
      all.sampleOf = series.sampleOf;
      all.measuredSeconds = context.seriesP50(static_cast<int>(*index), "results.all.series");
      double delta = 0, comm = 0;
      for (size_t i = 0; i < deltas.size(); ++i) {
        delta += deltas[i] / deltas.size();
        comm += out[i].communicationSeconds / deltas.size();
      }
      all.predictedSeconds = all.measuredSeconds + delta;
      all.communicationSeconds = comm;
      all.ranks = trainers;
      all.linkBitsPerSecond = out.front().linkBitsPerSecond;
      all.basis = "the trainers' mean change";
      classify(all, std::max(0.0, all.predictedSeconds - comm));
      out.push_back(all);
    }
  }
  return out;
}

}  // namespace distbench::report::prediction
