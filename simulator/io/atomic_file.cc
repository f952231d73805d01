#include "simulator/io/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kvsim::sim {
namespace {

std::filesystem::path temporary_name(const std::filesystem::path& path) {
  static std::atomic<uint64_t> counter{0};
  return path.parent_path() / ("." + path.filename().string() + ".tmp" +
                               std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

}  // namespace

Status write_file_atomic(const std::filesystem::path& path, std::string_view contents) {
  std::error_code error;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  if (error)
    return Status::io_error("cannot create folder for '" + path.string() + "': " + error.message());
  const std::filesystem::path temporary = temporary_name(path);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) return Status::io_error("cannot write '" + temporary.string() + "'");
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return Status::io_error("cannot rename onto '" + path.string() + "'");
  }
  return Status::ok();
}

StatusOr<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::not_found("cannot open '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::io_error("cannot read '" + path.string() + "'");
  return text.str();
}

}  // namespace kvsim::sim
