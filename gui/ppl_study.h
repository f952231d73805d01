// The PPL-impact view's model, Qt-free: perplexity of a text under KV cache policies at several
// cache budgets, measured by the same calls as `kvsim ppl --budgets` (kernels/ppl_job.h, then
// measure_perplexity()), and arranged as one curve per policy spec for the plot:
//
//   evicting spec (window, sink, h2o)   one point per budget: ppl, KV bytes saved vs full
//   other spec (int8, int4)             one point, drawn across the budgets as a level
//   full                                the baseline every report starts with
// KV bytes saved = kv_bytes(full) - kv_bytes(policy): per sequence, at its largest.
// "full" itself is the baseline and is not accepted as a spec.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "kernels/kv_store.h"
#include "kernels/perplexity.h"

namespace kvsim::gui {

// The shared tiny model (core/base/data_dir.h): model.bin, tokenizer.bin and eval_a.txt.
inline constexpr const char* kDefaultCheckpointDir = "data:models/kjv-tiny/";

struct PplStudyInput {
  // A folder holding model.bin (and tokenizer.bin, eval_a.txt), or a model file.
  std::string checkpoint = kDefaultCheckpointDir;
  std::string tokenizer;       // "" = tokenizer.bin beside the model
  std::string text;            // "" = eval_a.txt beside the model
  uint32_t ctx = 0;            // window length; 0 = the model's seq_len
  uint64_t max_tokens = 4096;  // score the first N tokens; 0 = all
  std::vector<std::string> policies = {"window:64", "sink:4,60", "h2o:32,32", "int8"};
  std::vector<uint64_t> budgets = {16, 32, 64, 128, 256};
  kernels::KvStoreOptions store;  // layout, dtype, block size of the unquantized runs
};

struct PplCurve {
  std::string spec;  // as given
  bool evicts = false;
  std::vector<uint64_t> budgets;      // evicting: the budgets; else empty
  std::vector<std::string> policies;  // the canonical spec measured at each point
  std::vector<double> ppl;
  std::vector<double> kv_bytes_saved;
};

struct PplStudy {
  PplStudyInput input;
  kernels::PerplexityReport report;  // exactly as measure_perplexity() returned it
  double full_ppl = 0;
  uint64_t full_kv_bytes = 0;
  std::vector<PplCurve> curves;  // one per spec, in input order
};

// The model, tokenizer and text files the input names ("data:" paths kept as given).
struct PplFiles {
  std::string model;
  std::string tokenizer;
  std::string text;
};
PplFiles ppl_files(const PplStudyInput& input);

// "16,32 64" -> {16, 32, 64} (commas or spaces); a bad number is an error naming it.
StatusOr<std::vector<uint64_t>> parse_budgets(std::string_view text);
// Policy specs separated by spaces (a spec may hold commas: "sink:4,60 int8").
std::vector<std::string> split_specs(std::string_view text);

// Loads, measures and arranges. `progress` gets the share done; `stop` cancels.
StatusOr<PplStudy> run_ppl_study(const PplStudyInput& input,
                                 const std::function<void(double)>& progress,
                                 const std::atomic<bool>* stop);

// Arranges a report of `input` (policies expanded as kernels::expand_ppl_policies does).
StatusOr<std::vector<PplCurve>> ppl_curves(const PplStudyInput& input,
                                           const kernels::PerplexityReport& report);

}  // namespace kvsim::gui
