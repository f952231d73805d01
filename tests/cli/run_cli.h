// Runs the kvsim binary (path compiled in as KVSIM_CLI_PATH) as a user would and captures
// its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kvsim::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `args` is appended to the binary path as shell words (quote them yourself).
inline CliResult run_kvsim(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto err_path = dir / ("kvsim_cli_err_" + std::to_string(::getpid()) + ".txt");
  const std::string command = std::string(KVSIM_CLI_PATH) + " " + args + " 2>" + err_path.string();
  CliResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_text_file(err_path);
  std::filesystem::remove(err_path);
  return result;
}

}  // namespace kvsim::testing
