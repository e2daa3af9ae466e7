// The HTML report's page skeleton, style and script (src/report/html/), embedded at build time by
// cmake/embed_assets.cmake.
#pragma once

#include <string_view>

namespace grainscope {

extern const std::string_view kHtmlPage;      // page.html: placeholders @TITLE@ @CSS@ @DATA@ @JS@ @TABLES_JS@
extern const std::string_view kHtmlCss;       // report.css
extern const std::string_view kHtmlJs;        // report.js: the page and the Gantt chart
extern const std::string_view kHtmlTablesJs;  // tables.js: the report tables

}  // namespace grainscope
