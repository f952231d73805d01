#include "core/report/engine_memory_report.h"

#include <sstream>

#include "core/base/text_format.h"

namespace kvsim {
namespace {

std::string bytes_line(uint64_t bytes) {
  return format_count(bytes) + " B (" + format_bytes(bytes) + ")";
}

void describe_settings(const EngineBudget& b, std::ostringstream& out) {
  out << "Engine  " << engine_label(b);
  if (b.kind == EngineKind::kVllm || b.kind == EngineKind::kVllmAscend) {
    out << " (`vllm serve` defaults unless --entry-point llm)";
  }
  out << ": max_model_len " << format_count(b.max_model_len);
  if (b.max_num_batched_tokens > 0) {
    out << ", "
        << (b.kind == EngineKind::kSglang ? "chunked_prefill_size " : "max_num_batched_tokens ")
        << format_count(b.max_num_batched_tokens);
  }
  if (b.max_num_seqs > 0) out << ", max_num_seqs " << format_count(b.max_num_seqs);
  if (b.kind != EngineKind::kSglang)
    out << ", chunked prefill " << (b.chunked_prefill ? "on" : "off");
  out << "\n";
}

}  // namespace

std::string engine_label(const EngineBudget& budget) {
  return std::string(engine_kind_name(budget.kind)) + " " + engine_version_name(budget.version);
}

std::string engine_budget_report(const EngineBudget& b) {
  std::ostringstream out;
  describe_settings(b, out);
  out << "KV budget per device (what " << engine_label(b) << " sets aside, term by term)\n";
  out << "  requested  = " << b.requested_formula << "\n"
      << "             = " << bytes_line(b.requested_bytes) << "\n"
      << "               [" << b.requested_source << "]\n"
      << "               total: " << b.total_source << "\n";
  for (const SetAsideTerm& term : b.terms) {
    out << "  - " << term.name << " = " << bytes_line(term.bytes) << "\n"
        << "      " << term.formula << "\n"
        << "      [" << term.source << "]\n";
  }
  out << "  = requested - set-aside = " << format_count(b.requested_bytes) << " - "
      << format_count(b.set_aside_bytes);
  if (b.kv_factor < 1.0) {
    out << ", x " << format_number(b.kv_factor) << "\n      [" << b.kv_factor_source << "]";
  }
  out << "\n  KV budget  = " << bytes_line(b.kv_budget_bytes)
      << (b.budget_negative ? "  (the set-aside exceeds the requested memory: nothing fits)" : "")
      << "\n";
  for (const std::string& note : b.notes) out << "  note: " << note << "\n";
  return out.str();
}

}  // namespace kvsim
