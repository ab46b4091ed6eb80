// The "Why" part of the report page: the report's attribution
// (report/attribution.h) per row, computed from the report itself, so a
// report from before attribution, or one `distbench run` added `local` to,
// gets the same answer the run's footer gave or would give now.
#include <set>
#include <string>

#include "distbench/cli/report_page/html_table.h"
#include "distbench/cli/report_page/html_text.h"
#include "distbench/cli/report_page/page_numbers.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/report/attribution.h"
#include "distbench/report/bit_rate.h"

namespace distbench::cli {
namespace {

std::string percentText(double share) { return formatNumber(share * 100, 3) + "%"; }

std::string sharesText(const report::RowAttribution& row) {
  std::string text;
  for (const auto& [phase, share] : row.shares) {
    text += (text.empty() ? "" : ", ") + phase + " " + percentText(share);
  }
  return text;
}

std::string boundText(const report::RowAttribution& row) {
  return row.bound == "unknown" ? "unknown" : row.bound + "-bound";
}

std::string stragglerText(const report::RowAttribution& row) {
  if (!row.straggler) {
    // Not named, and why, where the check says more than "nobody".
    const report::StragglerCheck* check = row.stragglerCheck ? &*row.stragglerCheck : nullptr;
    if (check == nullptr || check->verdict == "none") return "none";
    return check->verdict + ": " + check->evidence;
  }
  const std::string excess =
      row.straggler->excessSeconds == 0
          ? std::string("CPU throttled")
          : "+" + formatDuration(row.straggler->excessSeconds) + " per " + row.sampleOf;
  return row.straggler->name + " (rank " + std::to_string(row.straggler->rank) + "), " + excess +
         ": " + row.straggler->evidence;
}

std::string linkText(const report::RowAttribution& row) {
  if (!row.link) return "none";
  const report::SlowLink& link = *row.link;
  std::string text = link.name + " (rank " + std::to_string(link.rank) + ") at " +
                     report::formatBitRate(link.bitsPerSecond);
  if (link.othersBitsPerSecond > 0) {
    text += ", the others " + report::formatBitRate(link.othersBitsPerSecond);
  }
  return text + ": " + link.evidence;
}

std::string whatIfText(const report::RowAttribution& row) {
  if (row.whatIfSeconds) {
    return formatDuration(*row.whatIfSeconds) + " instead of " + formatDuration(row.stepSeconds) +
           " " + row.whatIf;
  }
  return row.whatIf;
}

}  // namespace

PageSection whySection(const report::Report& report) {
  PageSection section{"why", "Why", "", {}};
  report::Attribution attribution;
  try {
    attribution = report::attribute(report);
  } catch (const report::ReportError& e) {
    section.html = noteParagraph(std::string("No attribution: ") + e.what());
    return section;
  }
  section.html = "<p><strong>" + htmlEscape(attribution.summary) + "</strong></p>\n";
  if (attribution.rows.empty()) return section;
  HtmlTable table({"group", "row", "bound", "p50", "share of the mean step", "straggler",
                   "slow link", "what if"});
  std::set<std::string> notes;
  for (const report::RowAttribution& row : attribution.rows) {
    table.addRow({row.group, row.row, boundText(row), formatDuration(row.stepSeconds),
                  sharesText(row), stragglerText(row), linkText(row), whatIfText(row)});
    if (!row.note.empty()) notes.insert(row.note);
  }
  section.html += table.html();
  for (const std::string& note : notes) section.html += noteParagraph(note);
  section.html += noteParagraph(
      "Exposed communication (time no compute hid: allreduceWait, and for HybridDDPRPC lookup "
      "and push too) over 20% of the mean step is communication-bound, under 5% "
      "compute-bound. A straggler's own work (the step less its waiting) exceeds the other "
      "ranks' median by a tenth of the step, with a 99% bootstrap interval that lies above that "
      "(inconclusive where the interval reaches below it), or its CPU was throttled; a slow link "
      "is named from the emulated links' counters (distbench run --links). The what-if takes "
      "the straggler's excess, and what the link would save at the "
      "others' rate, off the step (docs/report-schema.md, attribution).");
  return section;
}

}  // namespace distbench::cli
