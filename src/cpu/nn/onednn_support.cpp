// The shared oneDNN helpers of onednn_support.h.
#include "onednn_support.h"

#include <deque>

#include "../copy/copy_loops.h"
#include "ember/creation.h"

namespace ember::cpu::onednn {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::dims dims_of(const Tensor& t) { return memory::dims(t.sizes().begin(), t.sizes().end()); }

memory::desc strided_desc(const Tensor& t) {
  return memory::desc(dims_of(t), memory::data_type::f32, memory::dims(t.strides().begin(), t.strides().end()));
}

memory::desc plain_desc(const memory::dims& dims) {
  static constexpr Tag tags[] = {Tag::a, Tag::ab, Tag::abc, Tag::abcd, Tag::abcde, Tag::abcdef};
  return memory::desc(dims, memory::data_type::f32, tags[dims.size() - 1]);
}

memory::desc any_desc(const memory::dims& dims) { return memory::desc(dims, memory::data_type::f32, Tag::any); }

const dnnl::primitive_attr& user_scratchpad() {
  static const dnnl::primitive_attr attr = [] {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }();
  return attr;
}

void run(const dnnl::primitive& p, const memory::desc& scratch, std::unordered_map<int, memory> args,
         dnnl::stream& stream) {
  Tensor buffer;
  if (scratch.get_size()) {
    buffer = empty({int64_t(scratch.get_size())}, TensorOptions(kUInt8));
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(scratch, cpu_engine(), buffer.data_ptr()));
  }
  p.execute(stream, args);
  stream.wait();
}

namespace {

#ifdef __AVX2__
// Activations between torch's dense (N, C, H, W) and oneDNN's nChw8c (C a multiple of 8: no padding) as 8x8
// transposes, instead of oneDNN's jit:blk reorder: measured on the main job's conv forwards (batch 128, 1 thread),
// 2-4% less time at 16x28x28 and 32x14x14 inputs, 1% at 32x7x7.
bool blocked_transpose(const memory& from, const memory& to) {
  const memory::desc &src = from.get_desc(), &dst = to.get_desc();
  memory::dims d = src.dims();
  if (d.size() != 4 || d[1] % 8 != 0 || !(dst.dims() == d)) return false;
  memory::desc plain(d, memory::data_type::f32, Tag::abcd), blocked(d, memory::data_type::f32, Tag::aBcd8b);
  bool to_blocked = src == plain && dst == blocked;
  if (!to_blocked && !(src == blocked && dst == plain)) return false;
  const char* in = static_cast<const char*>(from.get_data_handle());
  char* out = static_cast<char*>(to.get_data_handle());
  int64_t spatial = d[2] * d[3], rows = d[0] * d[1] / 8, row_bytes = spatial * 4;
  for (int64_t r = 0; r < rows; ++r) {  // 8 channels: (8, S) plain <-> (S, 8) blocked
    const char* a = in + r * 8 * row_bytes;
    char* b = out + r * 8 * row_bytes;
    int64_t s = 0;
    for (; s + 8 <= spatial; s += 8) {
      if (to_blocked) transpose_8x8(a + s * 4, row_bytes, b + s * 32, 32);
      else transpose_8x8(a + s * 32, 32, b + s * 4, row_bytes);
    }
    for (; s < spatial; ++s)
      for (int64_t j = 0; j < 8; ++j) {
        if (to_blocked) std::memcpy(b + s * 32 + j * 4, a + j * row_bytes + s * 4, 4);
        else std::memcpy(b + j * row_bytes + s * 4, a + s * 32 + j * 4, 4);
      }
  }
  return true;
}
#else
bool blocked_transpose(const memory&, const memory&) { return false; }
#endif

}  // namespace

void reorder(memory from, memory to, dnnl::stream& stream) {
  if (blocked_transpose(from, to)) return;
  dnnl::reorder::primitive_desc pd(from, to, user_scratchpad());
  run(dnnl::reorder(pd), pd.scratchpad_desc(), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, stream);
}

// An entry holds its storage, so a freed weight's memory cannot come back under the same key.
struct CachedWeights {
  Storage storage;
  void* data;
  uint32_t version;
  memory::desc desc;
  memory reordered;
};

memory cached_weights(memory given, const Tensor& w, const memory::desc& want, dnnl::stream& stream) {
  static std::mutex mutex;
  // Never destroyed: an entry may hold a numpy array's storage, whose release needs the interpreter, gone at exit.
  static auto& cache = *new std::deque<CachedWeights>;
  std::lock_guard lock(mutex);
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (!it->storage.is_alias_of(w.storage()) || it->data != w.data_ptr() || !(it->desc == want)) continue;
    if (it->version == w.version()) return it->reordered;
    cache.erase(it);  // the same weights, written since: reorder again
    break;
  }
  memory reordered(want, cpu_engine());
  reorder(given, reordered, stream);
  cache.push_front({w.storage(), w.data_ptr(), w.version(), want, reordered});
  if (cache.size() > 64) cache.pop_back();
  return reordered;
}

}  // namespace ember::cpu::onednn
