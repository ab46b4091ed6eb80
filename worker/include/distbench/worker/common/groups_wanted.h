// Which Gloo groups the rendezvous (comm/rendezvous.h) forms once everyone
// has joined; each kind says which it needs in its KindEntry
// (common/benchmark_kind.h). Here, below comm/, so that saying so needs no
// LibTorch header and common/ depends on nothing above it.
#pragma once

namespace distbench::worker {

// The hybrid benchmark needs both; DDP sweeps form their own groups per row,
// and collectives use only the trainers' group.
struct GroupsWanted {
  bool global = true;
  bool trainers = true;
};

}  // namespace distbench::worker
