#include "distbench/cli/report_page/html_table.h"

#include "distbench/cli/report_page/html_text.h"

namespace distbench::cli {

HtmlTable::HtmlTable(std::vector<std::string> headers, std::string cssClass)
    : headers_(std::move(headers)), cssClass_(std::move(cssClass)) {}

void HtmlTable::addRow(std::vector<std::string> cells, const std::string& rowClass) {
  rows_ += rowClass.empty() ? "<tr>" : "<tr class=\"" + rowClass + "\">";
  for (const std::string& cell : cells) rows_ += "<td>" + htmlEscape(cell) + "</td>";
  rows_ += "</tr>\n";
}

std::string HtmlTable::html() const {
  std::string html = cssClass_.empty() ? "<table>\n" : "<table class=\"" + cssClass_ + "\">\n";
  if (!headers_.empty()) {
    html += "<thead><tr>";
    for (const std::string& header : headers_) html += "<th>" + htmlEscape(header) + "</th>";
    html += "</tr></thead>\n";
  }
  return html + "<tbody>\n" + rows_ + "</tbody>\n</table>\n";
}

}  // namespace distbench::cli
