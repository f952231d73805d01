// CsvTable: the data behind one plot, as the plot controllers hand it over for "Export CSV".
//
// A header and rows of already formatted cells. Numbers are formatted by csv_number(), the
// shortest text that reads back to the same double (std::to_chars), so a CSV holds exactly the
// values that were plotted. Qt-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace kvsim::gui {

struct CsvTable {
  std::vector<std::string> header;             // column names
  std::vector<std::vector<std::string>> rows;  // each row has header.size() cells
};

// Shortest round-trip text of a double ("0.1", "1e+30"); "nan"/"inf" as such.
std::string csv_number(double value);
std::string csv_number(uint64_t value);

// RFC 4180 text: cells with a comma, quote or newline are quoted; lines end in "\n".
std::string to_csv(const CsvTable& table);

// Writes to_csv(table) to `path`; an unwritable path is an io_error naming it.
Status write_csv(const CsvTable& table, const std::string& path);

}  // namespace kvsim::gui
