#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../src/iter/plan_pieces.h"

using namespace ember;

namespace {

// Byte offsets (operand k, from base 0) of every element of a plan, innermost dim fastest.
std::vector<int64_t> offsets(const StridedPlan<2>& plan, int k, char* origin) {
  std::vector<int64_t> out;
  std::vector<int64_t> idx(plan.ndim(), 0);
  for (int64_t n = 0; n < plan.numel; ++n) {
    int64_t off = plan.base[k] - origin;
    for (int64_t d = 0; d < plan.ndim(); ++d) off += idx[d] * plan.strides[k][d];
    out.push_back(off);
    for (int64_t d = 0; d < plan.ndim() && ++idx[d] == plan.sizes[d]; ++d) idx[d] = 0;
  }
  return out;
}

int64_t reach(const StridedPlan<2>& p, int k) {
  int64_t r = 0;
  for (int64_t d = 0; d < p.ndim(); ++d) r += (p.sizes[d] - 1) * std::llabs(p.strides[k][d]);
  return r;
}

}  // namespace

// Pieces cover the plan exactly once, in pairs of output and input offsets, and each fits.
TEST(PlanPieces, CoverThePlanOnceAndFit) {
  static char origin[1];
  const std::vector<int64_t> sizes{5, 3, 7}, out_strides{1, 5, 15}, in_strides{0, -7, 21};
  auto plan = make_plan<2>(sizes, {IntArrayRef(out_strides), IntArrayRef(in_strides)}, {4, 8},
                           {origin + 1000, origin + 2000});
  auto fits = [](const StridedPlan<2>& p) { return p.numel <= 6 && reach(p, 0) <= 64 && reach(p, 1) <= 200; };
  ASSERT_FALSE(fits(plan));
  std::vector<std::pair<int64_t, int64_t>> want, got;
  auto pair_up = [&](const StridedPlan<2>& p, auto& into) {
    auto o = offsets(p, 0, origin), i = offsets(p, 1, origin);
    for (size_t n = 0; n < o.size(); ++n) into.emplace_back(o[n], i[n]);
  };
  pair_up(plan, want);
  int pieces = 0;
  for_each_piece(plan, fits, [&](const StridedPlan<2>& p) {
    EXPECT_TRUE(fits(p));
    pair_up(p, got);
    ++pieces;
  });
  EXPECT_GT(pieces, 1);
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(want, got);
}

TEST(PlanPieces, AFittingPlanIsOnePiece) {
  static char origin[1];
  const std::vector<int64_t> sizes{4, 4}, strides{4, 1};
  auto plan = make_plan<2>(sizes, {IntArrayRef(strides), IntArrayRef(strides)}, {4, 4}, {origin, origin});
  int pieces = 0;
  for_each_piece(plan, [](const StridedPlan<2>&) { return true; }, [&](const StridedPlan<2>&) { ++pieces; });
  EXPECT_EQ(pieces, 1);
}
