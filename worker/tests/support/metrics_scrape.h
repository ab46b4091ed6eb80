// Reading a rank's /metrics in cluster tests: where it serves them (from the
// rank's own log line), one scrape, and one sample's value.
#pragma once

#include <cpprest/http_client.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace distbench::worker::testing {

inline std::string scrape(int port) {
  web::http::client::http_client_config config;
  config.set_timeout(std::chrono::seconds(5));
  web::http::client::http_client client("http://127.0.0.1:" + std::to_string(port), config);
  auto response = client.request(web::http::methods::GET, "/metrics").get();
  EXPECT_EQ(response.status_code(), 200);
  return response.extract_string().get();
}

// The port a rank announced in its log ("metrics at http://127.0.0.1:PORT":
// ranks rendered for one machine serve on loopback).
inline int metricsPort(const std::string& output) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(output, m, std::regex("metrics at http://127\\.0\\.0\\.1:(\\d+)")))
      << output;
  return m.empty() ? 0 : std::stoi(m[1]);
}

// The value of `series` (name and labels, as exposed), or -1 when absent.
inline double sampleValue(const std::string& text, const std::string& series) {
  const auto at = text.find(series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 1));
}

}  // namespace distbench::worker::testing
