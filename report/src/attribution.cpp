#include "distbench/report/attribution.h"

#include <algorithm>
#include <set>

#include "attribution_rules.h"
#include "distbench/report/bit_rate.h"
#include "distbench/report/report.h"

namespace distbench::report {
namespace {

using namespace attribution_detail;

// Collectives: every op is communication, so there is no compute to weigh
// it against; a slow link still limits every op, and is named.
std::vector<RowAttribution> attributeCollectives(const Report& report,
                                                 const std::optional<LinkFinding>& link) {
  std::vector<RowAttribution> rows;
  for (const Series& s : report.series) {
    RowAttribution out;
    out.group = s.group;
    out.row = s.row;
    out.sampleOf = s.sampleOf;
    out.stepSeconds = p50(s.samples);
    out.bound = "communication";
    out.note = "a collective is communication only: communication-bound by definition";
    if (link) {
      out.link = toSlowLink(*link);
      // Latency-bound sizes would not speed up with the link; the report
      // cannot tell which sizes those are, so no figure is given.
      out.whatIf = "not modelled for collectives";
    }
    rows.push_back(std::move(out));
  }
  return rows;
}

std::string unitOf(const RowAttribution& row) {
  return row.sampleOf.empty() ? "step" : row.sampleOf;
}

// The two largest of `phases`' shares, "allreduceWait 62%, push 25%".
std::string topShares(const RowAttribution& row, bool communication) {
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [phase, share] : row.shares) {
    if (phase != "other" && isCommunicationPhase(phase) == communication) {
      ranked.emplace_back(share, phase);
    }
  }
  std::sort(ranked.rbegin(), ranked.rend());
  std::string text;
  for (size_t i = 0; i < ranked.size() && i < 2; ++i) {
    text += (i ? ", " : "") + ranked[i].second + " " + percent(ranked[i].first);
  }
  return text;
}

// "communication-bound (exposed communication 40%: allreduceWait 40%)",
// "compute-bound (backward 60%, forward 30%)".
std::string boundText(const RowAttribution& row) {
  if (row.bound == "unknown") return "bound unknown (no phase timings)";
  if (!row.exposedShare) return row.bound + "-bound";
  if (row.bound == "compute") return "compute-bound (" + topShares(row, false) + ")";
  return row.bound + "-bound (exposed communication " + percent(*row.exposedShare) + ": " +
         topShares(row, true) + ")";
}

std::string linkText(const SlowLink& link) {
  return "slow link " + link.name + " (" + formatBitRate(link.bitsPerSecond) +
         (link.othersBitsPerSecond > 0 ? " vs " + formatBitRate(link.othersBitsPerSecond) : "") +
         ")";
}

// "+0.100 s per iteration", or "CPU throttled" for a rank named by its
// throttle counter, which sizes no excess.
std::string excessText(const RowAttribution& row) {
  if (row.straggler->excessSeconds == 0) return "CPU throttled";
  return "+" + seconds(row.straggler->excessSeconds) + " per " + unitOf(row);
}

std::string findingsText(const RowAttribution& row) {
  std::string text;
  if (row.straggler) {
    text += "; straggler " + row.straggler->name + " (" + excessText(row) + ")";
  }
  if (row.link) text += "; " + linkText(*row.link);
  if (row.whatIfSeconds) {
    text += "; " + row.whatIf + ": " + seconds(*row.whatIfSeconds) + " instead of " +
            seconds(row.stepSeconds);
  }
  const std::string check = row.stragglerCheck ? row.stragglerCheck->verdict : "";
  if (!row.straggler && (check == "inconclusive" || check == "byDesign")) {
    text += check == "inconclusive" ? "; straggler inconclusive" : "; uneven load by design";
    if (!row.link) text += ", no slow link";
  } else if (!row.straggler && !row.link) {
    text += "; no straggler, no slow link";
  }
  return text;
}

// The row the one line speaks of: the last row with a finding (the largest
// DDP row that has one), else the last row of the first group (DDP's
// largest row of the first model, HybridDDPRPC's All).
const RowAttribution* summaryRow(const std::vector<RowAttribution>& rows) {
  const RowAttribution* pick = nullptr;
  for (const RowAttribution& row : rows)
    if (row.straggler || row.link) pick = &row;
  if (pick) return pick;
  for (const RowAttribution& row : rows)
    if (row.group == rows.front().group) pick = &row;
  return pick;
}

std::string summaryOf(const Report& report, const std::vector<RowAttribution>& rows) {
  if (rows.empty()) return report.kind + ": nothing to attribute (no rows in the results)";
  std::string text;
  if (report.kind == "Collectives") {
    text = "Collectives: communication-bound by definition";
    if (rows.front().link) text += "; " + linkText(*rows.front().link);
  } else {
    const RowAttribution& row = *summaryRow(rows);
    text = row.group + " " + row.row + ": " + boundText(row) + findingsText(row);
  }
  if (text.size() > kSummaryLimit) {
    size_t end = kSummaryLimit - 3;
    // Never inside a UTF-8 character: group names are the user's text.
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end) + "...";
  }
  return text;
}

web::json::value number(const std::optional<double>& v) {
  return v ? web::json::value::number(*v) : web::json::value::null();
}

}  // namespace

std::vector<std::string> phasesInStepOrder(const RowAttribution& row) {
  static const char* const kOrder[] = {"lookup",        "forward",       "backward", "push",
                                       "allreduceWait", "optimizerStep", "other"};
  std::vector<std::string> phases;
  for (const char* phase : kOrder)
    if (row.shares.count(phase)) phases.push_back(phase);
  for (const auto& [phase, share] : row.shares)
    if (std::find(phases.begin(), phases.end(), phase) == phases.end()) phases.push_back(phase);
  return phases;
}

