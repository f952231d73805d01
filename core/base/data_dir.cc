#include "core/base/data_dir.h"

#include <cstdlib>

#ifndef KVSIM_DEFAULT_DATA_DIR
#define KVSIM_DEFAULT_DATA_DIR "../shared"
#endif

namespace kvsim {

std::filesystem::path data_dir() {
  const char* from_env = std::getenv("KVSIM_DATA_DIR");
  if (from_env != nullptr && *from_env != '\0') return from_env;
  return KVSIM_DEFAULT_DATA_DIR;
}

std::string resolve_data_path(std::string_view path) {
  if (path.substr(0, kDataPrefix.size()) != kDataPrefix) return std::string(path);
  return (data_dir() / std::string(path.substr(kDataPrefix.size()))).string();
}

}  // namespace kvsim
