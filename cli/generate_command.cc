// kvsim generate: runs the tiny LLaMA model on a prompt and prints the prompt and its
// continuation to stdout as llama2.c's `run` does (steps counts positions, prompt included);
// the decode speed goes to stderr. The prompt is prefilled in one chunk (flash kernel) with an
// ND cache, token by token with NZ; every token after it is one decode step.
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>

#include "cli/command.h"
#include "cli/llama_options.h"
#include "kernels/llama_session.h"
#include "kernels/sampler.h"

namespace kvsim::cli {
namespace {

struct GenerateOptions {
  LlamaOptions llama;
  std::string prompt;
  uint32_t steps = 256;
  float temperature = 0.0f;
  uint64_t seed = 1;
};

void print_piece(const kernels::Tokenizer& tokenizer, int prev, int token) {
  const std::string piece = tokenizer.decode_printable(prev, token);
  std::fwrite(piece.data(), 1, piece.size(), stdout);
  std::fflush(stdout);
}

std::span<const float> last_row(const kernels::RowMatrix& logits) {
  return {logits.data() + (logits.rows() - 1) * logits.cols(), size_t(logits.cols())};
}

int run_generate(const GenerateOptions& o) {
  auto loaded = load_llama(o.llama);
  if (!loaded.is_ok()) return report_error(loaded.status());
  auto store = kv_store_options(o.llama);
  if (!store.is_ok()) return report_error(store.status());
  const kernels::LlamaModel& model = *loaded->model;
  const kernels::Tokenizer& tokenizer = *loaded->tokenizer;
  const uint32_t steps = std::min(o.steps, model.config().seq_len);
  auto session = kernels::LlamaSession::create(model, {*store, nullptr, steps});
  if (!session.is_ok()) return report_error(session.status());
  std::vector<int> prompt = tokenizer.encode(o.prompt, /*bos=*/true, /*eos=*/false);
  if (prompt.size() > steps) prompt.resize(steps);
  kernels::RowMatrix logits;
  session->append(prompt, &logits);
  for (size_t i = 1; i < prompt.size(); ++i) print_piece(tokenizer, prompt[i - 1], prompt[i]);
  std::mt19937_64 rng(o.seed);
  int token = prompt.back();
  uint32_t generated = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t pos = static_cast<uint32_t>(prompt.size()) - 1; pos < steps; ++pos) {
    const int next = kernels::sample_token(last_row(logits), o.temperature, &rng);
    if (next == kernels::kBosToken) break;
    print_piece(tokenizer, token, next);
    token = next;
    ++generated;
    if (pos + 1 < steps) session->append({&token, 1}, &logits);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\n");
  std::fflush(stdout);
  if (generated > 0 && seconds > 0.0) {
    std::fprintf(stderr, "achieved tok/s: %.1f (%u tokens decoded after a %zu-token prompt)\n",
                 generated / seconds, generated, prompt.size());
  }
  return kExitOk;
}

}  // namespace

void register_generate_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<GenerateOptions>();
  CLI::App* command = app.add_subcommand("generate", "run the tiny LLaMA model on a prompt");
  add_llama_options(command, &options->llama);
  command->add_option("--prompt", options->prompt, "text to continue");
  command->add_option("--steps", options->steps, "positions to run, prompt included (<= seq_len)")
      ->check(CLI::Range(1u, 1u << 20))
      ->capture_default_str();
  command->add_option("--temperature", options->temperature, "0 = greedy")
      ->check(CLI::Range(0.0f, 100.0f))
      ->capture_default_str();
  command->add_option("--seed", options->seed, "sampling seed")->capture_default_str();
  command->callback([options, chosen] { *chosen = [options] { return run_generate(*options); }; });
}

}  // namespace kvsim::cli
