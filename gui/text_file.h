// Writing a whole text file (CSV exports, saved scenarios): failures are io_errors naming the
// path, never exceptions.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace kvsim::gui {

Status write_text_file(const std::string& path, std::string_view contents);

}  // namespace kvsim::gui