bool isCommunicationPhase(const std::string& phase) {
  return phase == "allreduceWait" || phase == "lookup" || phase == "push";
}

Attribution attribute(const Report& report) {
  value results;
  try {
    results = value::parse(report.resultsJson);
  } catch (const web::json::json_exception& e) {
    throw ReportError(std::string("report results: not valid JSON: ") + e.what());
  }
  Local local;
  try {
    local = readLocal(report);
  } catch (const web::json::json_exception& e) {
    throw ReportError(std::string("report local: not valid JSON: ") + e.what());
  }
  const std::optional<LinkFinding> link =
      findSlowLink(report, local, measuredSeconds(report, results));
  Attribution out;
  if (report.kind == "DDP") {
    out.rows = attributeDdp(report, results, local, link);
  } else if (report.kind == "HybridDDPRPC") {
    out.rows = attributeHybrid(report, results, local, link);
  } else if (report.kind == "Collectives") {
    out.rows = attributeCollectives(report, link);
  }
  out.summary = summaryOf(report, out.rows);
  return out;
}

std::string attributionToJson(const Attribution& a) {
  using web::json::value;
  value root = value::object(true);
  root["summary"] = value::string(a.summary);
  value rows = value::array(a.rows.size());
  for (size_t i = 0; i < a.rows.size(); ++i) {
    const RowAttribution& r = a.rows[i];
    value row = value::object(true);
    row["group"] = value::string(r.group);
    row["row"] = value::string(r.row);
    row["sampleOf"] = value::string(r.sampleOf);
    row["bound"] = value::string(r.bound);
    row["stepSeconds"] = value::number(r.stepSeconds);
    value shares = value::object(true);
    for (const auto& [phase, share] : r.shares) shares[phase] = value::number(share);
    row["shares"] = shares;
    row["exposedShare"] = number(r.exposedShare);
    if (r.straggler) {
      value s = value::object(true);
      s["rank"] = value::number(r.straggler->rank);
      s["name"] = value::string(r.straggler->name);
      s["excessSeconds"] = value::number(r.straggler->excessSeconds);
      s["evidence"] = value::string(r.straggler->evidence);
      row["straggler"] = s;
    } else {
      row["straggler"] = value::null();
    }
    if (r.link) {
      value l = value::object(true);
      l["rank"] = value::number(r.link->rank);
      l["name"] = value::string(r.link->name);
      l["bitsPerSecond"] = value::number(r.link->bitsPerSecond);
      l["othersBitsPerSecond"] = r.link->othersBitsPerSecond > 0
                                     ? value::number(r.link->othersBitsPerSecond)
                                     : value::null();
      l["evidence"] = value::string(r.link->evidence);
      row["link"] = l;
    } else {
      row["link"] = value::null();
    }
    if (r.stragglerCheck) {
      value c = value::object(true);
      c["verdict"] = value::string(r.stragglerCheck->verdict);
      c["evidence"] = value::string(r.stragglerCheck->evidence);
      c["timingVerdict"] = value::string(r.stragglerCheck->timingVerdict);
      c["timingName"] = r.stragglerCheck->timingName.empty()
                            ? value::null()
                            : value::string(r.stragglerCheck->timingName);
      row["stragglerCheck"] = c;
    }
    row["whatIfSeconds"] = number(r.whatIfSeconds);
    row["whatIf"] = value::string(r.whatIf);
    if (!r.note.empty()) row["note"] = value::string(r.note);
    rows[i] = row;
  }
  root["rows"] = rows;
  return root.serialize();
}

std::string formatAttributionFooter(const Attribution& a) {
  std::string out = "\nWhy (attribution; docs/report-schema.md#attribution):\n";
  std::set<std::string> notes;
  bool collectives = false;
  for (const RowAttribution& r : a.rows) {
    if (r.shares.empty() && r.bound == "communication") {
      // Collectives: one line says it for every row.
      if (!collectives) {
        out += "  every op is communication: communication-bound by definition\n";
        if (r.link) out += "    " + linkText(*r.link) + ": " + r.link->evidence + "\n";
      }
      collectives = true;
      continue;
    }
    std::string shares;
    for (const std::string& phase : phasesInStepOrder(r)) {
      shares += (shares.empty() ? "" : ", ") + phase + " " + percent(r.shares.at(phase));
    }
    out += "  " + r.group + " " + r.row + ": " +
           (r.bound == "unknown" ? "bound unknown" : r.bound + "-bound") +
           (shares.empty() ? "" : "; " + shares) + "\n";
    if (r.straggler) {
      out += "    straggler " + r.straggler->name + ": " + excessText(r) + "; " +
             r.straggler->evidence + "\n";
    }
    if (r.stragglerCheck && !r.straggler && r.stragglerCheck->verdict != "none") {
      // Not named, and the reader should know why: the run cannot show it
      // (inconclusive), or a rank does more work by design.
      out +=
          "    straggler " + r.stragglerCheck->verdict + ": " + r.stragglerCheck->evidence + "\n";
    }
    if (r.link) out += "    " + linkText(*r.link) + ": " + r.link->evidence + "\n";
    if (r.whatIfSeconds) {
      out += "    what if: " + r.whatIf + ": " + seconds(*r.whatIfSeconds) + " per " + unitOf(r) +
             " instead of " + seconds(r.stepSeconds) + "\n";
    }
    if (!r.note.empty()) notes.insert(r.note);
  }
  for (const std::string& note : notes) out += "  note: " + note + "\n";
  return out + "Bottleneck: " + a.summary + "\n";
}

}  // namespace distbench::report
