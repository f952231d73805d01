#include "gui/text_file.h"

#include <fstream>

namespace kvsim::gui {

Status write_text_file(const std::string& path, std::string_view contents) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return Status::io_error(path + ": cannot open for writing");
  file.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.close();
  if (!file) return Status::io_error(path + ": write failed");
  return Status::ok();
}

}  // namespace kvsim::gui
