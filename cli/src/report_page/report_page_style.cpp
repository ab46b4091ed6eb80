#include "distbench/cli/report_page/report_page_static.h"

namespace distbench::cli {

const char* const kPageStyle = R"CSS(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       margin: 0 auto; padding: 0 24px 48px; max-width: 1180px; }
header { border-bottom: 1px solid #ddd; margin-bottom: 8px; }
h1 { font-size: 26px; margin: 20px 0 2px; }
h1 small { font-size: 16px; color: #666; font-weight: normal; margin-left: 8px; }
h2 { font-size: 20px; margin: 32px 0 8px; border-bottom: 1px solid #eee; }
h3 { font-size: 16px; margin: 24px 0 6px; }
.subtitle { color: #555; margin: 0 0 6px; }
nav a { margin-right: 14px; color: #1f5f9f; text-decoration: none; }
figure { margin: 12px 0 22px; }
figcaption, .note { color: #555; font-size: 13px; max-width: 860px; }
.note { border-left: 3px solid #ccc; padding: 2px 10px; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0 12px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 1px solid #bbb; }
table.fields td { text-align: left; }
table.fields td:first-child { color: #555; }
tr.regressed td { background: #fde2e1; font-weight: 600; }
.verdict { padding: 6px 10px; font-weight: 600; }
.verdict.bad { background: #fde2e1; }
.verdict.good { background: #e3f4e1; }
.errors { background: #fde2e1; border: 1px solid #d62728; padding: 8px 12px; margin: 12px 0; }
details { margin: 8px 0; }
summary { cursor: pointer; color: #1f5f9f; }
pre { background: #f7f7f7; padding: 10px; overflow-x: auto; font-size: 12px; }
code { font-size: 13px; }
footer { margin-top: 40px; border-top: 1px solid #ddd; color: #666; font-size: 13px; }
)CSS";

}  // namespace distbench::cli
