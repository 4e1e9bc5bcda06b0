// bfloat16 matrix products on oneDNN's matmul primitive: AMX or AVX512_BF16 kernels where the CPU has them (2500
// GFLOP/s on this machine's 2 cores at 1024^3, torch 1100, float32 through sgemm 300), float32 accumulation rounded
// once to bfloat16, as torch's (which also runs oneDNN's matmul).
#include "gemm.h"

#include "nn/onednn_support.h"

namespace ember::cpu {

using namespace onednn;

bool has_onednn_bf16_matmul() {
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

void onednn_bf16_gemm(const Operand& a, const Operand& b, void* out, int64_t M, int64_t N, int64_t K) {
  auto strides = [](const Operand& o) { return o.trans ? memory::dims{1, o.ld} : memory::dims{o.ld, 1}; };
  const memory::dims sa = strides(a), sb = strides(b);
  const auto* pa = static_cast<const uint16_t*>(a.data);
  const auto* pb = static_cast<const uint16_t*>(b.data);
  auto* pc = static_cast<uint16_t*>(out);
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
}

}  // namespace ember::cpu
