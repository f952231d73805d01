// validate_kernels: seeded random cases through every kernel, compared with the oracle —
// the library half of `kvsim kernels validate`.
//
// Attention kernels (kernel_adapters.h) are compared with attention_reference; the cache
// update kernels (write_kv_nd, write_kv_nz) and the ND<->NZ pack/unpack are compared with the
// values they must store (exactly: tolerance 0). A kernel passes when every case's max_rel is
// within its tolerance; the report passes when every kernel does. Same seed, same report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kvsim::kernels {

struct KernelReport {
  std::string name;
  uint32_t cases = 0;
  double max_abs_err = 0.0;  // max |kernel - expected| over every case
  double max_rel_err = 0.0;  // max over cases of max_abs / max |expected|
  double tolerance = 0.0;    // largest max_rel accepted
  bool pass = true;
};

struct ValidationReport {
  bool pass = true;
  std::vector<KernelReport> kernels;
};

ValidationReport validate_kernels(uint64_t seed, uint32_t cases_per_kernel);

// Error of `actual` against `expected` folded into `report` (max_abs, max_rel, pass).
void add_case_error(const std::vector<float>& actual, const std::vector<float>& expected,
                    KernelReport* report);

}  // namespace kvsim::kernels
