#include "distbench/cli/report_page/report_page_section.h"

#include "distbench/cli/report_page/html_text.h"

namespace distbench::cli {

std::string chartFigure(const Chart& chart, const std::string& caption) {
  return "<figure>\n<div class=\"chart\" id=\"" + chart.id + "\"></div>\n<figcaption>" +
         htmlEscape(caption) + "</figcaption>\n</figure>\n";
}

std::string noteParagraph(const std::string& text) {
  return "<p class=\"note\">" + htmlEscape(text) + "</p>\n";
}

}  // namespace distbench::cli
