#include "format/nsight/nsight_db.h"

#include <sqlite3.h>

#include <fmt/format.h>

namespace grainscope::nsight {

int64_t Row::Int(int column, int64_t absent) const {
  return sqlite3_column_type(s_, column) == SQLITE_NULL ? absent : sqlite3_column_int64(s_, column);
}

std::string_view Row::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(s_, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(s_, column))};
}

bool Row::IsNull(int column) const { return sqlite3_column_type(s_, column) == SQLITE_NULL; }

Result<Database> Database::Open(const std::string& path) {
  sqlite3* db = nullptr;
  // immutable=1: SQLite neither writes nor locks the file, so a user's export (or a read-only
  // copy of it) is left exactly as it was.
  std::string uri = "file:";
  for (const char c : path) {  // a URI's special characters in the path, escaped
    if (c == '%' || c == '?' || c == '#') uri += fmt::format("%{:02x}", static_cast<unsigned char>(c));
    else uri += c;
  }
  uri += "?immutable=1";
  const int rc = sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return DataLoss(fmt::format("{}: cannot open as an SQLite database: {}", path, why));
  }
  // A database's schema is the file's, not ours: its triggers, views and functions are not trusted.
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  Database d(db, path);
  const Status tables = d.ForEach("SELECT name FROM sqlite_master WHERE type = 'table'",
                                  [&](const Row& r) { d.tables_.emplace(r.Text(0)); });
  if (!tables.ok()) return DataLoss(fmt::format("{}: starts as an SQLite database but cannot be read as one: {}", path, sqlite3_errmsg(d.db_)));
  return d;
}

Database::~Database() { sqlite3_close(db_); }

Status Database::ForEach(std::string_view sql, const std::function<void(const Row&)>& row) const {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr) != SQLITE_OK) {
    const std::string why = sqlite3_errmsg(db_);
    sqlite3_finalize(s);
    return DataLoss(fmt::format("{}: not the Nsight Systems export layout grainscope reads ({}) in: {}", path_, why, sql));
  }
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) row(Row(s));
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return DataLoss(fmt::format("{}: reading failed ({}) in: {}", path_, sqlite3_errmsg(db_), sql));
  return OkStatus();
}

int64_t Database::Count(std::string_view table) const {
  int64_t n = 0;
  (void)ForEach(fmt::format("SELECT count(*) FROM \"{}\"", table), [&](const Row& r) { n = r.Int(0, 0); });
  return n;
}

}  // namespace grainscope::nsight
