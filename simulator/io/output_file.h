// OutputFile: a streamed result file (requests.csv, timeseries.csv, a Chrome trace) written
// through a buffer and published atomically.
//
// The text goes to a temporary ".<name>.tmp<pid>" beside <path> and is renamed to <path> by
// close(), so a run killed midway never leaves a truncated file under the final name (sweeps
// resume on that; small whole files use simulator/io/atomic_file.h). Numbers are
// formatted with std::to_chars: shortest round-trip text, the same on every run and locale.
// Write errors are sticky and reported by close().
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace kvsim::sim {

class OutputFile {
 public:
  // Creates the file's folder when missing.
  static StatusOr<std::unique_ptr<OutputFile>> create(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text);
  void write_int(int64_t value);
  void write_uint(uint64_t value);
  void write_double(double value);  // shortest round-trip form
  // Flushes, closes and renames into place; the first error if any.
  Status close();
  const std::string& path() const { return path_; }

 private:
  OutputFile(std::FILE* file, std::string path, std::string temporary);
  void flush_buffer();

  std::FILE* file_;
  std::string path_;
  std::string temporary_;
  std::string buffer_;
  Status status_;
  bool closed_ = false;
};

}  // namespace kvsim::sim
