#include "simulator/run/explain_batches.h"

#include "simulator/cost/batch_spec.h"
#include "simulator/cost/layer_kind_costs.h"
#include "simulator/cost/make_cost_model.h"

namespace kvsim::sim {

StatusOr<std::vector<ExplainedBatch>> explain_engine_batches(
    const EngineSetup& setup, const ParallelLayout& layout, const std::vector<std::string>& specs) {
  const Scenario& s = setup.scenario;
  KVSIM_ASSIGN_OR_RETURN(
      auto model,
      make_cost_model(s.cost_model, setup.model, setup.device, setup.cost_capacity(),
                      setup.capacity_query.weight_dtype, layout.tp, setup.execution, layout));
  KVSIM_ASSIGN_OR_RETURN(const uint32_t window, cost_window_tokens(setup.model));
  std::vector<ExplainedBatch> out;
  for (const std::string& spec : specs) {
    KVSIM_ASSIGN_OR_RETURN(const BatchShape shape, parse_batch_spec(spec, window));
    out.push_back({spec, model->explain(shape)});
  }
  return out;
}

}  // namespace kvsim::sim
