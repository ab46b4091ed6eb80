#include "distbench/worker/fabric/fabric_wire.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

namespace distbench::worker {
namespace {

void putList(std::vector<double>& out, const std::vector<double>& values) {
  out.push_back(static_cast<double>(values.size()));
  out.insert(out.end(), values.begin(), values.end());
}

class Reader {
 public:
  Reader(const std::vector<double>& values, const std::string& who) : v_(values), who_(who) {}

  // A whole number in [0, max].
  int64_t count(const char* what, int64_t max) {
    const double x = next(what);
    if (!(x >= 0 && x <= static_cast<double>(max)) || std::floor(x) != x) {
      fail(std::string(what) + " is " + std::to_string(x));
    }
    return static_cast<int64_t>(x);
  }
  std::vector<double> list(const char* what) {
    const int64_t n = count(what, static_cast<int64_t>(v_.size() - at_));
    std::vector<double> out(v_.begin() + static_cast<std::ptrdiff_t>(at_),
                            v_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
    at_ += static_cast<size_t>(n);
    return out;
  }
  void end() {
    if (at_ != v_.size()) fail(std::to_string(v_.size() - at_) + " values left over");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("master: " + who_ +
                             " sent fabric results the master cannot read: " + why);
  }

 private:
  double next(const char* what) {
    if (at_ >= v_.size()) fail(std::string("they end before ") + what);
    return v_[at_++];
  }
  const std::vector<double>& v_;
  const std::string& who_;
  size_t at_ = 0;
};

}  // namespace

std::vector<double> encodeFabricResult(const FabricRankResult& r) {
  std::vector<double> out;
  out.push_back(static_cast<double>(r.node.size()));
  for (unsigned char c : r.node) out.push_back(c);
  putList(out, r.probeSeconds);
  out.push_back(static_cast<double>(r.received.size()));
  for (const FabricReceived& x : r.received) {
    out.push_back(x.round);
    out.push_back(x.sender);
    out.push_back(static_cast<double>(x.bytes));
    putList(out, x.seconds);
  }
  putList(out, r.allreduceSeconds);
  return out;
}

FabricRankResult decodeFabricResult(const std::vector<double>& values, const std::string& who) {
  Reader in(values, who);
  FabricRankResult r;
  const int64_t nameLength = in.count("the node name's length", 253);
  for (int64_t i = 0; i < nameLength; ++i) {
    r.node.push_back(static_cast<char>(in.count("a character of the node name", 255)));
  }
  r.probeSeconds = in.list("the probe samples");
  const int64_t records = in.count("the received records", static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < records; ++i) {
    FabricReceived x;
    x.round = static_cast<int>(in.count("a round", INT32_MAX));
    x.sender = static_cast<int>(in.count("a sender", INT32_MAX));
    x.bytes = in.count("a size", INT64_C(1) << 40);
    x.seconds = in.list("a record's samples");
    r.received.push_back(std::move(x));
  }
  r.allreduceSeconds = in.list("the allreduce samples");
  in.end();
  return r;
}

report::FabricMeasurements assembleFabric(const std::vector<FabricRankResult>& perTrainer,
                                          const FabricAssembly& how) {
  report::FabricMeasurements m;
  const int n = static_cast<int>(perTrainer.size());
  for (int t = 0; t < n; ++t) {
    report::FabricNode node;
    node.rank = how.ranks.at(static_cast<size_t>(t));
    node.name = how.labels.at(static_cast<size_t>(t));
    node.node = perTrainer[static_cast<size_t>(t)].node;
    m.nodes.push_back(node);
    m.probeSeconds.push_back(perTrainer[static_cast<size_t>(t)].probeSeconds);
  }
  m.probeFlop = how.probeFlop;
  m.probeDevice = how.probeDevice;

  // (a, b, bytes) -> the pair's samples, in the order first measured.
  std::map<std::tuple<int, int, int64_t>, size_t> index;
  std::vector<std::pair<bool, bool>> seen;  // aToB, bToA
  for (int receiver = 0; receiver < n; ++receiver) {
    for (const FabricReceived& x : perTrainer[static_cast<size_t>(receiver)].received) {
      if (x.sender < 0 || x.sender >= n || x.sender == receiver) {
        throw std::runtime_error("master: " + how.labels[static_cast<size_t>(receiver)] +
                                 " received from trainer index " + std::to_string(x.sender) +
                                 ", not a peer of " + std::to_string(n) + " trainers");
      }
      const int a = std::min(receiver, x.sender);
      const int b = std::max(receiver, x.sender);
      auto [it, added] = index.emplace(std::make_tuple(a, b, x.bytes), m.pairs.size());
      if (added) {
        report::FabricPairSamples p;
        p.a = a;
        p.b = b;
        p.bytes = x.bytes;
        p.round = x.round;
        m.pairs.push_back(p);
        seen.push_back({false, false});
      }
      report::FabricPairSamples& p = m.pairs[it->second];
      const bool towardB = receiver == b;
      bool& already = towardB ? seen[it->second].first : seen[it->second].second;
      if (already) {
        throw std::runtime_error("master: " + how.labels[static_cast<size_t>(receiver)] +
                                 " reported the transfers of " + std::to_string(x.bytes) +
                                 " bytes from " + how.labels[static_cast<size_t>(x.sender)] +
                                 " twice");
      }
      already = true;
      (towardB ? p.aToB : p.bToA) = x.seconds;
    }
  }
  for (size_t i = 0; i < m.pairs.size(); ++i) {
    if (seen[i].first && seen[i].second) continue;
    const report::FabricPairSamples& p = m.pairs[i];
    const int silent = seen[i].first ? p.a : p.b;
    throw std::runtime_error("master: " + how.labels[static_cast<size_t>(silent)] +
                             " reported no transfers of " + std::to_string(p.bytes) +
                             " bytes from " +
                             how.labels[static_cast<size_t>(silent == p.a ? p.b : p.a)] +
                             ", which measured the other direction");
  }
  std::sort(m.pairs.begin(), m.pairs.end(),
            [](const report::FabricPairSamples& x, const report::FabricPairSamples& y) {
              return std::tie(x.round, x.a, x.b, x.bytes) < std::tie(y.round, y.a, y.b, y.bytes);
            });

  m.allreduceBytes = how.allreduceBytes;
  for (int t = 0; t < n; ++t) {
    const std::vector<double>& mine = perTrainer[static_cast<size_t>(t)].allreduceSeconds;
    if (t == 0) {
      m.allreduceSeconds = mine;
    } else if (mine.size() != m.allreduceSeconds.size()) {
      throw std::runtime_error("master: " + how.labels[static_cast<size_t>(t)] + " timed " +
                               std::to_string(mine.size()) + " allreduce iterations, " +
                               how.labels[0] + " " + std::to_string(m.allreduceSeconds.size()));
    } else {
      for (size_t i = 0; i < mine.size(); ++i) {
        m.allreduceSeconds[i] = std::max(m.allreduceSeconds[i], mine[i]);
      }
    }
  }
  return m;
}

}  // namespace distbench::worker
