// bfloat16 matrix products on oneDNN's matmul primitive: AMX or AVX512_BF16 kernels where the CPU has them (2500
// GFLOP/s on this machine's 2 cores at 1024^3, torch 1100, float32 through sgemm 300), float32 accumulation rounded
// once to bfloat16, as torch's (which also runs oneDNN's matmul).
#include "gemm.h"

#include "nn/onednn_support.h"

namespace ember::cpu {

using namespace onednn;

namespace {

// m (rows, cols) as oneDNN strides when it is row- or column-major, else empty.
memory::dims matrix_strides(const Tensor& m) {
  int64_t rows = m.size(0), cols = m.size(1), s0 = m.stride(0), s1 = m.stride(1);
  if ((s1 == 1 || cols <= 1) && (s0 >= std::max<int64_t>(cols, 1) || rows <= 1)) return {std::max<int64_t>(s0, cols), 1};
  if ((s0 == 1 || rows <= 1) && (s1 >= std::max<int64_t>(rows, 1) || cols <= 1)) return {1, std::max<int64_t>(s1, rows)};
  return {};
}

// Whether oneDNN has a bfloat16 matmul here: not below AVX512_BF16 (or under ONEDNN_MAX_CPU_ISA=AVX2, as the tests
// pin it), where the float32 path runs instead.
bool has_bf16_matmul() {
  static const bool available = [] {
    try {
      memory::desc d({16, 16}, memory::data_type::bf16, Tag::ab);
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(d, d, d), cpu_engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return available;
}

}  // namespace

bool onednn_bf16_gemm(const Tensor& a, const Tensor& b, const Tensor& out) {
  memory::dims sa = matrix_strides(a), sb = matrix_strides(b);
  if (sa.empty() || sb.empty() || !has_bf16_matmul()) return false;
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  const auto* pa = static_cast<const uint16_t*>(a.data_ptr());
  const auto* pb = static_cast<const uint16_t*>(b.data_ptr());
  auto* pc = static_cast<uint16_t*>(out.data_ptr());
  constexpr auto bf16 = memory::data_type::bf16;
  // Row blocks of A and C, one per Ember thread, each on one OpenMP thread (over_parts)
  over_parts(M, 16, [&](int64_t first, int64_t rows, int64_t) {
    memory::desc da({rows, K}, bf16, sa), db({K, N}, bf16, sb), dc({rows, N}, bf16, memory::dims{N, 1});
    auto c = cached_primitive(Matmul, {rows, K, N, sa[0], sa[1], sb[0], sb[1]}, [&] {
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(da, db, dc), user_scratchpad(), cpu_engine());
      return Cached{dnnl::matmul(pd), {}, pd.scratchpad_desc()};
    });
    dnnl::stream stream(cpu_engine());
    memory ma(da, cpu_engine(), const_cast<uint16_t*>(pa + first * sa[0]));
    memory mb(db, cpu_engine(), const_cast<uint16_t*>(pb));
    memory mc(dc, cpu_engine(), pc + first * N);
    run(c->primitive, c->scratchpad, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}}, stream);
  });
  return true;
}

}  // namespace ember::cpu
