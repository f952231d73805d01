#include "simulator/io/line_reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kvsim::sim {

StatusOr<std::unique_ptr<LineReader>> LineReader::open(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return Status::not_found(path + ": no such file");
  if (std::filesystem::is_directory(path, error)) {
    return Status::invalid_argument(path + ": is a folder, expected a trace file");
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Status::io_error(path + ": cannot open: " + std::strerror(errno));
  const auto size = std::filesystem::file_size(path, error);
  return std::unique_ptr<LineReader>(new LineReader(file, path, error ? 0 : size));
}

LineReader::LineReader(std::FILE* file, std::string path, uint64_t file_bytes)
    : file_(file), path_(std::move(path)), file_bytes_(file_bytes) {
  buffer_.resize(kBufferBytes);
}

LineReader::~LineReader() { std::fclose(file_); }

std::string LineReader::where() const { return fmt::format("{}:{}", path_, line_number_); }

bool LineReader::refill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // a line longer than the buffer
  const size_t n = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  end_ += n;
  if (n == 0) {
    eof_ = true;
    read_error_ = std::ferror(file_) != 0;
  }
  return n > 0;
}

StatusOr<bool> LineReader::next(std::string_view* line) {
  size_t scanned = begin_;
  for (;;) {
    const void* newline = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (newline != nullptr) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(newline) - buffer_.data());
      size_t stop = at;
      if (stop > begin_ && buffer_[stop - 1] == '\r') --stop;
      *line = std::string_view(buffer_.data() + begin_, stop - begin_);
      bytes_consumed_ += at + 1 - begin_;
      begin_ = at + 1;
      ++line_number_;
      return true;
    }
    if (end_ - begin_ > kMaxLineBytes) {
      ++line_number_;
      return Status::io_error(
          fmt::format("{}: line longer than {} MiB", where(), kMaxLineBytes / kMiB));
    }
    const size_t unread_before = end_ - begin_;
    if (!refill()) break;
    scanned = begin_ + unread_before;
  }
  if (read_error_) return Status::io_error(path_ + ": read error: " + std::strerror(errno));
  if (begin_ == end_) return false;
  // The last line has no terminator.
  size_t stop = end_;
  if (buffer_[stop - 1] == '\r') --stop;
  *line = std::string_view(buffer_.data() + begin_, stop - begin_);
  bytes_consumed_ += end_ - begin_;
  begin_ = end_;
  ++line_number_;
  return true;
}

StatusOr<bool> LineReader::next_non_blank(std::string_view* line, std::string_view blank) {
  for (;;) {
    KVSIM_ASSIGN_OR_RETURN(const bool more, next(line));
    if (!more) return false;
    if (line->find_first_not_of(blank) != std::string_view::npos) return true;
  }
}

}  // namespace kvsim::sim
