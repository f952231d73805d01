// CSV rows for the trace readers: one line split into fields, and a header that maps column
// names to positions.
//
// Fields are separated by commas; a field may be double-quoted ("a,b" and "" for a quote).
// Surrounding spaces are trimmed. split_csv_line reuses the caller's vector, so reading a
// file allocates nothing per row once the vector has grown.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace kvsim::sim {

// Splits `line` into *fields (views into `line`, or into *scratch for quoted fields with
// escapes). False when a quote is not closed.
bool split_csv_line(std::string_view line, std::vector<std::string_view>* fields,
                    std::string* scratch);

// Column positions of a CSV header.
class CsvHeader {
 public:
  explicit CsvHeader(const std::vector<std::string_view>& names);
  // Position of `name`, or -1.
  int find(std::string_view name) const;
  // Position of `name`; a missing column is an error naming the file and the columns found.
  StatusOr<int> require(std::string_view name, const std::string& where) const;
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
};

// A whole non-negative number from a CSV field ("12", also "12.0"); the message says which
// column held what.
Status parse_count_field(std::string_view text, std::string_view column, uint64_t* out);
// A finite number.
Status parse_number_field(std::string_view text, std::string_view column, double* out);

}  // namespace kvsim::sim
