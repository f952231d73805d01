// The validator: reproducible, passing for the shipped kernels, and failing when an error
// exceeds a tolerance.
#include "kernels/kernel_validation.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kvsim::kernels {
namespace {

TEST(KernelValidationTest, EveryKernelPassesAndTheReportIsReproducible) {
  const ValidationReport a = validate_kernels(7, 6);
  const ValidationReport b = validate_kernels(7, 6);
  EXPECT_TRUE(a.pass);
  ASSERT_EQ(a.kernels.size(), 16u);
  ASSERT_EQ(b.kernels.size(), a.kernels.size());
  EXPECT_EQ(b.pass, a.pass);
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].cases, 6u);
    EXPECT_TRUE(a.kernels[i].pass) << a.kernels[i].name;
    EXPECT_LE(a.kernels[i].max_rel_err, a.kernels[i].tolerance) << a.kernels[i].name;
    // Reproducible: the second report is the first, field by field.
    EXPECT_EQ(b.kernels[i].name, a.kernels[i].name);
    EXPECT_EQ(b.kernels[i].cases, a.kernels[i].cases) << a.kernels[i].name;
    EXPECT_EQ(b.kernels[i].max_abs_err, a.kernels[i].max_abs_err) << a.kernels[i].name;
    EXPECT_EQ(b.kernels[i].max_rel_err, a.kernels[i].max_rel_err) << a.kernels[i].name;
    EXPECT_EQ(b.kernels[i].tolerance, a.kernels[i].tolerance) << a.kernels[i].name;
    EXPECT_EQ(b.kernels[i].pass, a.kernels[i].pass) << a.kernels[i].name;
  }
  EXPECT_EQ(a.kernels.front().name, "decode_contiguous_fp32");
  EXPECT_EQ(a.kernels.back().name, "nz_pack_unpack_fp16");
}

TEST(KernelValidationTest, AnErrorAboveTheToleranceFailsTheKernel) {
  KernelReport report;
  report.tolerance = 1e-5;
  add_case_error({1.0f, 2.0f}, {1.0f, 2.0f}, &report);
  EXPECT_TRUE(report.pass);
  add_case_error({1.0f, 2.0001f}, {1.0f, 2.0f}, &report);  // rel 5e-5
  EXPECT_FALSE(report.pass);
  EXPECT_EQ(report.cases, 2u);
  EXPECT_NEAR(report.max_abs_err, 1e-4, 1e-6);
  EXPECT_NEAR(report.max_rel_err, 5e-5, 1e-6);
}

TEST(KernelValidationTest, NanIsAnInfiniteError) {
  KernelReport report;
  report.tolerance = 1.0;
  add_case_error({std::nanf("")}, {1.0f}, &report);
  EXPECT_FALSE(report.pass);
}

}  // namespace
}  // namespace kvsim::kernels
