// write_file_atomic: the content lands under the final name, nothing else is left in the
// folder, and a failure is a Status naming the path that leaves the old file alone.
#include "simulator/io/atomic_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "atomic_file" / name;
  fs::remove_all(dir);
  return dir;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  return names;
}

TEST(AtomicFile, WritesAndReplacesTheContentLeavingNoTemporary) {
  const fs::path dir = fresh_dir("replace");
  const fs::path path = dir / "nested" / "result.json";  // folders are created
  ASSERT_TRUE(write_file_atomic(path, "first\n").is_ok());
  EXPECT_EQ(read_file(path).value(), "first\n");
  const std::string big(3 << 20, 'x');  // more than one write() may take
  ASSERT_TRUE(write_file_atomic(path, big).is_ok());
  EXPECT_EQ(read_file(path).value(), big);
  ASSERT_TRUE(write_file_atomic(path, "").is_ok());
  EXPECT_EQ(read_file(path).value(), "");
  EXPECT_EQ(entries(dir / "nested"), std::vector<std::string>{"result.json"});
}

TEST(AtomicFile, AFolderThatCannotBeCreatedIsAnErrorNamingThePath) {
  const fs::path dir = fresh_dir("not-a-folder");
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "in the way";
  const fs::path path = dir / "file" / "result.json";  // its folder would be a file
  const Status status = write_file_atomic(path, "content");
  ASSERT_FALSE(status.is_ok());
  EXPECT_THAT(status.message(), HasSubstr("cannot create folder for '" + path.string() + "'"));
}

TEST(AtomicFile, AFailedRenameKeepsWhatWasThereAndLeavesNoTemporary) {
  const fs::path dir = fresh_dir("rename");
  const fs::path path = dir / "result";
  fs::create_directories(path / "inside");  // a non-empty folder cannot be renamed over
  const Status status = write_file_atomic(path, "content");
  ASSERT_FALSE(status.is_ok());
  EXPECT_THAT(status.message(), HasSubstr("onto '" + path.string() + "'"));
  EXPECT_TRUE(fs::is_directory(path / "inside"));
  EXPECT_EQ(entries(dir), std::vector<std::string>{"result"});
}

TEST(AtomicFile, AnUnwritableFolderIsAnErrorNamingThePath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  const fs::path dir = fresh_dir("read-only");
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  const Status status = write_file_atomic(dir / "result", "content");
  fs::permissions(dir, fs::perms::owner_all);
  ASSERT_FALSE(status.is_ok());
  EXPECT_THAT(status.message(), HasSubstr(dir.string()));
  EXPECT_TRUE(entries(dir).empty());
}

TEST(AtomicFile, ReadingAMissingFileIsNotFound) {
  const auto missing = read_file(fresh_dir("missing") / "nothing");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace kvsim::sim
