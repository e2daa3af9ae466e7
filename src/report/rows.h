// How long tables are cut in text output: the top N rows (`--top N`, default 20; `--all` or 0:
// every row), and a line saying how many were left out, so a text report of a million grains
// stays a page. JSON and CSV are never cut.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include <fmt/format.h>

namespace grainscope {

// The number of rows of a table of `total` a text report shows when `top` are asked for.
inline size_t RowsShown(size_t total, size_t top) { return top == 0 ? total : std::min(total, top); }

// "  ... 980 more rows (--top N or --all shows them)\n" after a cut table, "" when nothing was cut.
// `indent` matches the table's rows.
inline std::string RowsLeftOut(size_t total, size_t shown, std::string_view indent = "  ") {
  if (shown >= total) return {};
  return fmt::format("{}... {} more row{} (--top N or --all shows them)\n", indent, total - shown,
                     total - shown == 1 ? "" : "s");
}

// A cut table's rows: `row(i)` for the first RowsShown(total, top) of them, then RowsLeftOut.
template <class Row>
void AppendRows(std::string& out, size_t total, size_t top, Row&& row) {
  const size_t shown = RowsShown(total, top);
  for (size_t i = 0; i < shown; ++i) out += row(i);
  out += RowsLeftOut(total, shown);
}

}  // namespace grainscope
