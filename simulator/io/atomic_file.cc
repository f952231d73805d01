#include "simulator/io/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kvsim::sim {
namespace {

std::filesystem::path temporary_name(const std::filesystem::path& path) {
  static std::atomic<uint64_t> counter{0};
  return path.parent_path() /
         fmt::format(".{}.tmp{}-{}", path.filename().string(), ::getpid(), counter++);
}

// "cannot <what> '<path>': <strerror(errno)>".
Status errno_error(std::string_view what, const std::filesystem::path& path) {
  return Status::io_error(
      fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(errno)));
}

// Writes all of `contents` to `fd`, retrying short writes; false with errno set on an error.
bool write_all(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    contents.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

// Creates `temporary` with `contents` and flushes it to the device (fsync) before closing.
Status write_synced(const std::filesystem::path& temporary, std::string_view contents) {
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno_error("create", temporary);
  Status status = Status::ok();
  if (!write_all(fd, contents)) {
    status = errno_error("write", temporary);
  } else if (::fsync(fd) != 0) {
    status = errno_error("sync", temporary);
  }
  if (::close(fd) != 0 && status.is_ok()) status = errno_error("close", temporary);
  return status;
}

// fsync of a folder: makes a rename inside it durable.
Status sync_folder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_error("open the folder", folder);
  Status status = Status::ok();
  if (::fsync(fd) != 0) status = errno_error("sync the folder", folder);
  ::close(fd);
  return status;
}

}  // namespace

// The order that makes the result crash-safe: the new content reaches the device before the
// rename publishes it, and the folder is synced so that the rename itself is not lost.
Status write_file_atomic(const std::filesystem::path& path, std::string_view contents) {
  std::error_code error;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    return Status::io_error(
        fmt::format("cannot create folder for '{}': {}", path.string(), error.message()));
  }
  const std::filesystem::path temporary = temporary_name(path);
  Status status = write_synced(temporary, contents);
  if (status.is_ok() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = Status::io_error(fmt::format("cannot rename '{}' onto '{}': {}", temporary.string(),
                                          path.string(), std::strerror(errno)));
  }
  if (!status.is_ok()) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return status;
  }
  return sync_folder(path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
}

StatusOr<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::not_found(fmt::format("cannot open '{}'", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::io_error(fmt::format("cannot read '{}'", path.string()));
  return text.str();
}

}  // namespace kvsim::sim
