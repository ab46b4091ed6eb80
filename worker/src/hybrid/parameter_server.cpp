#include "hybrid/parameter_server.h"

#include <ATen/ATen.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "comm/peer_error.h"
#include "common/state_dump.h"
#include "common/stopwatch.h"
#include "hybrid/embedding_shard.h"
#include "hybrid/request_checks.h"
#include "hybrid/wire.h"

namespace distbench::worker {
namespace {

class Server {
 public:
  Server(const WorkerIdentity& id, ProcessGroup& global, WorkerMetrics& metrics,
         const ParameterServerOptions& options)
      : id_(id),
        global_(global),
        metrics_(metrics),
        options_(options),
        sizes_(messageSizes(options.spec)),
        contexts_(id.numTrainers) {}

  // Returns when the master's Shutdown is acknowledged. On a failure, throws
  // with the first error; the other threads are left running (detached) in
  // receives that only time out later, so the Server must outlive them: the
  // caller keeps it alive until the process exits.
  void run() {
    std::vector<std::thread> threads;
    threads.emplace_back([this] { guarded([this] { serveMaster(); }); });
    const api::TopologySpec topology = id_.topology();
    for (int t = 0; t < id_.numTrainers; ++t) {
      const int rank = api::trainerRank(topology, t);
      threads.emplace_back([this, rank] { guarded([this, rank] { servePeer(rank); }); });
    }
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ || shutDown_; });
    if (error_) {
      for (auto& t : threads) t.detach();
      std::rethrow_exception(error_);
    }
    lock.unlock();
    for (auto& t : threads) t.join();
  }

  template <typename F>
  void guarded(F&& body) {
    try {
      body();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      changed_.notify_all();
    }
  }

