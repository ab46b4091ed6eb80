// SIGTERM and SIGINT end a rank within a second, whatever it is blocked in
// (a store wait, a Gloo collective, a PS request, rendezvous, the metrics
// linger), and end the rest of the run the way a failure does.
//
// In a pod the worker is PID 1, which the kernel gives no default signal
// dispositions: without a handler SIGTERM is ignored and the pod sits in
// Terminating for its whole grace period. The handler only writes the
// signal number to a pipe (async-signal-safe); a watcher thread reads it,
// publishes the run's verdict through the store, and _exits. The same
// thread polls the store for a verdict published by someone else, so a rank
// blocked in Gloo learns at once that the run is off.
#pragma once

#include <chrono>
#include <string>

#include "distbench/worker/common/worker_identity.h"

namespace distbench::worker {

// 128 + signal, the shell's convention: 143 for SIGTERM, 130 for SIGINT.
int terminatedStatus(int signal);

class TerminationWatch {
 public:
  // Installs the handlers and starts the watcher; call first thing in main.
  // `name` ("distbench-worker ps1") starts every line it prints.
  static TerminationWatch& install(const std::string& name);
  // The installed watch, or nullptr (tests that drive roles in-process).
  static TerminationWatch* installed();

  // Who this rank is: from now on a signal is announced to the run (with a
  // fresh store connection, bounded) before the rank exits, and no line it
  // exits with carries its run key (run_store.h, redactRunKey).
  void setIdentity(const WorkerIdentity& id);
  // The master's store is up (the rank has checked in): watch it for a
  // verdict published by another rank, over a connection of our own.
  void watchVerdicts();
  // This rank's part of the run is over (it lingers for a scraper): a
  // verdict no longer ends it, and a signal ends it with status 0.
  void workDone();

  // Prints `line` to stderr and _exits with `status`. When another thread
  // is already exiting, waits for it instead: one cause, one message.
  [[noreturn]] void exitWith(int status, const std::string& line);
  // A rank that fails on an error of its own (an exception, a port it cannot
  // bind, a refused allocation): prints "<name>: error: <why>" and, once it
  // knows who it is, publishes "<rank> failed: <why>" as the run's verdict
  // (over a fresh store connection, bounded like a signal's) so the other
  // ranks stop at once instead of waiting out their timeouts; then _exits.
  [[noreturn]] void failWith(int status, const std::string& error);

  TerminationWatch(const TerminationWatch&) = delete;
  TerminationWatch& operator=(const TerminationWatch&) = delete;

 private:
  struct State;
  explicit TerminationWatch(const std::string& name);
  // Before a failing rank exits: lets the watcher poll twice for a verdict.
  void awaitVerdictPolls(int status);
  State* state_;  // never freed: the watcher thread uses it until _exit
};

}  // namespace distbench::worker
