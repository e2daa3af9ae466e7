// The HTML report's page skeleton, style and script (src/report/html/), embedded at build time by
// cmake/embed_assets.cmake.
#pragma once

#include <string_view>

namespace grainscope {

extern const std::string_view kHtmlPage;  // page.html: placeholders @TITLE@ @CSS@ @DATA@ @JS@
extern const std::string_view kHtmlCss;   // report.css
extern const std::string_view kHtmlJs;    // report.js

}  // namespace grainscope
