#include "parameter_server.h"

#include <ATen/ATen.h>

#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "embedding_shard.h"
#include "peer_error.h"
#include "state_dump.h"
#include "wire.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;

struct Request {
  Header header;
  int source = -1;
  at::Tensor payload;
};

class Server {
 public:
  Server(const WorkerIdentity& id, ProcessGroup& global, WorkerMetrics& metrics,
         const ParameterServerOptions& options)
      : id_(id), global_(global), metrics_(metrics), options_(options),
        contexts_(id.numTrainers) {}

  void run() {
    for (;;) {
      Request request = receive();
      const auto start = Clock::now();
      const Op op = static_cast<Op>(request.header[0]);
      if (op == Op::Shutdown) {
        shutdown(request);
        return;
      }
      if (op == Op::Lookup && !lookupMayProceed(request.header[2])) {
        deferred_.push_back(std::move(request));
        continue;
      }
      serve(request);
      metrics_.observeService(toString(op), secondsSince(start));
      if (op == Op::Step) serveDeferredLookups();
    }
  }

 private:
  static double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  Request receive() {
    Request r;
    at::Tensor header = emptyHeader();
    PendingOp op = global_.recvAnySource(header, kTagRequest);
    try {
      op.wait();
    } catch (const PeerError& e) {
      throw PeerError(std::string("parameter server idle: ") + e.what() +
                      " (no request from any trainer or the master)");
    }
    r.source = op.sourceRank();
    r.header = unpackHeader(header);
    const Op kind = static_cast<Op>(r.header[0]);
    if (kind == Op::Lookup || kind == Op::PushGrad) {
      checkTrainer(r);
      r.payload = kind == Op::Lookup ? at::empty({r.header[3] + r.header[4]}, at::kLong)
                                     : at::empty({r.header[3], r.header[4]}, at::kFloat);
      global_.recv(r.payload, r.source, kTagPayload).wait();
    } else if (kind == Op::Step) {
      checkTrainer(r);
    } else if (kind != Op::CreateShard && kind != Op::Shutdown) {
      throw std::runtime_error("parameter server: unexpected message " +
                               std::to_string(r.header[0]) + " from " +
                               global_.peerName(r.source));
    }
    return r;
  }

  void checkTrainer(const Request& r) {
    const int64_t trainer = r.header[1];
    if (trainer < 0 || trainer >= id_.numTrainers ||
        api::trainerRank(topology(), static_cast<int>(trainer)) != r.source) {
      throw std::runtime_error("parameter server: request claims trainer " +
                               std::to_string(trainer) + " but came from " +
                               global_.peerName(r.source));
    }
    if (!shard_) {
      throw std::runtime_error("parameter server: " + global_.peerName(r.source) +
                               " called before the master created the shard");
    }
  }

  api::TopologySpec topology() const {
    api::TopologySpec t;
    t.parameterServers = id_.numParameterServers;
    t.trainers = id_.numTrainers;
    return t;
  }

  // Sync mode: step s reads the table only after all of step s-1 is applied.
  bool lookupMayProceed(int64_t step) const {
    if (options_.mode == api::ParameterServerMode::Async || step == 0) return true;
    auto it = stepsApplied_.find(step - 1);
    return it != stepsApplied_.end() && it->second == id_.numTrainers;
  }

  void serveDeferredLookups() {
    for (auto it = deferred_.begin(); it != deferred_.end();) {
      if (lookupMayProceed(it->header[2])) {
        const auto start = Clock::now();
        serve(*it);
        metrics_.observeService("lookup", secondsSince(start));
        it = deferred_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void serve(Request& r) {
    switch (static_cast<Op>(r.header[0])) {
      case Op::CreateShard: {
        ShardConfig config;
        config.shardIndex = static_cast<int>(r.header[1]);
        config.numEmbeddings = r.header[2];
        config.embeddingDim = r.header[3];
        config.mode = static_cast<api::EmbeddingMode>(r.header[4]);
        config.seed = r.header[5];
        config.learningRate = bitsDouble(r.header[6]);
        shard_ = std::make_unique<EmbeddingShard>(config);
        reply(r.source, ackTensor());
        break;
      }
      case Op::Lookup: {
        const int64_t n = r.header[3];
        at::Tensor indices = r.payload.narrow(0, 0, n);
        at::Tensor offsets = r.payload.narrow(0, n, r.header[4]);
        reply(r.source, shard_->lookup(indices, offsets, contexts_[r.header[1]]));
        break;
      }
      case Op::PushGrad:
        shard_->accumulateGradient(contexts_[r.header[1]], r.payload);
        reply(r.source, ackTensor());
        break;
      case Op::Step:
        shard_->applyStep(contexts_[r.header[1]]);
        ++stepsApplied_[r.header[2]];
        stepsApplied_.erase(r.header[2] - 2);  // nobody asks about those again
        reply(r.source, ackTensor());
        break;
      default:
        break;
    }
  }

  // Replies complete when the peer posts its receive; keep them alive until
  // then without blocking the next request.
  void reply(int rank, at::Tensor tensor) {
    inFlight_.push_back(global_.send(std::move(tensor), rank, kTagReply));
    while (inFlight_.size() > 4 * static_cast<size_t>(id_.numTrainers) + 8) {
      inFlight_.front().wait();
      inFlight_.pop_front();
    }
  }

  void shutdown(const Request& r) {
    if (!deferred_.empty()) {
      std::cerr << "parameter server: " << deferred_.size()
                << " lookups never became ready before shutdown\n";
    }
    if (shard_ && !options_.dumpStateDir.empty()) {
      saveTensor(shard_->table(), options_.dumpStateDir,
                 "ps" + std::to_string(id_.roleIndex) + "_table.pt");
    }
    for (auto& op : inFlight_) op.wait();
    inFlight_.clear();
    global_.send(ackTensor(), r.source, kTagReply).wait();
  }

  const WorkerIdentity& id_;
  ProcessGroup& global_;
  WorkerMetrics& metrics_;
  ParameterServerOptions options_;
  std::unique_ptr<EmbeddingShard> shard_;
  std::vector<LookupContext> contexts_;  // one per trainer
  std::map<int64_t, int> stepsApplied_;
  std::deque<Request> deferred_;
  std::deque<PendingOp> inFlight_;
};

}  // namespace

void runParameterServer(const WorkerIdentity& identity, ProcessGroup& global,
                        WorkerMetrics& metrics, const ParameterServerOptions& options) {
  Server(identity, global, metrics, options).run();
}

}  // namespace distbench::worker
