#include "distbench/worker/hybrid/wire_buffer.h"

#include <ATen/ATen.h>

#include <cstring>

#include "distbench/worker/hybrid/wire_limits.h"

namespace distbench::worker {

at::Tensor newMessage(int64_t bytes) {
  checkRange("message bytes", bytes, kHeaderBytes, kMaxMessageBytes);
  return at::zeros({bytes}, at::kByte);
}

Header readHeader(const at::Tensor& message) {
  Header h{};
  std::memcpy(h.data(), message.data_ptr(), kHeaderBytes);
  return h;
}

void writeHeader(at::Tensor& message, const Header& header) {
  std::memcpy(message.data_ptr(), header.data(), kHeaderBytes);
}

at::Tensor packHeader(const Header& words) {
  at::Tensor message = newMessage(kHeaderBytes);
  writeHeader(message, words);
  return message;
}

at::Tensor packReport(const ReportMessage& words) {
  at::Tensor message = newMessage(kReportBytes);
  std::memcpy(message.data_ptr(), words.data(), kReportBytes);
  return message;
}

ReportMessage readReport(const at::Tensor& message) {
  ReportMessage m{};
  std::memcpy(m.data(), message.data_ptr(), kReportBytes);
  return m;
}

}  // namespace distbench::worker
