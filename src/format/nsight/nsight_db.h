// Read-only access to an Nsight Systems SQLite export (internal to the reader, nsight_reader.h):
// the database opened immutable (never written, no journal or lock file next to a user's
// trace), which tables it has, and each query's rows as integers and text.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace grainscope::nsight {

// One row of a query: its columns by position (NULL reads as `absent`).
class Row {
 public:
  explicit Row(sqlite3_stmt* s) : s_(s) {}
  int64_t Int(int column, int64_t absent = -1) const;
  std::string_view Text(int column) const;  // empty for NULL
  bool IsNull(int column) const;

 private:
  sqlite3_stmt* s_;
};

class Database {
 public:
  // Opens `path` read-only; an error names the file and SQLite's reason.
  static Result<Database> Open(const std::string& path);
  Database(Database&& other) noexcept : db_(other.db_), path_(std::move(other.path_)), tables_(std::move(other.tables_)) {
    other.db_ = nullptr;
  }
  Database& operator=(Database&&) = delete;
  ~Database();

  bool Has(std::string_view table) const { return tables_.contains(std::string(table)); }
  const std::unordered_set<std::string>& tables() const { return tables_; }
  // Runs `sql`, calling `row` for each row; an error (a damaged database, a column this export
  // lacks) names the file and the query's table.
  Status ForEach(std::string_view sql, const std::function<void(const Row&)>& row) const;
  // The number of rows of `table` (0 when it cannot be counted).
  int64_t Count(std::string_view table) const;

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  std::unordered_set<std::string> tables_;
};

}  // namespace grainscope::nsight
