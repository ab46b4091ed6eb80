#include "distbench/worker/comm/ddp_bucketer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <mutex>

#include "distbench/worker/comm/bucket_assignment.h"
#include "distbench/worker/comm/process_group.h"
#include "support/thread_ranks.h"

namespace distbench::worker {
namespace {

// The ranks of these tests are threads of one process, and LibTorch's
// matrix products go to Debian's openblas-serial (scripts/install-deps.sh),
// which is not safe to call from two threads at once: with both ranks'
// forward and backward running together, 8 to 13 runs in 40 of the two
// gradient-averaging tests below got gradients that were neither rank's,
// and 0 in 40 with the reference BLAS. Real ranks are processes, each with
// its own BLAS. So the tests that check gradients' values compute one rank
// at a time; the allreduces a backward launches still overlap, and are
// waited for outside (finishBackward).
std::mutex& blasMutex() {
  static std::mutex m;
  return m;
}

torch::nn::Sequential stack(std::vector<int64_t> widths, uint64_t seed) {
  torch::manual_seed(seed);
  torch::nn::Sequential s;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    s->push_back(torch::nn::Linear(widths[i], widths[i + 1]));
    if (i + 2 < widths.size()) s->push_back(torch::nn::ReLU());
  }
  return s;
}

// d(sum(model(x)^2))/d(parameters), on a hook-free copy of `model`.
std::vector<torch::Tensor> localGradients(const torch::nn::Sequential& model,
                                          const torch::Tensor& x) {
  auto twin = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(model->clone());
  torch::Tensor loss = twin->forward(x).pow(2).sum();
  return torch::autograd::grad({loss}, twin->parameters());
}

TEST(GradientBucketer, ReverseOrderFirstBucketCappedAtOneMebibyte) {
  runRanks(1, "assign", [](int, ProcessGroup& group) {
    // Parameters: l1.w 2 MiB, l1.b, l2.w 128 KiB, l2.b, l3.w 32 KiB, l3.b.
    auto model = stack({1024, 512, 64, 128}, 0);
    GradientBucketer bucketer(model->parameters(), group, 25.0);
    const std::vector<std::vector<size_t>> expected{{5, 4, 3, 2, 1}, {0}};
    EXPECT_EQ(bucketer.bucketParameterIndices(), expected);
  });
}

// The earliest layers' gradients come last; in the big last bucket they
// would hold the whole bucket's allreduce until backward ends.
TEST(GradientBucketer, EarliestLayersSplitOffTheLastBucket) {
  runRanks(1, "tail", [](int, ProcessGroup& group) {
    // Parameters: l1.w 256 KiB, l1.b, l2.w 2 MiB, l2.b, l3.w 16 KiB, l3.b.
    auto model = stack({64, 1024, 512, 8}, 0);
    GradientBucketer bucketer(model->parameters(), group, 25.0);
    const std::vector<std::vector<size_t>> expected{{5, 4, 3}, {2}, {1, 0}};
    EXPECT_EQ(bucketer.bucketParameterIndices(), expected);
  });
}

TEST(GradientBucketer, SmallCapGivesOneBucketPerParameterInReverse) {
  runRanks(1, "small", [](int, ProcessGroup& group) {
    auto model = stack({64, 64, 64}, 0);  // 16 KiB weights
    GradientBucketer bucketer(model->parameters(), group, 0.001);
    const std::vector<std::vector<size_t>> expected{{3}, {2}, {1}, {0}};
    EXPECT_EQ(bucketer.bucketParameterIndices(), expected);
  });
}

TEST(GradientBucketer, AveragesGradientsAcrossReplicasAfterBroadcast) {
  std::vector<std::vector<torch::Tensor>> localGrads(2), ddpGrads(2), params(2);
  runRanks(2, "average", [&](int rank, ProcessGroup& group) {
    auto model = stack({16, 32, 8, 4}, 100 + rank);  // deliberately different
    GradientBucketer bucketer(model->parameters(), group, 0.001);
    bucketer.broadcastParameters(0);
    for (auto& p : model->parameters()) params[rank].push_back(p.detach().clone());

    torch::manual_seed(rank);
    torch::Tensor x = torch::randn({5, 16});
    {
      std::lock_guard<std::mutex> oneRankAtATime(blasMutex());
      // The local gradients from a twin without the bucketer's hooks: since
      // LibTorch 2.0 a leaf's hooks run for autograd::grad too, and would
      // hand back their pre-divided bucket views.
      for (auto& g : localGradients(model, x)) localGrads[rank].push_back(g);
      torch::Tensor loss = model->forward(x).pow(2).sum();
      bucketer.prepareForBackward();
      loss.backward();
    }
    bucketer.finishBackward();
    for (auto& p : model->parameters()) ddpGrads[rank].push_back(p.grad().clone());
  });
  ASSERT_EQ(params[0].size(), params[1].size());
  for (size_t i = 0; i < params[0].size(); ++i) {
    EXPECT_TRUE(torch::equal(params[0][i], params[1][i])) << "broadcast, parameter " << i;
    EXPECT_TRUE(torch::equal(ddpGrads[0][i], ddpGrads[1][i])) << "replicas differ at " << i;
    torch::Tensor mean = (localGrads[0][i] + localGrads[1][i]) / 2;
    EXPECT_TRUE(torch::allclose(ddpGrads[0][i], mean, 1e-5, 1e-6)) << "parameter " << i;
  }
}

TEST(GradientBucketer, AllreduceStartsBeforeBackwardEnds) {
  std::vector<std::vector<GradientBucketer::Event>> events(2);
  size_t buckets = 0;
  runRanks(2, "overlap", [&](int rank, ProcessGroup& group) {
    auto model = stack({32, 64, 64, 64, 8}, 1);
    GradientBucketer bucketer(model->parameters(), group, 0.005);
    buckets = bucketer.bucketCount();
    torch::Tensor loss = model->forward(torch::randn({4, 32})).sum();
    bucketer.prepareForBackward();
    loss.backward();
    bucketer.finishBackward();
    events[rank] = bucketer.lastStepEvents();
  });
  ASSERT_GT(buckets, 2u);
  for (const auto& log : events) {
    size_t firstLaunch = log.size(), lastGradient = 0;
    std::vector<int> launched;
    for (size_t i = 0; i < log.size(); ++i) {
      if (log[i].kind == GradientBucketer::Event::Kind::AllreduceLaunched) {
        firstLaunch = std::min(firstLaunch, i);
        launched.push_back(log[i].index);
      } else {
        lastGradient = i;
      }
    }
    // Communication began while gradients were still being computed...
    EXPECT_LT(firstLaunch, lastGradient);
    // ...and every bucket went out, in bucket order.
    std::vector<int> inOrder(buckets);
    for (size_t b = 0; b < buckets; ++b) inOrder[b] = static_cast<int>(b);
    EXPECT_EQ(launched, inOrder);
  }
}

TEST(GradientBucketer, UnusedParameterIsReported) {
  runRanks(1, "unused", [](int, ProcessGroup& group) {
    auto used = torch::nn::Linear(4, 4);
    auto unused = torch::nn::Linear(4, 4);
    std::vector<torch::Tensor> params = used->parameters();
    for (auto& p : unused->parameters()) params.push_back(p);
    GradientBucketer bucketer(params, group, 0.001);
    torch::Tensor loss = used->forward(torch::ones({1, 4})).sum();
    bucketer.prepareForBackward();
    loss.backward();
    try {
      bucketer.finishBackward();
      ADD_FAILURE() << "expected an error";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("no gradient for parameter(s) 2, 3"), std::string::npos)
          << e.what();
    }
  });
}

