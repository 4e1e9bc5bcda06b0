// The shared oneDNN helpers of onednn_support.h.
#include "onednn_support.h"

#include <deque>

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

void reorder(memory from, memory to, dnnl::stream& stream) {
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
