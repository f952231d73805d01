// kvsim model import: a Hugging Face config.json as the equivalent kvsim model YAML (which
// loads back to the same ModelSpec), its parameter count in the comment lines.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "core/model/hf_config.h"

namespace kvsim::cli {
namespace {

struct ModelImportOptions {
  std::string config;  // path to config.json
  std::string name;    // the model's name; default: the file's stem
  std::string source;  // the YAML's source line; default: the file
};

int run_model_import(const ModelImportOptions& o) {
  auto imported = import_hf_config_file(o.config, o.name);
  if (!imported.is_ok()) return report_error(imported.status());
  if (!o.source.empty()) imported->model.source = o.source;
  std::printf("%s", imported_model_yaml(*imported, o.config).c_str());
  return kExitOk;
}

}  // namespace

void register_model_command(CLI::App& app, CommandFn* chosen) {
  CLI::App* model = app.add_subcommand("model", "model presets from Hugging Face configs");
  model->require_subcommand(1);
  auto options = std::make_shared<ModelImportOptions>();
  std::string supported;
  for (const std::string& name : supported_hf_architectures()) {
    supported += (supported.empty() ? "" : ", ") + name;
  }
  CLI::App* import = model->add_subcommand(
      "import",
      "print the kvsim model YAML of a transformers config.json (reads " + supported + ")");
  import->add_option("config", options->config, "path to config.json")->required();
  import->add_option("--name", options->name, "model name (default: the file's stem)");
  import->add_option("--source", options->source, "the YAML's source line");
  import->callback(
      [options, chosen] { *chosen = [options] { return run_model_import(*options);
};
}  // namespace kvsim::cli
);
}

}  // namespace kvsim::cli
