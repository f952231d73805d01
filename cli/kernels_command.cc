// kvsim kernels validate: runs every reference kernel on seeded random cases against the
// oracle and reports, per kernel, the max absolute and relative error and its tolerance.
// Exit code 1 when any kernel exceeds its tolerance.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "kernels/kernel_validation.h"

namespace kvsim::cli {
namespace {

struct ValidateOptions {
  uint64_t seed = 1;
  uint32_t cases = 24;
  bool json = false;
};

nlohmann::json to_json(const kernels::ValidationReport& report) {
  nlohmann::json out;
  out["pass"] = report.pass;
  out["kernels"] = nlohmann::json::array();
  for (const kernels::KernelReport& k : report.kernels) {
    out["kernels"].push_back({{"name", k.name},
                              {"cases", k.cases},
                              {"max_abs_err", k.max_abs_err},
                              {"max_rel_err", k.max_rel_err},
                              {"tolerance", k.tolerance},
                              {"pass", k.pass}});
  }
  return out;
}

void print_text(const kernels::ValidationReport& report, const ValidateOptions& o) {
  std::printf("Reference kernels against the oracle (seed %llu, %u cases each)\n\n",
              static_cast<unsigned long long>(o.seed), o.cases);
  std::printf("%-24s %6s %12s %12s %10s  %s\n", "kernel", "cases", "max_abs_err", "max_rel_err",
              "tolerance", "result");
  for (const kernels::KernelReport& k : report.kernels) {
    std::printf("%-24s %6u %12.3e %12.3e %10.1e  %s\n", k.name.c_str(), k.cases, k.max_abs_err,
                k.max_rel_err, k.tolerance, k.pass ? "pass" : "FAIL");
  }
  std::printf("\n%s\n",
              report.pass ? "all kernels within tolerance" : "some kernels exceed their tolerance");
}

int run_validate(const ValidateOptions& o) {
  const kernels::ValidationReport report = kernels::validate_kernels(o.seed, o.cases);
  if (o.json) {
    std::printf("%s\n", to_json(report).dump(2).c_str());
  } else {
    print_text(report, o);
  }
  return report.pass ? kExitOk : kExitCheckFailed;
}

}  // namespace

void register_kernels_command(CLI::App& app, CommandFn* chosen) {
  CLI::App* command = app.add_subcommand("kernels", "reference attention kernels");
  command->require_subcommand(1);
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* validate = command->add_subcommand("validate", "check every kernel against the oracle");
  validate->add_option("--seed", options->seed, "random seed of the cases")->capture_default_str();
  validate->add_option("--cases", options->cases, "random cases per kernel")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  validate->add_flag("--json", options->json, "print JSON");
  validate->callback([options, chosen] { *chosen = [options] { return run_validate(*options); }; });
}

}  // namespace kvsim::cli
