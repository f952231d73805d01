// Where kvsim finds the shared, read-only data (the tiny trained model, real traces).
//
// The folder is $KVSIM_DATA_DIR when set, else the build's default: <source>/../shared, the
// layout of a checkout beside its data. Configuration files name such files as
// "data:traces/conversation_trace.jsonl" so that no machine-specific path is written anywhere.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kvsim {

inline constexpr std::string_view kDataPrefix = "data:";

// $KVSIM_DATA_DIR, or the folder compiled in as the default.
std::filesystem::path data_dir();

// "data:rest" -> data_dir()/rest; any other path is returned unchanged.
std::string resolve_data_path(std::string_view path);

}  // namespace kvsim
