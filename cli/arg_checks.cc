#include "cli/arg_checks.h"

#include <cctype>
#include <vector>

#include "core/base/names.h"

namespace kvsim::cli {
namespace {

bool reads_as_negative_number(const std::string& value) {
  return value.size() > 1 && value[0] == '-' &&
         (std::isdigit(static_cast<unsigned char>(value[1])) != 0 || value[1] == '.');
}

// The subcommand the user chose, the deepest one parsed (the app itself when none).
const CLI::App* chosen_command(const CLI::App& app) {
  const CLI::App* deepest = &app;
  for (bool found = true; found;) {
    found = false;
    for (const CLI::App* sub : deepest->get_subcommands()) {
      deepest = sub;
      found = true;
      break;
    }
  }
  return deepest;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

}  // namespace

void forbid_negative_numbers(CLI::App* app) {
  for (CLI::Option* option : app->get_options()) {
    if (option->get_type_size() == 0) continue;  // a flag
    option->check(CLI::Validator(
        [](std::string& value) -> std::string {
          return reads_as_negative_number(value)
                     ? value + " is negative; the value must be 0 or more"
                     : std::string();
        },
        "", "non-negative"));
  }
  for (CLI::App* sub : app->get_subcommands({})) forbid_negative_numbers(sub);
}

std::string parse_error_hint(const CLI::App& app) {
  const CLI::App* command = chosen_command(app);
  std::string hint;
  for (const std::string& arg : app.remaining(true)) {
    std::string near;
    std::string what;
    if (arg.rfind("--", 0) == 0) {
      near = nearest_name(arg.substr(0, arg.find('=')), option_names(*command));
      what = "option";
    } else if (command == &app) {
      near = nearest_name(arg, subcommand_names(app));
      what = "subcommand";
    }
    if (near.empty()) continue;
    if (!hint.empty()) hint += "\n";
    hint += "kvsim: unknown " + what + " '" + arg + "' (did you mean '" + near + "'?)";
  }
  return hint;
}

}  // namespace kvsim::cli
