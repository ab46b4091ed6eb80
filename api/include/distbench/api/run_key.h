// The run key: a random name, new for each run, that every rank of the run
// is given (DISTBENCH_RUN_KEY_FILE) and nobody else is. The rendezvous store
// (c10d's TCPStore) authenticates nobody: any client that reaches its port
// may read and write any key it can name, and it has no way to list keys.
// So the gang keeps every key of the run under a prefix made from the run
// key: without it, a client can neither check in as a rank, nor answer for
// one in Gloo's address exchange, nor set the verdict or bump the progress
// and heartbeat counters that keep a stalled run alive.
#pragma once

#include <string>

namespace distbench::api {

// 32 lowercase hex digits (128 bits) from the kernel's random source.
// Throws std::runtime_error if it cannot be read.
std::string newRunKey();

// Whether `key` is what newRunKey makes, or a key a person wrote by hand
// that is as hard to guess: 32 to 128 characters of [0-9A-Za-z_-].
bool isValidRunKey(const std::string& key);

// What stands for a key in any text: "keys: /run-<run-key>/global/0/3".
inline constexpr const char* kRedactedRunKey = "<run-key>";

// `text` with no run key left in it. LibTorch 2.x names the store keys a
// wait timed out on ("wait timeout after 3000ms, keys: /run-<KEY>/...");
// such a line becomes a rank's last log line, then a pod's termination
// message, and from there the operator's status and Events, which anyone
// who may `get` the resource reads. Replaced: every occurrence of `ownKey`
// (when it is a valid key: the worker knows its own, hand-made or not),
// and after every "run-" a token of [0-9A-Za-z_-] that is a key by its
// form: 32 or more characters that begin with 32 hex digits (newRunKey's),
// or that a "/" follows (the store's prefix). Redact before cutting a text
// to a bound: a cut could leave a prefix of a key that no rule matches.
std::string redactRunKeys(const std::string& text, const std::string& ownKey = "");

}  // namespace distbench::api
