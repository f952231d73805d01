#include "simulator/io/output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "core/base/units.h"

namespace kvsim::sim {
namespace {

constexpr size_t kBufferBytes = kMiB;

}  // namespace

StatusOr<std::unique_ptr<OutputFile>> OutputFile::create(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error)
    return Status::io_error(parent.string() + ": cannot create folder: " + error.message());
  const std::filesystem::path target(path);
  const std::string temporary =
      (target.parent_path() / fmt::format(".{}.tmp{}", target.filename().string(), ::getpid()))
          .string();
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) {
    return Status::io_error(temporary + ": cannot write: " + std::strerror(errno));
  }
  return std::unique_ptr<OutputFile>(new OutputFile(file, path, temporary));
}

OutputFile::OutputFile(std::FILE* file, std::string path, std::string temporary)
    : file_(file), path_(std::move(path)), temporary_(std::move(temporary)) {
  buffer_.reserve(kBufferBytes);
}

OutputFile::~OutputFile() {
  if (!closed_) {
    std::fclose(file_);
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
  }
}

void OutputFile::flush_buffer() {
  if (buffer_.empty()) return;
  if (status_.is_ok() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    status_ = Status::io_error(temporary_ + ": write failed: " + std::strerror(errno));
  }
  buffer_.clear();
}

void OutputFile::write(std::string_view text) {
  if (buffer_.size() + text.size() > kBufferBytes) flush_buffer();
  buffer_.append(text);
}

void OutputFile::write_int(int64_t value) {
  char text[24];
  const auto result = std::to_chars(text, text + sizeof(text), value);
  write(std::string_view(text, static_cast<size_t>(result.ptr - text)));
}

void OutputFile::write_uint(uint64_t value) {
  char text[24];
  const auto result = std::to_chars(text, text + sizeof(text), value);
  write(std::string_view(text, static_cast<size_t>(result.ptr - text)));
}

void OutputFile::write_double(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof(text), value);
  write(std::string_view(text, static_cast<size_t>(result.ptr - text)));
}

Status OutputFile::close() {
  if (closed_) return status_;
  flush_buffer();
  closed_ = true;
  if (std::fclose(file_) != 0 && status_.is_ok()) {
    status_ = Status::io_error(temporary_ + ": close failed: " + std::strerror(errno));
  }
  if (!status_.is_ok()) return status_;
  std::error_code error;
  std::filesystem::rename(temporary_, path_, error);
  if (error) status_ = Status::io_error(path_ + ": cannot rename into place: " + error.message());
  return status_;
}

}  // namespace kvsim::sim
