// LineReader: a text file read line by line through a fixed buffer, never whole.
//
// Traces run to tens of millions of rows (Azure 2024: 27 M), so readers stream them: memory
// stays at the buffer (plus the longest line) whatever the file's size. Lines end in "\n" or
// "\r\n"; the terminator is not part of the line. Line numbers are 1-based, for messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/base/units.h"

namespace kvsim::sim {

class LineReader {
 public:
  // Opens `path`; a missing or unreadable file is kNotFound / kIoError.
  static StatusOr<std::unique_ptr<LineReader>> open(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line in *line (valid until the next call), or false at the end of the file.
  // A line longer than kMaxLineBytes or a read error is a non-ok Status.
  StatusOr<bool> next(std::string_view* line);
  // The next line holding something besides the `blank` characters (blank lines skipped).
  StatusOr<bool> next_non_blank(std::string_view* line, std::string_view blank = " \t");

  const std::string& path() const { return path_; }
  uint64_t line_number() const { return line_number_; }  // of the last line returned
  uint64_t bytes_consumed() const { return bytes_consumed_; }
  uint64_t file_bytes() const { return file_bytes_; }
  // "path:line" of the last line returned.
  std::string where() const;

  static constexpr size_t kBufferBytes = kMiB;
  static constexpr size_t kMaxLineBytes = 64 * kMiB;

 private:
  LineReader(std::FILE* file, std::string path, uint64_t file_bytes);
  bool refill();  // moves the unread tail to the front and reads more; false at EOF

  std::FILE* file_;
  std::string path_;
  uint64_t file_bytes_;
  std::string buffer_;
  size_t begin_ = 0;  // first unread byte
  size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;
  bool read_error_ = false;
  uint64_t line_number_ = 0;
  uint64_t bytes_consumed_ = 0;
};

}  // namespace kvsim::sim
