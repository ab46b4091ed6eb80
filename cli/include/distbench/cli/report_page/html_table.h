// A table of plain-text cells for the report page, escaped as it is written.
#pragma once

#include <string>
#include <vector>

namespace distbench::cli {

class HtmlTable {
 public:
  // No headers: a table of name/value rows without a header line.
  // `cssClass` (fixed text) styles the table: "fields" for name/value rows.
  explicit HtmlTable(std::vector<std::string> headers, std::string cssClass = "");

  // `rowClass` (fixed text, not escaped) styles the row: "regressed".
  void addRow(std::vector<std::string> cells, const std::string& rowClass = "");
  std::string html() const;

 private:
  std::vector<std::string> headers_;
  std::string cssClass_;
  std::string rows_;
};

}  // namespace distbench::cli
