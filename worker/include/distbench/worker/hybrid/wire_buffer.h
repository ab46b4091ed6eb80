// The tensors the parameter-server protocol (wire.h) travels in: one
// fixed-size byte buffer per message, the 8-word header, then the payload.
// Fixed sizes let each side post its receive before the peer sends, and
// Gloo then moves a message in one hop instead of a three-way
// send-ready/recv-ready/data exchange.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "distbench/worker/hybrid/wire.h"

namespace distbench::worker {

// Refuses (std::invalid_argument) sizes outside kHeaderBytes..kMaxMessageBytes.
at::Tensor newMessage(int64_t bytes);
Header readHeader(const at::Tensor& message);
void writeHeader(at::Tensor& message, const Header& header);
template <typename T>
T* payloadOf(const at::Tensor& message) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(message.data_ptr()) + kHeaderBytes);
}

// Control messages: bare headers master -> trainer (newMessage(kHeaderBytes)),
// ReportMessages trainer -> master (newMessage(kReportBytes)).
at::Tensor packHeader(const Header& words);
at::Tensor packReport(const ReportMessage& words);
ReportMessage readReport(const at::Tensor& message);

}  // namespace distbench::worker
