// The text and JSON forms of a prediction (docs/cli.md, "predict").
#include <cpprest/json.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "distbench/report/alpha_beta.h"
#include "distbench/report/bit_rate.h"
#include "distbench/report/prediction.h"

namespace distbench::report {
namespace {

using web::json::value;

std::string seconds(double s) {
  char buffer[32];
  if (!std::isfinite(s)) return "-";
  if (s >= 1) {
    std::snprintf(buffer, sizeof buffer, "%.3f s", s);
  } else if (s >= 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.3g ms", s * 1e3);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g us", s * 1e6);
  }
  return buffer;
}

std::string rate(double bitsPerSecond) {
  return std::isfinite(bitsPerSecond) ? formatBitRate(bitsPerSecond) : "unshaped";
}

std::string percent(double share) {
  if (!std::isfinite(share)) return "-";
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.0f%%", share * 100);
  return buffer;
}

std::string pad(const std::string& text, size_t width, bool right = false) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

value number(double v) { return std::isfinite(v) ? value::number(v) : value::null(); }
value optional(const std::optional<double>& v) { return v ? number(*v) : value::null(); }

}  // namespace

std::string formatPrediction(const Report& measured, const Prediction& p) {
  std::ostringstream out;
  out << "Prediction for " << measured.kind << " run '" << measured.name << "' ("
      << measured.trainers << " trainer(s)): links "
      << (p.bitsPerSecond > 0 ? formatBitRate(p.bitsPerSecond) : std::string("as measured"));
  for (const auto& [rank, bps] : p.rankBitsPerSecond) out << ", rank " << rank << " " << rate(bps);
  out << ", world size "
      << (p.worldSize ? std::to_string(*p.worldSize) : std::string("as measured"));
  if (p.parameterServers) out << ", " << *p.parameterServers << " parameter server(s)";
  if (p.linkBurst != "none" && !p.linkBurst.empty()) out << ", link bursts " << p.linkBurst;
  out << "\n\n";

  const std::vector<std::string> header = {"group", "row", "measured p50", "predicted p50",
                                           "interval", "bound", "efficiency"};
  std::vector<std::vector<std::string>> cells;
  for (const RowPrediction& row : p.rows) {
    cells.push_back({row.group, row.row, seconds(row.measuredSeconds),
                     seconds(row.predictedSeconds),
                     seconds(row.lowSeconds) + " .. " + seconds(row.highSeconds), row.bound,
                     percent(row.scalingEfficiency)});
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  auto line = [&](const std::vector<std::string>& fields) {
    std::string text;
    for (size_t c = 0; c < fields.size(); ++c) {
      const bool right = c == 2 || c == 3 || c == 4 || c == 6;
      text += (c ? "  " : "") + pad(fields[c], width[c], right);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  line(header);
  for (const auto& fields : cells) line(fields);

  out << "\nmodel: eta " << p.efficiency;
  if (p.bitsPerSecond > 0) {
    char beta[32];
    std::snprintf(beta, sizeof beta, "%.3g", 8.0 / (p.efficiency * p.bitsPerSecond));
    out << ", beta = 8/(eta*B) = " << beta << " s/byte at " << formatBitRate(p.bitsPerSecond);
  }
  out << "\n";
  for (const RowPrediction& row : p.rows) {
    out << "  " << row.group << " / " << row.row << ": " << row.basis;
    if (row.ranks > 1) out << "; " << row.ranks << " ranks, link " << rate(row.linkBitsPerSecond);
    if (row.alphaSeconds && row.ranks > 1) out << "; alpha " << seconds(*row.alphaSeconds) << " per step";
    if (row.localSecondsPerByte && row.ranks > 1) {
      char local[32];
      std::snprintf(local, sizeof local, "%.3g", *row.localSecondsPerByte * 1e9);
      out << ", local " << local << " ns/byte";
    }
    if (row.lowerSeconds && row.upperSeconds) {
      out << "; bounds " << seconds(*row.lowerSeconds) << " (full overlap) .. "
          << seconds(*row.upperSeconds) << " (none)";
    }
    if (!row.uncertainty.empty()) out << "; interval: " << row.uncertainty;
    out << "\n";
  }
  for (const std::string& note : p.notes) out << "note: " << note << "\n";
  return out.str();
}

std::string predictionToJson(const Prediction& p) {
  value root = value::object();
  value model = value::object();
  model["efficiency"] = value::number(p.efficiency);
  model["bitsPerSecond"] = p.bitsPerSecond > 0 ? value::number(p.bitsPerSecond) : value::null();
  model["betaSecondsPerByte"] =
      p.bitsPerSecond > 0 ? value::number(8.0 / (p.efficiency * p.bitsPerSecond)) : value::null();
  value ranks = value::object();
  for (const auto& [rank, bps] : p.rankBitsPerSecond) ranks[std::to_string(rank)] = number(bps);
  model["rankBitsPerSecond"] = ranks;
  model["worldSize"] = p.worldSize ? value::number(*p.worldSize) : value::null();
  model["parameterServers"] =
      p.parameterServers ? value::number(*p.parameterServers) : value::null();
  model["linkBurst"] = value::string(p.linkBurst.empty() ? "none" : p.linkBurst);
  root["model"] = model;
  value rows = value::array();
  size_t i = 0;
  for (const RowPrediction& row : p.rows) {
    value r = value::object();
    r["group"] = value::string(row.group);
    r["row"] = value::string(row.row);
    r["sampleOf"] = value::string(row.sampleOf);
    r["measuredSeconds"] = number(row.measuredSeconds);
    r["predictedSeconds"] = number(row.predictedSeconds);
    r["lowerSeconds"] = optional(row.lowerSeconds);
    r["upperSeconds"] = optional(row.upperSeconds);
    r["lowSeconds"] = number(row.lowSeconds);
    r["highSeconds"] = number(row.highSeconds);
    r["uncertainty"] = value::string(row.uncertainty);
    r["bound"] = value::string(row.bound);
    r["scalingEfficiency"] = number(row.scalingEfficiency);
    r["communicationSeconds"] = number(row.communicationSeconds);
    r["ranks"] = value::number(row.ranks);
    r["linkBitsPerSecond"] = number(row.linkBitsPerSecond);
    r["alphaSeconds"] = optional(row.alphaSeconds);
    r["localSecondsPerByte"] = optional(row.localSecondsPerByte);
    r["basis"] = value::string(row.basis);
    rows[i++] = r;
  }
  root["rows"] = rows;
  value notes = value::array();
  for (size_t n = 0; n < p.notes.size(); ++n) notes[n] = value::string(p.notes[n]);
  root["notes"] = notes;
  return root.serialize();
}

}  // namespace distbench::report
