// The catalogue: every preset listed in presets/hf/catalogue.tsv is exactly what the importer
// makes of its config (scripts/import-hf-presets regenerates them), and loads to the imported
// ModelSpec.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/config/presets.h"
#include "core/model/hf_config.h"
#include "core/model/load_spec.h"
#include "tests/test_data.h"

namespace kvsim {
namespace {

struct Row {
  std::string name, file, source;
};

std::vector<Row> catalogue() {
  std::ifstream in(testing::source_dir() / "presets/hf/catalogue.tsv");
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Row row;
    std::getline(fields, row.name, '\t');
    std::getline(fields, row.file, '\t');
    std::getline(fields, row.source);
    rows.push_back(row);
  }
  return rows;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CatalogueTest, CommittedPresetsAreWhatTheImporterMakes) {
  const std::vector<Row> rows = catalogue();
  ASSERT_GE(rows.size(), 40u) << "presets/hf/catalogue.tsv not found or short";
  for (const Row& row : rows) {
    const std::string config = "presets/hf/" + row.file;
    auto imported = import_hf_config_file((testing::source_dir() / config).string(), row.name);
    ASSERT_TRUE(imported.is_ok()) << imported.status().message();
    imported->model.source = row.source;
    const std::string committed =
        read(testing::source_dir() / "presets/models" / (row.name + ".yaml"));
    EXPECT_EQ(committed, imported_model_yaml(*imported, config))
        << "presets/models/" << row.name << ".yaml is stale: run scripts/import-hf-presets";
    auto preset = load_model(row.name);
    ASSERT_TRUE(preset.is_ok()) << preset.status().message();
    // A model YAML does not carry the checkpoint's dtype: a scenario runs the preset at fp16
    // unless it says otherwise, so the presets' figures stay what they were.
    imported->model.checkpoint_dtype.reset();
    EXPECT_EQ(*preset, imported->model) << row.name;
  }
}

TEST(CatalogueTest, ConfigPathsLoadThroughTheImporter) {
  const std::string path = (testing::source_dir() / "presets/hf/openai__gpt-oss-20b.json").string();
  auto model = load_model(path);
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  EXPECT_EQ(model->name, "openai__gpt-oss-20b");
  EXPECT_TRUE(is_hybrid(*model));
  EXPECT_TRUE(looks_like_path("config.json"));
  auto missing = load_model("missing/config.json");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.status().message().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace kvsim
