// HybridDDPRPC: a trainer's step is its compute and two stages that move
// bytes. The lookup: every PS replies to every trainer at once, so a PS's
// link carries all trainers' replies while the trainer's own carries one
// from each PS. The update: the gradients go to each PS while the dense
// allreduce's ring shares the trainer's own link, and a PS's link takes in
// every trainer's gradients. Each stage's own cost besides the wire (the
// copies, the PS's service, waiting on the slowest trainer) is the one that
// gives back the phase the run measured, and overlaps the stage's wire as
// smoothMax says (alpha_beta.h). Links are token buckets followed over a
// few steps, so a burst refilled between stages counts.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "distbench/report/alpha_beta.h"
#include "prediction_kinds.h"

namespace distbench::report::prediction {
namespace {

using web::json::value;

constexpr int kFirstParameterServer = 1;
constexpr int kStepsToSteadyState = 3;  // buckets drained and refilled as they will stay

double ringShare(int ranks) { return ranks < 2 ? 0 : 2.0 * (ranks - 1) / ranks; }

// "8" or "32,relu,8": the dense stack's bytes of gradients, from its input
// width (parameter servers x embeddingDim) on.
double denseBytesFromKey(const Series& series, int parameterServers) {
  auto layers = series.groupKey.find("denseLayers");
  const auto dim = keyNumber(series, "embeddingDim");
  if (layers == series.groupKey.end() || !dim) return 0;
  double width = *dim * parameterServers, parameters = 0;
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

// What moves per step, per trainer: a reply and a gradient message to and
// from each PS, and the dense gradients of the allreduce.
struct StepTraffic {
  double replyBytes = 0;     // from one PS
  double gradientBytes = 0;  // to one PS
  double denseBytes = 0;
};

struct Topology {
  int trainers = 1, servers = 1;
};

struct Links {
  Context::LinkView trainer, ps, ring;
  double eta = 0;
};

// The wire time of the lookup and of the update stage in a steady step:
// each link direction a token bucket, compute (`compute` seconds) between
// the stages refilling them.
std::pair<double, double> stageWires(const StepTraffic& t, const Topology& top, const Links& l,
                                     double compute) {
  TokenBucketLink trainerUp(l.trainer.bitsPerSecond, l.eta, l.trainer.burstBytes);
  TokenBucketLink trainerDown(l.trainer.bitsPerSecond, l.eta, l.trainer.burstBytes);
  TokenBucketLink ringUp(l.ring.bitsPerSecond, l.eta, l.ring.burstBytes);
  TokenBucketLink psUp(l.ps.bitsPerSecond, l.eta, l.ps.burstBytes);
  TokenBucketLink psDown(l.ps.bitsPerSecond, l.eta, l.ps.burstBytes);
  const double ring = ringShare(top.trainers) * t.denseBytes;
  double now = 0, lookup = 0, update = 0;
  for (int step = 0; step < kStepsToSteadyState; ++step) {
    // A PS answers the trainers' lookups in turn: a trainer waits, on
    // average, for its own reply and half the others'. (All of them, at
    // every topology of the whatif sweep, overshot by up to 13 %: the late
    // trainers' replies overlap the early ones' pushes.)
    const double replies =
        std::max(trainerDown.send(now, top.servers * t.replyBytes),
                 psUp.send(now, (top.trainers + 1) / 2.0 * t.replyBytes));
    lookup = replies - now;
    const double start = replies + compute;
    // The trainer's own link carries its gradients and its ring share; the
    // ring is also paced by its slowest member's link.
    const double done = std::max({trainerUp.send(start, top.servers * t.gradientBytes + ring),
                                  trainerDown.send(start, ring), ringUp.send(start, ring),
                                  psDown.send(start, top.trainers * t.gradientBytes)});
    update = done - start;
    now = done;
  }
  return {lookup, update};
}

// x with smoothMax(x, wire) = total: the stage's own cost, from its
// measured time and the wire the model gives it at the measured links.
double ownCost(double total, double wire) {
  if (total <= wire) return 0;
  if (wire <= 0) return total;
  return std::pow(std::pow(total, kTransitionExponent) - std::pow(wire, kTransitionExponent),
                  1.0 / kTransitionExponent);
}

// One trainer's step as calibrated on the run.
struct TrainerStep {
  double step = 0;     // seconds per batch, as measured
  double compute = 0;  // the step less lookup, push and allreduceWait
  double lookup = 0, update = 0;  // measured: lookup; push + allreduceWait
  double updateWaitShare = 0;     // of update, the allreduce wait
  StepTraffic traffic;
};

struct Costs {
  double lookup = 0, update = 0;  // own costs at the measured topology
};

double modelStep(const TrainerStep& t, const Costs& own, const Topology& measured,
                 const Topology& top, const Links& links, double scale, double denseScale) {
  StepTraffic traffic = t.traffic;
  traffic.denseBytes *= denseScale;
  const auto [lookupWire, updateWire] = stageWires(traffic, top, links, t.compute * scale);
  // The allreduce's share of the update's own cost goes with the ring.
  double update = own.update;
  if (measured.trainers > 1) {
    update *= (1 - t.updateWaitShare) +
              t.updateWaitShare * ringShare(top.trainers) / ringShare(measured.trainers);
  }
  return t.compute * scale * denseScale + smoothMax(own.lookup * scale, lookupWire) +
         smoothMax(update * scale, updateWire);
}

TrainerStep readTrainer(const value& trainer, const std::string& path, const Series& series,
                        double batches, int servers, const Context& context) {
  TrainerStep t;
  t.step = context.seriesP50(wholeNumber(trainer, "series", path, 0, INT_MAX).value_or(-1),
                             path + ".series") /
           batches;
  const value phases = trainer.has_field("phases") ? trainer.at("phases") : value::object();
  const std::string where = path + ".phases";
  t.lookup = p50(phases, "lookup", where).value_or(0);
  const double push = p50(phases, "push", where).value_or(0);
  const double wait = p50(phases, "allreduceWait", where).value_or(0);
  t.update = push + wait;
  t.updateWaitShare = t.update > 0 ? wait / t.update : 0;
  t.compute = std::max(0.0, t.step - t.lookup - t.update);
  if (trainer.has_field("bytesPerStep")) {
    const std::string bytes = path + ".bytesPerStep";
    t.traffic.replyBytes =
        number(trainer.at("bytesPerStep"), "received", bytes).value_or(0) / servers;
    t.traffic.gradientBytes = number(trainer.at("bytesPerStep"), "sent", bytes).value_or(0) / servers;
  } else {
    // Older reports: a reply of every bag's row, gradients as large.
    const double m = keyNumber(series, "maxBagIndices").value_or(0);
    const double dim = keyNumber(series, "embeddingDim").value_or(0);
    t.traffic.replyBytes = t.traffic.gradientBytes = 4 * m * dim;
    context.note("hybrid trainers without bytesPerStep: messages of maxBagIndices x embeddingDim "
                 "floats each way per PS and step");
  }
  t.traffic.denseBytes = number(trainer, "denseGradientBytes", path).value_or(0);
  if (t.traffic.denseBytes <= 0) {
    t.traffic.denseBytes = denseBytesFromKey(series, servers);
    context.note("hybrid trainers without denseGradientBytes: dense gradient bytes from "
                 "denseLayers and embeddingDim");
  }
  return t;
}

// A PS serves one lookup, push and step of every trainer each step: the
// largest service time per trainer over the PSs, where the report has it.
std::optional<double> serviceSecondsPerTrainer(const value& results) {
  if (!results.has_field("parameterServers") || !results.at("parameterServers").is_array()) {
    return std::nullopt;
  }
  std::optional<double> most;
  const auto& list = results.at("parameterServers").as_array();
  for (size_t i = 0; i < list.size(); ++i) {
    const value& ps = list.at(i);
    if (!ps.has_field("service")) continue;
    const std::string where = "results.parameterServers[" + std::to_string(i) + "].service";
    const value& service = ps.at("service");
    const double sum = p50(service, "lookup", where).value_or(0) +
                       p50(service, "pushGrad", where).value_or(0) +
                       p50(service, "step", where).value_or(0);
    most = std::max(most.value_or(0), sum);
  }
  return most;
}

// What every trainer's prediction shares: the topology before and after,
// where the trainers' ranks start, the compute scale and the bounds.
struct HybridPlan {
  Topology measured, top;
  int firstTrainerBefore = 0, firstTrainerAfter = 0;
  double scale = 1;                     // contention(), trainers before -> after
  bool otherWorld = false;              // trainers or PSs changed
  std::optional<double> service;        // a PS's service per trainer and step
  std::vector<TrainerStep> trainers;    // results.trainers[i], as measured
  std::optional<double> leastCompute;   // fewer trainers sharing CPUs: theirs
};

std::string trainerPath(size_t i) { return "results.trainers[" + std::to_string(i) + "]"; }

TrainerStep readTrainerAt(const value& list, size_t i, int servers, const Context& context) {
  const std::string path = trainerPath(i);
  const value& trainer = list.at(i);
  const Series& series = context.series(
      wholeNumber(trainer, "series", path, 0, INT_MAX).value_or(-1), path + ".series");
  return readTrainer(trainer, path, series, keyNumber(series, "batchesPerEpoch").value_or(1),
                     servers, context);
}

// Trainers that share the host's CPUs slow each other unevenly (with the
// PSs and the kernel's network work): with fewer of them, a trainer
// computes as the least slowed one did. Two trainers on 2 CPUs computed
// 19.1 and 19.5 ms a step (CPU time) beside a PS's 3.2 ms; one alone, 17 ms.
std::optional<double> leastSlowedCompute(const HybridPlan& plan, const Context& context) {
  if (plan.top.trainers >= plan.measured.trainers || !context.sharesCpus()) return std::nullopt;
  std::optional<double> least;
  for (const TrainerStep& t : plan.trainers) least = std::min(least.value_or(t.compute), t.compute);
  return least;
}

HybridPlan planHybrid(const value& results, const Context& context) {
  const Report& report = context.report();
  HybridPlan plan;
  plan.measured = {std::max(1, report.trainers), std::max(1, report.parameterServers)};
  plan.top = {context.worldSize().value_or(plan.measured.trainers),
              context.parameterServers().value_or(plan.measured.servers)};
  plan.firstTrainerBefore = kFirstParameterServer + plan.measured.servers;
  plan.firstTrainerAfter = kFirstParameterServer + plan.top.servers;
  plan.scale = context.contention(plan.measured.trainers, plan.top.trainers);
  plan.otherWorld = plan.top.trainers != plan.measured.trainers ||
                    plan.top.servers != plan.measured.servers;
  plan.service = serviceSecondsPerTrainer(results);
  const value& list = results.at("trainers");
  for (size_t i = 0; i < list.as_array().size(); ++i) {
    plan.trainers.push_back(readTrainerAt(list, i, plan.measured.servers, context));
  }
  plan.leastCompute = leastSlowedCompute(plan, context);
  return plan;
}

// More PSs widen the dense stack's input: its bytes and its compute.
double denseScaleFor(const Series& series, const HybridPlan& plan, const Context& context) {
  if (plan.top.servers == plan.measured.servers) return 1;
  context.note("--parameter-servers: each PS's table and service as measured; the dense "
               "stack's input widens with the PSs (its compute and allreduce scaled by its "
               "parameters); a PS's memory is not modelled");
  const double from = denseBytesFromKey(series, plan.measured.servers);
  const double to = denseBytesFromKey(series, plan.top.servers);
  return from > 0 && to > 0 ? to / from : 1;
}

RowPrediction predictTrainer(const value& list, size_t i, const HybridPlan& plan,
                             const Context& context) {
  const std::string path = trainerPath(i);
  const value& trainer = list.at(i);
  const int seriesIndex = wholeNumber(trainer, "series", path, 0, INT_MAX).value_or(-1);
  RowPrediction row = context.rowFor(seriesIndex, path + ".series");
  const Series& series = context.series(seriesIndex, path + ".series");
  const double batches = keyNumber(series, "batchesPerEpoch").value_or(1);
  const int rank = wholeNumber(trainer, "rank", path, 0, INT_MAX)
                       .value_or(plan.firstTrainerBefore + static_cast<int>(i));
  const TrainerStep& t = plan.trainers[i];

  const int index = rank - plan.firstTrainerBefore;
  const Links before{context.measuredLinkView(rank, 1),
                     context.measuredLinkView(kFirstParameterServer, plan.measured.servers),
                     context.measuredLinkView(plan.firstTrainerBefore, plan.measured.trainers),
                     context.efficiency()};
  const Links after{context.targetLinkView(plan.firstTrainerAfter + index, 1),
                    context.targetLinkView(kFirstParameterServer, plan.top.servers),
                    context.targetLinkView(plan.firstTrainerAfter, plan.top.trainers),
                    context.efficiency()};
  const double denseScale = denseScaleFor(series, plan, context);
  const auto [lookupWire, updateWire] = stageWires(t.traffic, plan.measured, before, t.compute);
  const Costs own{ownCost(t.lookup, lookupWire), ownCost(t.update, updateWire)};
  TrainerStep fewer = t;
  if (plan.leastCompute) fewer.compute = *plan.leastCompute;
  double stepAfter = t.step +
                     modelStep(fewer, own, plan.measured, plan.top, after, plan.scale, denseScale) -
                     modelStep(t, own, plan.measured, plan.measured, before, 1, 1);
  row.basis = "lookup and update stages over token-bucket links";
  if (plan.service && plan.top.trainers * *plan.service > stepAfter) {
    stepAfter = plan.top.trainers * *plan.service;
    row.basis += "; bound by the PS's service time";
  }
  const double computeAfter = fewer.compute * plan.scale * denseScale;
  row.predictedSeconds = batches * stepAfter;
  row.communicationSeconds = batches * std::max(0.0, stepAfter - computeAfter);
  row.ranks = plan.top.trainers;
  row.linkBitsPerSecond =
      std::min({after.trainer.bitsPerSecond, after.ps.bitsPerSecond, after.ring.bitsPerSecond});
  classify(row, batches * computeAfter);
  context.setInterval(row, seriesIndex, plan.scale, plan.otherWorld);
  return row;
}

// The pooled row moves with the trainers' mean change.
std::optional<RowPrediction> predictPooled(const value& results,
                                           const std::vector<RowPrediction>& trainers,
                                           const HybridPlan& plan, const Context& context) {
  if (!results.has_field("all") || trainers.empty()) return std::nullopt;
  const auto index = wholeNumber(results.at("all"), "series", "results.all", 0, INT_MAX);
  if (!index) return std::nullopt;
  RowPrediction all = context.rowFor(*index, "results.all.series");
  double delta = 0, comm = 0;
  for (const RowPrediction& t : trainers) {
    delta += (t.predictedSeconds - t.measuredSeconds) / trainers.size();
    comm += t.communicationSeconds / trainers.size();
  }
  all.predictedSeconds = all.measuredSeconds + delta;
  all.communicationSeconds = comm;
  all.ranks = plan.top.trainers;
  all.linkBitsPerSecond = trainers.front().linkBitsPerSecond;
  all.basis = "the trainers' mean change";
  classify(all, std::max(0.0, all.predictedSeconds - comm));
  context.setInterval(all, *index, plan.scale, plan.otherWorld);
  return all;
}

}  // namespace

std::vector<RowPrediction> predictHybrid(const value& results, const Context& context) {
  if (!results.has_field("trainers") || !results.at("trainers").is_array()) {
    throw ReportError("results.trainers: missing; not a HybridDDPRPC report");
  }
  const HybridPlan plan = planHybrid(results, context);
  const value& list = results.at("trainers");
  std::vector<RowPrediction> out;
  for (size_t i = 0; i < list.as_array().size(); ++i) {
    out.push_back(predictTrainer(list, i, plan, context));
  }
  if (auto all = predictPooled(results, out, plan, context)) out.push_back(*all);
  return out;
}

}  // namespace distbench::report::prediction