// Parameters a.w, a.b, b.w, b.b of two 8 -> 8 layers, as leaves, so a test
// can apply them in any order and keep hook-free copies for reference.
std::vector<torch::Tensor> twoLayers(uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<torch::Tensor> p;
  for (int layer = 0; layer < 2; ++layer) {
    p.push_back(torch::randn({8, 8}).requires_grad_());
    p.push_back(torch::randn({8}).requires_grad_());
  }
  return p;
}

std::vector<torch::Tensor> hookFreeCopies(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

std::vector<int64_t> byteSizes(const std::vector<torch::Tensor>& params) {
  std::vector<int64_t> bytes;
  for (const auto& p : params) bytes.push_back(p.numel() * 4);
  return bytes;
}

std::vector<size_t> arrivalOrder(const std::vector<GradientBucketer::Event>& events) {
  std::vector<size_t> order;
  for (const auto& e : events) {
    if (e.kind == GradientBucketer::Event::Kind::GradientReady) order.push_back(e.index);
  }
  return order;
}

// Autograd hands the bucket's view on as .grad (gradient_as_bucket_view): a
// bucket's gradients lie back to back in one tensor, and once the buckets
// are rebuilt the same memory serves every later step.
TEST(GradientBucketer, GradientsAreViewsOfTheirBucket) {
  runRanks(2, "views", [](int rank, ProcessGroup& group) {
    auto model = stack({16, 32, 8, 4}, 7);
    GradientBucketer bucketer(model->parameters(), group, 25.0);
    bucketer.broadcastParameters(0);
    const std::vector<torch::Tensor> params = model->parameters();
    std::vector<std::vector<const void*>> addresses;
    for (int step = 0; step < 3; ++step) {
      torch::Tensor loss = model->forward(torch::randn({3, 16}) + rank).pow(2).sum();
      bucketer.prepareForBackward();
      loss.backward();
      // Checked before finishBackward, which would install views itself if
      // AccumulateGrad had copied them.
      for (const auto& bucket : bucketer.bucketParameterIndices()) {
        for (size_t i = 1; i < bucket.size(); ++i) {
          const torch::Tensor& before = params[bucket[i - 1]].grad();
          EXPECT_EQ(static_cast<const char*>(params[bucket[i]].grad().data_ptr()),
                    static_cast<const char*>(before.data_ptr()) + before.nbytes())
              << "step " << step << ": parameter " << bucket[i] << " does not follow "
              << bucket[i - 1];
        }
      }
      bucketer.finishBackward();
      std::vector<const void*> at;
      for (const auto& p : params) at.push_back(p.grad().data_ptr());
      addresses.push_back(at);
    }
    EXPECT_EQ(addresses[1], addresses[2]);
    // The rebuild after the first step gives the buckets fresh storage,
    // whether or not the assignment changed (see rebuildInArrivalOrder).
    EXPECT_NE(addresses[0][0], addresses[1][0]);
  });
}

// y = a(b(x)) with a registered first: a's gradients come first, the
// reverse of what the first buckets assume. After one backward the buckets
// follow the real order, and each launches as its last gradient arrives.
TEST(GradientBucketer, RebuildsBucketsInArrivalOrder) {
  runRanks(1, "rebuild", [](int, ProcessGroup& group) {
    const std::vector<torch::Tensor> p = twoLayers(3);
    const double cap = 0.0002;  // 209 bytes: about one tensor a bucket
    GradientBucketer bucketer(p, group, cap);
    EXPECT_EQ(bucketer.bucketParameterIndices(), computeBucketAssignment(byteSizes(p), cap));
    auto step = [&] {
      torch::Tensor x = torch::randn({4, 8});
      torch::Tensor loss =
          torch::nn::functional::linear(torch::nn::functional::linear(x, p[2], p[3]), p[0], p[1])
              .pow(2)
              .sum();
      bucketer.prepareForBackward();
      loss.backward();
      bucketer.finishBackward();
      return bucketer.lastStepEvents();
    };
    const std::vector<size_t> arrived = arrivalOrder(step());
    ASSERT_EQ(arrived.size(), 4u);
    EXPECT_LT(arrived[0], 2u) << "a's gradients should come first";
    const auto rebuilt = computeBucketAssignment(byteSizes(p), cap, arrived);
    EXPECT_NE(rebuilt, computeBucketAssignment(byteSizes(p), cap));
    EXPECT_EQ(bucketer.bucketParameterIndices(), rebuilt);

    // Every bucket now launches the moment its own last gradient arrives.
    const std::vector<GradientBucketer::Event> events = step();
    size_t bucket = 0, filled = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].kind == GradientBucketer::Event::Kind::GradientReady) {
        ASSERT_LT(bucket, rebuilt.size());
        EXPECT_EQ(static_cast<size_t>(events[i].index), rebuilt[bucket][filled]);
        if (++filled == rebuilt[bucket].size()) {
          ASSERT_LT(i + 1, events.size());
          EXPECT_EQ(events[i + 1].kind, GradientBucketer::Event::Kind::AllreduceLaunched);
          EXPECT_EQ(events[i + 1].index, static_cast<int>(bucket));
          ++bucket;
          filled = 0;
        }
      }
    }
    EXPECT_EQ(bucket, rebuilt.size());
  });
}

