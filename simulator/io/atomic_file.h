// Crash-safe file output: write to a temporary name in the same folder, fsync it, rename it over
// the target, then fsync the folder. A reader (or a resumed run) sees either the old file or the
// complete new one, never a torn one, whenever the process is killed or the machine goes down.
// A failure leaves the old file (if any) and no temporary behind; its Status names the path.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace kvsim::sim {

// Writes `contents` to `path` atomically (creating parent folders).
Status write_file_atomic(const std::filesystem::path& path, std::string_view contents);

// Reads a whole file.
StatusOr<std::string> read_file(const std::filesystem::path& path);

}  // namespace kvsim::sim
