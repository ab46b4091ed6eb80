#include "distbench/cli/report_page/report_page.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "distbench/cli/report_page/html_text.h"
#include "distbench/cli/report_page/report_page_sections.h"
#include "distbench/cli/report_page/report_page_static.h"
#include "distbench/report/report_json.h"

namespace distbench::cli {
namespace {

bool containsNoCase(std::string_view text, std::string_view part) {
  auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

std::string inlineScript(std::string_view name, std::string_view script) {
  if (containsNoCase(script, "</script") || script.find("<!--") != std::string_view::npos) {
    throw std::invalid_argument(std::string(name) +
                                " cannot be inlined: its text holds </script or <!--");
  }
  return "<script>" + std::string(script) + "</script>\n";
}

std::vector<PageSection> sectionsOf(const ReportPageInput& input) {
  const report::Report& run = *input.run;
  std::vector<PageSection> sections;
  if (input.trend) sections.push_back(trendSection(*input.trend, input.trendOptions));
  if (input.baseline && input.diff) {
    sections.push_back(
        baselineSection(*input.baseline, input.baselineSource, run, *input.diff, input.options));
  }
  if (run.kind == "HybridDDPRPC") {
    sections.push_back(hybridSection(run));
  } else if (run.kind == "DDP") {
    sections.push_back(ddpSection(run));
  } else if (run.kind == "Collectives") {
    sections.push_back(collectivesSection(run));
  } else if (run.kind == "Fabric") {
    sections.push_back(fabricSection(run));
  } else {
    sections.push_back({"charts",
                        "Charts",
                        noteParagraph("This distbench draws no charts for the kind " + run.kind +
                                      "; the measurements below are all it can show."),
                        {}});
  }
  sections.push_back(whySection(run));
  sections.push_back(measurementsSection(run));
  sections.push_back(environmentSection(run));
  return sections;
}

// The data block: every chart's spec, and the reports themselves, so the
// page also keeps the numbers it was drawn from.
std::string dataJson(const ReportPageInput& input, const std::vector<PageSection>& sections) {
  std::vector<vl::Json> charts;
  for (const PageSection& section : sections) {
    for (const Chart& chart : section.charts) {
      charts.push_back(vl::obj({{"id", vl::str(chart.id)}, {"spec", chart.spec}}));
    }
  }
  std::string json =
      "{\"charts\":" + vl::arr(charts).serialize() + ",\"report\":" + report::toJson(*input.run);
  if (input.baseline) json += ",\"baseline\":" + report::toJson(*input.baseline);
  return json + "}";
}

std::string subtitle(const report::Report& run) {
  auto version = run.versions.find("distbench");
  return run.host.hostname + " · " + run.device + ", " + run.backend + " · world size " +
         std::to_string(run.worldSize) + " · distbench " +
         (version == run.versions.end() ? std::string("?") : version->second);
}

std::string licences(const std::vector<ChartLibrary>& libraries) {
  if (libraries.empty()) return "";
  std::string html = "<details><summary>Licences of the chart libraries in this page</summary>\n";
  for (const ChartLibrary& library : libraries) {
    html += "<h4>" + htmlEscape(library.name) + "</h4>\n<pre>" + htmlEscape(library.license) +
            "</pre>\n";
  }
  return html + "</details>\n";
}

}  // namespace

std::string renderReportPage(const ReportPageInput& input,
                             const std::vector<ChartLibrary>& libraries) {
  const report::Report& run = *input.run;
  const std::vector<PageSection> sections = sectionsOf(input);

  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"distbench " DISTBENCH_VERSION "\">\n<title>" +
      htmlEscape("distbench report: " + run.name + " (" + run.kind + ")") + "</title>\n<style>" +
      kPageStyle + "</style>\n" + inlineScript("the page monitor", kPageMonitorScript) +
      "</head>\n<body>\n<header>\n<h1>" + htmlEscape(run.name) + "<small>" + htmlEscape(run.kind) +
      "</small></h1>\n<p class=\"subtitle\">" + htmlEscape(subtitle(run)) + "</p>\n<nav>";
  for (const PageSection& section : sections) {
    page += "<a href=\"#" + section.id + "\">" + htmlEscape(section.heading) + "</a>";
  }
  page +=
      "</nav>\n</header>\n<div id=\"distbench-errors\" class=\"errors\" hidden></div>\n<main>\n";
  for (const PageSection& section : sections) {
    page += "<section id=\"" + section.id + "\">\n<h2>" + htmlEscape(section.heading) + "</h2>\n" +
            section.html + "</section>\n";
  }
  page += "</main>\n<footer>\n<p>Written by distbench " DISTBENCH_VERSION " from <code>" +
          htmlEscape(input.runSource) +
          "</code>. Self-contained: the data, the charts and the libraries that draw them "
          "(<span id=\"chart-library-versions\">Vega, Vega-Lite and vega-embed</span>) are all "
          "in this file; it fetches nothing.</p>\n" +
          licences(libraries) + "</footer>\n<pre id=\"" + kRenderStatusId +
          "\" hidden></pre>\n<script type=\"application/json\" id=\"" + kReportDataId + "\">" +
          jsonForScriptElement(dataJson(input, sections)) + "</script>\n";
  for (const ChartLibrary& library : libraries) {
    page += inlineScript(library.name, library.script);
  }
  return page + inlineScript("the page script", kPageDrawScript) + "</body>\n</html>\n";
}

}  // namespace distbench::cli