  // The master speaks twice: CreateShard at the start and Shutdown at the
  // end. Between them the run may take any time, so no receive is posted
  // (its timeout would fire); the trainers' threads, each bounded by the
  // peer timeout, decide when the run is over.
  void serveMaster() {
    const int master = api::masterRank();
    at::Tensor request = newMessage(sizes_.request);
    at::Tensor reply = newMessage(sizes_.reply);
    global_.recv(request, master, kTagRequest).wait();
    const Header create = readHeader(request);
    if (static_cast<Op>(create[0]) != Op::CreateShard) {
      throw std::runtime_error("parameter server: expected create_shard from the master, got " +
                               std::string(toString(static_cast<Op>(create[0]))));
    }
    const auto start = Clock::now();
    serve(master, create, request, reply);
    metrics_.observeService(toString(Op::CreateShard), secondsSince(start));
    global_.send(reply, master, kTagReply).wait();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return error_ || trainersDone_ == id_.numTrainers; });
      if (error_) return;
    }
    global_.recv(request, master, kTagRequest).wait();
    const Header shutdown = readHeader(request);
    if (static_cast<Op>(shutdown[0]) != Op::Shutdown) {
      throw std::runtime_error("parameter server: expected shutdown from the master, got " +
                               std::string(toString(static_cast<Op>(shutdown[0]))));
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (shard_ && !options_.dumpStateDir.empty()) {
        saveTensor(shard_->table(), options_.dumpStateDir,
                   "ps" + std::to_string(id_.roleIndex) + "_table.pt");
      }
    }
    writeHeader(reply, {static_cast<int64_t>(Op::Shutdown), 0, 0, 0, 0, 0, 0, 0});
    global_.send(reply, master, kTagReply).wait();
    std::lock_guard<std::mutex> lock(mutex_);
    shutDown_ = true;
    changed_.notify_all();
  }

  // Receives from one peer, double-buffered: the next receive is posted
  // before this request is served, so the peer's next send finds it waiting.
  void servePeer(int rank) {
    at::Tensor buffers[2] = {newMessage(sizes_.request), newMessage(sizes_.request)};
    at::Tensor reply = newMessage(sizes_.reply);
    PendingOp pendingReply;
    int current = 0;
    PendingOp next = global_.recv(buffers[current], rank, kTagRequest);
    for (;;) {
      next.wait();
      const at::Tensor& message = buffers[current];
      const Header h = readHeader(message);
      const Op op = static_cast<Op>(h[0]);
      if (op == Op::Done) {
        pendingReply.wait();
        std::lock_guard<std::mutex> lock(mutex_);
        ++trainersDone_;
        changed_.notify_all();
        return;
      }
      current ^= 1;
      next = global_.recv(buffers[current], rank, kTagRequest);
      // The previous reply must be out before its buffer is rewritten.
      pendingReply.wait();
      const auto start = Clock::now();
      if (serve(rank, h, message, reply)) pendingReply = global_.send(reply, rank, kTagReply);
      metrics_.observeService(toString(op), secondsSince(start));
    }
  }

  void checkTrainer(int rank, const Header& h) {
    const api::TopologySpec topology = id_.topology();
    if (h[1] < 0 || h[1] >= id_.numTrainers ||
        api::trainerRank(topology, static_cast<int>(h[1])) != rank) {
      throw std::runtime_error("parameter server: request claims trainer " + std::to_string(h[1]) +
                               " but came from " + global_.peerName(rank));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!shard_) {
      throw std::runtime_error("parameter server: " + global_.peerName(rank) +
                               " called before the master created the shard");
    }
  }

  // The shard is the master's to create, once, before any trainer starts:
  // a create from anyone else would reset the table under the trainers'
  // lookups. The sender is the rank this thread receives from, not a claim
  // in the message. Refused before the shard is touched.
  void checkCreateShardSender(int rank) {
    if (rank != api::masterRank()) {
      throw PeerError("parameter server: create_shard from " + global_.peerName(rank) +
                      " refused: only the master (rank 0) creates the shard");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (shard_) {
      throw PeerError("parameter server: create_shard from " + global_.peerName(rank) +
                      " refused: the shard exists already");
    }
  }

  // Returns whether the request gets a reply: a gradient push does not; the
  // step that follows it on the same stream answers for both.
  bool serve(int rank, const Header& h, const at::Tensor& message, at::Tensor& reply) {
    try {
      return serveChecked(rank, h, message, reply);
    } catch (const PeerError&) {
      throw;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      throw PeerError("parameter server: " + std::string(toString(static_cast<Op>(h[0]))) +
                      " from " + global_.peerName(rank) +
                      " refused: " + what.substr(0, what.find('\n')));
    }
  }

  bool serveChecked(int rank, const Header& h, const at::Tensor& message, at::Tensor& reply) {
    const Op op = static_cast<Op>(h[0]);
    Header out{h[0], 0, 0, 0, 0, 0, 0, 0};
    switch (op) {
      case Op::CreateShard: {
        checkCreateShardSender(rank);
        checkCreateShard(h, id_.roleIndex, options_.spec);
        ShardConfig config;
        config.shardIndex = static_cast<int>(h[1]);
        config.numEmbeddings = h[2];
        config.embeddingDim = h[3];
        config.mode = static_cast<api::EmbeddingMode>(h[4]);
        config.seed = h[5];
        config.learningRate = bitsDouble(h[6]);
        std::lock_guard<std::mutex> lock(mutex_);
        shard_ = std::make_unique<EmbeddingShard>(config);
        break;
      }
      case Op::Lookup: {
        checkTrainer(rank, h);
        const int64_t* words = payloadOf<int64_t>(message);
        checkLookup(h, words, options_.spec);
        const int64_t n = h[3], bags = h[4], dim = options_.spec.embeddingDim;
        at::Tensor indices = at::from_blob(const_cast<int64_t*>(words), {n}, at::kLong).clone();
        at::Tensor offsets =
            at::from_blob(const_cast<int64_t*>(words + n), {bags}, at::kLong).clone();
        awaitStepsBefore(h[2]);
        at::Tensor pooled;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          pooled = shard_->lookup(indices, offsets, contexts_[h[1]]);
          ++lookupsServed_[h[2]];
          changed_.notify_all();
        }
        std::memcpy(payloadOf<float>(reply), pooled.data_ptr<float>(), bags * dim * sizeof(float));
        out[1] = bags;
        out[2] = dim;
        break;
      }
      case Op::PushGrad: {
        checkTrainer(rank, h);
        std::lock_guard<std::mutex> lock(mutex_);
        const LookupContext& context = contexts_[h[1]];
        checkGradient(h, context.active ? context.offsets.size(0) : 0, options_.spec);
        const int64_t bags = h[3], dim = h[4];
        at::Tensor grad = at::from_blob(payloadOf<float>(message), {bags, dim}, at::kFloat);
        shard_->accumulateGradient(contexts_[h[1]], grad);
        return false;
      }
      case Op::Step: {
        checkTrainer(rank, h);
        awaitLookupsOf(h[2]);
        std::lock_guard<std::mutex> lock(mutex_);
        shard_->applyStep(contexts_[h[1]]);
        ++stepsApplied_[h[2]];
        stepsApplied_.erase(h[2] - 2);  // nobody waits on those any more
        lookupsServed_.erase(h[2] - 2);
        changed_.notify_all();
        break;
      }
      default:
        throw std::runtime_error("parameter server: unexpected message " + std::to_string(h[0]) +
                                 " from " + global_.peerName(rank));
    }
    writeHeader(reply, out);
    return true;
  }

  // Sync mode makes every step bulk-synchronous on the shard: a lookup for
  // step s waits until every trainer's step s-1 update is applied, and a
  // step-s update waits until every trainer's step-s lookup is served (a
  // trainer sends its update while others may still be looking up). Bounded
  // by the peer timeout like any other wait.
  void awaitStepsBefore(int64_t step) {
    if (step == 0) return;
    awaitCount(stepsApplied_, step - 1, "every trainer's update of step");
  }
  void awaitLookupsOf(int64_t step) {
    awaitCount(lookupsServed_, step, "every trainer's lookup of step");
  }

  void awaitCount(const std::map<int64_t, int>& counts, int64_t step, const char* what) {
    if (options_.spec.parameterServerMode == api::ParameterServerMode::Async) return;
    std::unique_lock<std::mutex> lock(mutex_);
    const bool ready = changed_.wait_for(lock, global_.timeout(), [&] {
      auto it = counts.find(step);
      return error_ || (it != counts.end() && it->second == id_.numTrainers);
    });
    if (!ready) {
      throw PeerError("parameter server: " + std::string(what) + " " + std::to_string(step) +
                      " did not arrive within " + std::to_string(global_.timeout().count() / 1000) +
                      " s");
    }
  }

  const WorkerIdentity& id_;
  ProcessGroup& global_;
  WorkerMetrics& metrics_;
  ParameterServerOptions options_;
  MessageSizes sizes_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable changed_;
  std::unique_ptr<EmbeddingShard> shard_;
  std::vector<LookupContext> contexts_;  // one per trainer
  std::map<int64_t, int> stepsApplied_;  // Sync mode bookkeeping, by step
  std::map<int64_t, int> lookupsServed_;
  int trainersDone_ = 0;
  bool shutDown_ = false;
  std::exception_ptr error_;
};

}  // namespace

void runHybridParameterServer(const WorkerIdentity& identity, ProcessGroup& global,
                              WorkerMetrics& metrics, const ParameterServerOptions& options) {
  // On failure run() leaves threads behind that still use the server, and
  // the process exits right after: the server is deliberately not freed.
  auto* server = new Server(identity, global, metrics, options);
  server->run();
  delete server;
}

}  // namespace distbench::worker
