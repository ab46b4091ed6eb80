// Which pairs of nodes the Fabric kind measures, and in which rounds: a
// pure function of what has been measured so far, so that the worker's
// master and a simulator (benchmarks/fabric) run the same code. Every
// round is a set of disjoint pairs, so each node talks to one peer at a
// time and a slow link cannot slow another pair's figure.
//
// Up to allPairsUpTo nodes every pair is measured, in the round-robin
// (circle method) order. Past it, all pairs would be N^2/2; the planner
// measures a first pass that covers every node, then more pairs only
// around suspects (a node with slow links: more peers, to tell a slow node
// from one slow link; a pair of groups with a slow pair: more pairs
// between them), and stops when no suspect is left undecided or the
// budget is spent.
//
// The first pass: three random perfect matchings (three peers each), and
// where nodes carry groups (FabricNode::group), every pair of groups
// crossed by node pairs in round-robin rounds of groups: as many per pair
// of groups as a third of the budget allows, two at least, so that the
// rounds are full (a round costs the same time however many pairs it
// holds). It is measured whole; the budget bounds what follows it. Suspects
// are judged as judgeFabric judges them (fabric_verdict.h). A round cut
// short (a pair that failed) is asked for again, its missing pairs only.
#pragma once

#include <vector>

#include "distbench/report/fabric.h"
#include "distbench/report/fabric_plan_options.h"

namespace distbench::report {

// Every pair of n nodes once: n - 1 rounds for even n, n rounds for odd n
// (one node rests in each). n < 2: none.
std::vector<FabricRound> roundRobinRounds(int n);

// The next round to measure, given every pair measured so far (`sofar`
// holds the nodes and every earlier round's samples); empty when the plan
// is complete. The same inputs give the same round on every platform.
FabricRound planNextRound(const FabricMeasurements& sofar, const FabricPlanOptions& options);

}  // namespace distbench::report
