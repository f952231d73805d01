// One adapter per attention kernel (and storage type): it stores an AttentionCase's K and V in
// the kernel's own cache (through write_kv, NZ packing, quantization...) and runs the kernel.
// The validator (`kvsim kernels validate`) and the behavioural test suite run every adapter
// against the oracle the same way; each adapter states its tolerance.
//
// Error measure: for a case, max_abs = max |kernel - oracle| over every output element and
// max_rel = max_abs / max |oracle| (normwise, so near-zero outputs do not blow it up). A case
// passes when max_rel <= tolerance. The oracle sees K, V exactly as the storage holds them
// (rounded to fp16, or quantized and dequantized), so the tolerance measures the kernel's
// arithmetic, not the storage's precision.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/attention_case.h"

namespace kvsim::kernels {

class AttentionKernelAdapter {
 public:
  virtual ~AttentionKernelAdapter() = default;

  // e.g. "decode_paged_fp16".
  virtual std::string name() const = 0;
  // kDecode: one query per sequence; kPrefill: a chunk of queries on a cached prefix.
  virtual CaseKind kind() const = 0;
  // Largest max_rel accepted against the oracle.
  virtual double tolerance() const = 0;
  // K or V of one sequence ([num_keys, kv_heads, head_dim]) as this kernel's cache holds them.
  virtual std::vector<float> stored(const AttentionCase& c, const std::vector<float>& x,
                                    bool is_key) const = 0;
  // The kernel's output per sequence ([num_queries, num_heads, head_dim]). Decode adapters
  // also fill *attention_sums (one vector per sequence, one entry per attended position) when
  // it is not null.
  virtual std::vector<std::vector<float>> run(
      const AttentionCase& c, std::vector<std::vector<float>>* attention_sums) const = 0;
};

// Every attention kernel, fp32 and fp16 storage, quantized decode included.
std::vector<std::unique_ptr<AttentionKernelAdapter>> attention_kernel_adapters();

}  // namespace kvsim::kernels