// The ranks' gradients arrive in different orders (each computes the two
// branches the other way round, and autograd runs the later one first).
// Buckets built from each rank's own order would pair allreduces of
// different tensors; every rank takes rank 0's, and training stays correct.
TEST(GradientBucketer, RanksAgreeOnRankZerosArrivalOrder) {
  const double cap = 0.0002;
  std::vector<std::vector<size_t>> arrived(2);
  std::vector<std::vector<std::vector<size_t>>> buckets(2);
  std::vector<std::vector<std::vector<torch::Tensor>>> ddpGrads(2), localGrads(2);
  runRanks(2, "agree", [&](int rank, ProcessGroup& group) {
    const std::vector<torch::Tensor> p = twoLayers(11);  // same on both ranks
    GradientBucketer bucketer(p, group, cap);
    auto loss = [rank](const torch::Tensor& x, const std::vector<torch::Tensor>& w) {
      torch::Tensor a, b;
      if (rank == 0) a = torch::nn::functional::linear(x, w[0], w[1]);
      b = torch::nn::functional::linear(x, w[2], w[3]);
      if (rank != 0) a = torch::nn::functional::linear(x, w[0], w[1]);
      return (a.tanh() + b).pow(2).sum();
    };
    for (int step = 0; step < 3; ++step) {
      torch::manual_seed(100 * step + rank);
      torch::Tensor x = torch::randn({4, 8});
      std::vector<torch::Tensor> local, ddp;
      {
        std::lock_guard<std::mutex> oneRankAtATime(blasMutex());
        const std::vector<torch::Tensor> copies = hookFreeCopies(p);
        loss(x, copies).backward();
        for (const auto& c : copies) local.push_back(c.grad().clone());
        localGrads[rank].push_back(local);

        torch::Tensor l = loss(x, p);
        bucketer.prepareForBackward();
        l.backward();
      }
      bucketer.finishBackward();
      if (step == 0) {
        arrived[rank] = arrivalOrder(bucketer.lastStepEvents());
        buckets[rank] = bucketer.bucketParameterIndices();
      }
      for (const auto& t : p) ddp.push_back(t.grad().clone());
      ddpGrads[rank].push_back(ddp);
    }
  });
  ASSERT_EQ(arrived[0].size(), 4u);
  ASSERT_NE(arrived[0], arrived[1]) << "the test needs the ranks' orders to differ";
  const std::vector<int64_t> bytes{256, 32, 256, 32};
  EXPECT_EQ(buckets[0], computeBucketAssignment(bytes, cap, arrived[0]));
  EXPECT_EQ(buckets[1], buckets[0]);
  for (size_t step = 0; step < 3; ++step) {
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_TRUE(torch::equal(ddpGrads[0][step][i], ddpGrads[1][step][i]))
          << "step " << step << ": replicas differ at " << i;
      torch::Tensor mean = (localGrads[0][step][i] + localGrads[1][step][i]) / 2;
      EXPECT_TRUE(torch::allclose(ddpGrads[0][step][i], mean, 1e-5, 1e-6))
          << "step " << step << ", parameter " << i;
    }
  }
}

}  // namespace
}  // namespace distbench::worker
