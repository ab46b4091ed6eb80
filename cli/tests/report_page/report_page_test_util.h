// Reading a written report page back in the tests: its JSON data block, its
// charts' specs, and its parts outside the bundled libraries.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "distbench/cli/report_page/report_page.h"
#include "distbench/cli/report_page/vega_lite.h"
#include "distbench/report/report_json.h"

namespace distbench::cli::testing {

inline const std::string kReportFixtures = REPORT_FIXTURE_DIR;
inline const std::string kDiffFixtures = DIFF_FIXTURE_DIR;

inline report::Report fixture(const std::string& name) {
  return report::loadReportFile(kReportFixtures + "/" + name);
}

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

inline size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The text between the data block's opening tag and the next "</script>",
// as the HTML parser would cut it, parsed as JSON as the page script does.
inline vl::Json dataBlock(const std::string& page) {
  const std::string open =
      std::string("<script type=\"application/json\" id=\"") + kReportDataId + "\">";
  const size_t start = page.find(open);
  EXPECT_NE(start, std::string::npos) << "no data block";
  if (start == std::string::npos) return vl::Json();
  const size_t begin = start + open.size();
  const size_t end = page.find("</script>", begin);
  return vl::Json::parse(page.substr(begin, end - begin));
}

inline std::vector<std::string> chartIds(const vl::Json& data) {
  std::vector<std::string> ids;
  for (const vl::Json& chart : data.at("charts").as_array())
    ids.push_back(chart.at("id").as_string());
  return ids;
}

inline vl::Json chartSpec(const vl::Json& data, const std::string& id) {
  for (const vl::Json& chart : data.at("charts").as_array()) {
    if (chart.at("id").as_string() == id) return chart.at("spec");
  }
  ADD_FAILURE() << "no chart " << id;
  return vl::Json();
}

// The page with the bundled libraries' text cut out: what distbench wrote
// itself.
inline std::string withoutLibraries(std::string page, const std::vector<ChartLibrary>& libraries) {
  for (const ChartLibrary& library : libraries) {
    const size_t at = page.find(library.script);
    if (at != std::string::npos) page.erase(at, library.script.size());
  }
  return page;
}

}  // namespace distbench::cli::testing
