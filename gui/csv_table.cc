#include "gui/csv_table.h"

#include <charconv>

#include "gui/save_file.h"

namespace kvsim::gui {
namespace {

std::string quoted(const std::string& cell) {
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string csv_number(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string csv_number(uint64_t value) { return std::to_string(value); }

std::string to_csv(const CsvTable& table) {
  std::string out;
  auto append_row = [&out](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) out += ',';
      out += quoted(row[i]);
    }
    out += '\n';
  };
  append_row(table.header);
  for (const auto& row : table.rows) append_row(row);
  return out;
}

Status write_csv(const CsvTable& table, const std::string& path) {
  return write_text_file(path, to_csv(table));
}

}  // namespace kvsim::gui
