// plan_capacity_rows and capacity_rows_json: the one assembly of a capacity request that
// `kvsim capacity` and kvsim.capacity() share.
#include <gtest/gtest.h>

#include "core/model/load_spec.h"
#include "core/report/capacity_json.h"
#include "core/report/capacity_report.h"

namespace kvsim {
namespace {

TEST(CapacityRowsTest, OneRowPerDeviceInOrderOrOneWithoutADevice) {
  auto model = load_model("llama3-8b");
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  auto devices = load_device_list("a100-40g,h100-sxm");
  ASSERT_TRUE(devices.is_ok()) << devices.status().message();
  CapacityQuery query;
  query.seq_len = 4096;
  auto rows = plan_capacity_rows(*model, *devices, query, EngineQuery{});
  ASSERT_TRUE(rows.is_ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].device, &(*devices)[0]);
  EXPECT_EQ((*rows)[1].device, &(*devices)[1]);
  const nlohmann::json both = capacity_rows_json(*model, *rows);
  ASSERT_TRUE(both.is_array());
  EXPECT_EQ(both[1], capacity_to_json(*model, (*rows)[1].device, (*rows)[1].plan));

  query.kv_budget_bytes = uint64_t{1} << 30;  // no device: the budget is given
  auto alone = plan_capacity_rows(*model, {}, query, EngineQuery{});
  ASSERT_TRUE(alone.is_ok()) << alone.status().message();
  ASSERT_EQ(alone->size(), 1u);
  EXPECT_EQ(alone->front().device, nullptr);
  EXPECT_TRUE(capacity_rows_json(*model, *alone).is_object());
}

}  // namespace
}  // namespace kvsim
