#include "kernels/kernel_validation.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/base/check.h"
#include "kernels/case_storage.h"
#include "kernels/kernel_adapters.h"
#include "kernels/nz_pack.h"

namespace kvsim::kernels {
namespace {

struct CaseError {
  double max_abs = 0.0;
  double max_expected = 0.0;
};

void accumulate(const std::vector<float>& actual, const std::vector<float>& expected,
                CaseError* error) {
  KVSIM_CHECK(actual.size() == expected.size(), "validate: output sizes differ");
  for (size_t i = 0; i < actual.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(actual[i]) - expected[i]);
    error->max_abs = std::isnan(diff) ? INFINITY : std::max(error->max_abs, diff);
    error->max_expected =
        std::max(error->max_expected, std::fabs(static_cast<double>(expected[i])));
  }
}

void fold(const CaseError& error, KernelReport* report) {
  const double rel = error.max_expected > 0.0 ? error.max_abs / error.max_expected
                                              : (error.max_abs > 0.0 ? INFINITY : 0.0);
  report->cases += 1;
  report->max_abs_err = std::max(report->max_abs_err, error.max_abs);
  report->max_rel_err = std::max(report->max_rel_err, rel);
  report->pass = report->pass && rel <= report->tolerance;
}

KernelReport validate_attention(const AttentionKernelAdapter& adapter, uint64_t seed,
                                uint32_t cases) {
  KernelReport report;
  report.name = adapter.name();
  report.tolerance = adapter.tolerance();
  std::mt19937_64 rng(seed);
  for (uint32_t i = 0; i < cases; ++i) {
    const AttentionCase c = random_case(adapter.kind(), &rng);
    const auto expected = oracle_outputs(
        c, [&](const std::vector<float>& x, bool is_key) { return adapter.stored(c, x, is_key); });
    const auto actual = adapter.run(c, nullptr);
    CaseError error;
    for (size_t b = 0; b < actual.size(); ++b) accumulate(actual[b], expected[b], &error);
    fold(error, &report);
  }
  return report;
}

// Reads every position of every sequence back from a pool through `offset(block, slot, col)`.
template <KvElement T, typename Offset>
std::vector<float> read_back(const AttentionCase& c, const BlockPlan& plan,
                             const std::vector<T>& pool, uint64_t block_elements,
                             const Offset& offset) {
  std::vector<float> values;
  const BlockLayout layout = layout_of(c);
  for (size_t b = 0; b < c.sequences.size(); ++b) {
    for (uint32_t pos = 0; pos < c.sequences[b].num_keys; ++pos) {
      const uint64_t base = plan.tables[b][pos / c.block_size] * block_elements;
      for (uint32_t h = 0; h < layout.kv_heads; ++h) {
        for (uint32_t d = 0; d < layout.head_dim; ++d) {
          values.push_back(to_float(pool[base + offset(layout, pos % c.block_size, h, d)]));
        }
      }
    }
  }
  return values;
}

// The storage checks of one case for storage type T: write_kv_nd, write_kv_nz, pack/unpack.
template <KvElement T>
void check_storage(const AttentionCase& c, KernelReport* nd_report, KernelReport* nz_report,
                   KernelReport* pack_report) {
  const BlockPlan plan = plan_blocks(c);
  const BlockLayout layout = layout_of(c);
  std::vector<T> nd_k(plan.num_blocks * layout.nd_elements()), nd_v(nd_k.size());
  std::vector<T> nz_k(plan.num_blocks * layout.nz_elements()), nz_v(nz_k.size());
  const PagedKv<T> nd{layout, nd_k, nd_v};
  const PagedKv<T> nz{layout, nz_k, nz_v};
  write_in_chunks(
      c, plan,
      [&](const std::vector<KvWrite>& w, const std::vector<float>& k, const std::vector<float>& v) {
        write_kv_nd<T>(nd, w, k, v);
        write_kv_nz<T>(nz, w, k, v);
      });
  std::vector<float> expected_k, expected_v;
  for (const CaseSequence& seq : c.sequences) {
    for (float x : seq.k) expected_k.push_back(round_to_storage<T>(x));
    for (float x : seq.v) expected_v.push_back(round_to_storage<T>(x));
  }
  const auto nd_offset = [](const BlockLayout& l, uint32_t s, uint32_t h, uint32_t d) {
    return l.nd_offset(s, h, d);
  };
  const auto nz_offset = [](const BlockLayout& l, uint32_t s, uint32_t h, uint32_t d) {
    return l.nz_offset(s, h, d);
  };
  CaseError nd_error, nz_error, pack_error;
  accumulate(read_back(c, plan, nd_k, layout.nd_elements(), nd_offset), expected_k, &nd_error);
  accumulate(read_back(c, plan, nd_v, layout.nd_elements(), nd_offset), expected_v, &nd_error);
  accumulate(read_back(c, plan, nz_k, layout.nz_elements(), nz_offset), expected_k, &nz_error);
  accumulate(read_back(c, plan, nz_v, layout.nz_elements(), nz_offset), expected_v, &nz_error);
  // pack(ND) must equal the NZ pool written directly (padding included), and unpack(NZ) the
  // ND pool.
  std::vector<T> packed(nz_k.size()), unpacked(nd_k.size());
  pack_nd_to_nz<T>(layout, nd_k, packed);
  unpack_nz_to_nd<T>(layout, nz_k, unpacked);
  const auto as_float = [](const std::vector<T>& x) {
    std::vector<float> out(x.size());
    convert_to_float(x.data(), out.data(), x.size());
    return out;
  };
  accumulate(as_float(packed), as_float(nz_k), &pack_error);
  accumulate(as_float(unpacked), as_float(nd_k), &pack_error);
  fold(nd_error, nd_report);
  fold(nz_error, nz_report);
  fold(pack_error, pack_report);
}

template <KvElement T>
std::vector<KernelReport> validate_storage(uint64_t seed, uint32_t cases) {
  const std::string suffix = std::is_same_v<T, float> ? "_fp32" : "_fp16";
  std::vector<KernelReport> reports(3);
  reports[0].name = "write_kv_nd" + suffix;
  reports[1].name = "write_kv_nz" + suffix;
  reports[2].name = "nz_pack_unpack" + suffix;
  std::mt19937_64 rng(seed);
  for (uint32_t i = 0; i < cases; ++i) {
    const AttentionCase c = random_case(CaseKind::kDecode, &rng);
    check_storage<T>(c, &reports[0], &reports[1], &reports[2]);
  }
  return reports;
}

}  // namespace

void add_case_error(const std::vector<float>& actual, const std::vector<float>& expected,
                    KernelReport* report) {
  CaseError error;
  accumulate(actual, expected, &error);
  fold(error, report);
}

ValidationReport validate_kernels(uint64_t seed, uint32_t cases_per_kernel) {
  ValidationReport report;
  for (const auto& adapter : attention_kernel_adapters()) {
    report.kernels.push_back(validate_attention(*adapter, seed, cases_per_kernel));
  }
  for (auto& r : validate_storage<float>(seed, cases_per_kernel)) report.kernels.push_back(r);
  for (auto& r : validate_storage<Eigen::half>(seed, cases_per_kernel)) report.kernels.push_back(r);
  for (const KernelReport& k : report.kernels) report.pass = report.pass && k.pass;
  return report;
}

}  // namespace kvsim::kernels
