#include "simulator/cost/cost_model_config.h"

#include "core/base/enum_names.h"

namespace kvsim::sim {
namespace {

constexpr EnumNames<CostModelKind, 4> kKindNames{{{
    {CostModelKind::kOperators, "operators"},
    {CostModelKind::kRoofline, "roofline"},
    {CostModelKind::kProfile, "profile"},
    {CostModelKind::kTable, "table"},
}}};

constexpr EnumNames<CudaGraphs, 4> kCudaGraphsNames{{{
    {CudaGraphs::kEngine, "engine"},
    {CudaGraphs::kNone, "none"},
    {CudaGraphs::kDecode, "decode"},
    {CudaGraphs::kAll, "all"},
}}};

}  // namespace

std::string_view cost_model_kind_name(CostModelKind kind) { return kKindNames.name(kind); }

StatusOr<CostModelKind> parse_cost_model_kind(std::string_view name) {
  return kKindNames.parse(name, "cost model kind");
}

std::string_view cuda_graphs_name(CudaGraphs mode) { return kCudaGraphsNames.name(mode); }

StatusOr<CudaGraphs> parse_cuda_graphs(std::string_view name) {
  return kCudaGraphsNames.parse(name, "cuda_graphs mode");
}

}  // namespace kvsim::sim
