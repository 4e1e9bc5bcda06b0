// Float32 convolutions on oneDNN: forward, backward data and backward weights. Activations stay in torch's plain
// layout (N, C, *spatial) at the op boundary; weights go to the layout each primitive prefers, reordered once and
// cached while their storage and version are unchanged. Primitives are cached by shape (creating one costs far more
// than a small convolution). oneDNN runs on its OpenMP runtime with Ember's thread count.
#include <dlfcn.h>

#include <deque>
#include <map>
#include <mutex>
#include <dnnl.hpp>

#include "conv_kernel.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// oneDNN's parallel regions use as many OpenMP threads as Ember's pool has (set per calling thread, as OpenMP's
// thread count is).
void match_thread_count() {
  using SetFn = void (*)(int);
  static const auto set = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  thread_local int current = 0;
  int n = get_num_threads();
  if (set && n != current) set(current = n);
}

memory::dims dims_of(const Tensor& t) { return memory::dims(t.sizes().begin(), t.sizes().end()); }

Tag plain_tag(size_t ndims) {
  static constexpr Tag tags[] = {Tag::a, Tag::ab, Tag::abc, Tag::abcd, Tag::abcde, Tag::abcdef};
  return tags[ndims - 1];
}

memory::desc plain_desc(const memory::dims& dims) {
  return memory::desc(dims, memory::data_type::f32, plain_tag(dims.size()));
}

// Weight dims as oneDNN sees them: (groups, Co / groups, C / groups, *K) when grouped.
memory::dims weight_dims(const Tensor& w, int64_t groups) {
  memory::dims d = dims_of(w);
  if (groups == 1) return d;
  d[0] /= groups;
  d.insert(d.begin(), groups);
  return d;
}

// One convolution's descriptors: plain activations and bias, weights in the layout the primitive chooses.
struct ConvDescs {
  memory::desc src, weights_any, weights_plain, dst, bias;
  memory::dims strides, dilates, pad_l, pad_r;
  std::vector<int64_t> key;
};

ConvDescs describe(const Tensor& input, const Tensor& weight, const Tensor& output, const ConvGeometry& g,
                   bool bias) {
  ConvDescs d;
  memory::dims wd = weight_dims(weight, g.groups);
  d.src = plain_desc(dims_of(input));
  d.dst = plain_desc(dims_of(output));
  d.weights_plain = plain_desc(wd);
  d.weights_any = memory::desc(wd, memory::data_type::f32, Tag::any);
  if (bias) d.bias = plain_desc({weight.size(0)});
  for (size_t i = 0; i < g.stride.size(); ++i) {
    int64_t k = weight.size(int64_t(i) + 2), in = input.size(int64_t(i) + 2), out = output.size(int64_t(i) + 2);
    d.strides.push_back(g.stride[i]);
    d.dilates.push_back(g.dilation[i] - 1);
    d.pad_l.push_back(g.padding[i]);
    d.pad_r.push_back((out - 1) * g.stride[i] + g.dilation[i] * (k - 1) + 1 - in - g.padding[i]);
  }
  for (const auto* v : {&d.src.data.dims, &d.dst.data.dims}) d.key.insert(d.key.end(), *v, *v + d.src.data.ndims);
  d.key.insert(d.key.end(), wd.begin(), wd.end());
  for (const auto* v : {&d.strides, &d.dilates, &d.pad_l, &d.pad_r}) d.key.insert(d.key.end(), v->begin(), v->end());
  d.key.push_back(bias);
  return d;
}

dnnl::convolution_forward::primitive_desc forward_pd(const ConvDescs& d) {
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, d.src,
                                       d.weights_any, d.bias, d.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
  return {desc, cpu_engine()};
}

// A primitive and its descriptor, cached by kind and shape key.
struct Cached {
  dnnl::primitive primitive;
  memory::desc weights;  // the layout the primitive wants its (diff) weights in
};

template <typename Make>
const Cached& cached_primitive(int kind, const std::vector<int64_t>& key, Make make) {
  static std::mutex mutex;
  static std::map<std::pair<int, std::vector<int64_t>>, Cached> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find({kind, key});
  if (it == cache.end()) it = cache.emplace(std::pair{kind, key}, make()).first;
  return it->second;
}

// Weights reordered to a primitive's layout, kept while the tensor's storage, offset and version are unchanged.
// An entry holds its storage, so a freed weight's memory cannot come back under the same key.
struct CachedWeights {
  Storage storage;
  void* data;
  uint32_t version;
  memory::desc desc;
  memory reordered;
};

memory weight_memory(const Tensor& w, const memory::desc& want, const memory::desc& plain, dnnl::stream& stream) {
  memory given(plain, cpu_engine(), w.data_ptr());
  if (want == plain) return given;
  static std::mutex mutex;
  static std::deque<CachedWeights> cache;
  std::lock_guard lock(mutex);
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (!it->storage.is_alias_of(w.storage()) || it->data != w.data_ptr() || !(it->desc == want)) continue;
    if (it->version == w.version()) return it->reordered;
    cache.erase(it);  // the same weights, written since: reorder again
    break;
  }
  memory reordered(want, cpu_engine());
  dnnl::reorder(given, reordered).execute(stream, given, reordered);
  stream.wait();
  cache.push_front({w.storage(), w.data_ptr(), w.version(), want, reordered});
  if (cache.size() > 64) cache.pop_back();
  return reordered;
}

enum Kind { Forward, BackwardData, BackwardWeights };

}  // namespace

void onednn_conv_forward(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& output,
                         const ConvGeometry& g) {
  match_thread_count();
  ConvDescs d = describe(input, weight, output, g, bias.defined());
  const Cached& c = cached_primitive(Forward, d.key, [&] {
    auto pd = forward_pd(d);
    return Cached{dnnl::convolution_forward(pd), pd.weights_desc()};
  });
  dnnl::stream stream(cpu_engine());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(d.src, cpu_engine(), input.data_ptr())},
                                       {DNNL_ARG_WEIGHTS, weight_memory(weight, c.weights, d.weights_plain, stream)},
                                       {DNNL_ARG_DST, memory(d.dst, cpu_engine(), output.data_ptr())}};
  if (bias.defined()) args.emplace(DNNL_ARG_BIAS, memory(d.bias, cpu_engine(), bias.data_ptr()));
  c.primitive.execute(stream, args);
  stream.wait();
}

void onednn_conv_backward_data(const Tensor& grad_output, const Tensor& weight, const Tensor& grad_input,
                               const ConvGeometry& g) {
  match_thread_count();
  ConvDescs d = describe(grad_input, weight, grad_output, g, false);
  const Cached& c = cached_primitive(BackwardData, d.key, [&] {
    dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, d.src, d.weights_any, d.dst,
                                               d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_backward_data::primitive_desc pd(desc, cpu_engine(), forward_pd(d));
    return Cached{dnnl::convolution_backward_data(pd), pd.weights_desc()};
  });
  dnnl::stream stream(cpu_engine());
  c.primitive.execute(stream, {{DNNL_ARG_DIFF_DST, memory(d.dst, cpu_engine(), grad_output.data_ptr())},
                               {DNNL_ARG_WEIGHTS, weight_memory(weight, c.weights, d.weights_plain, stream)},
                               {DNNL_ARG_DIFF_SRC, memory(d.src, cpu_engine(), grad_input.data_ptr())}});
  stream.wait();
}

void onednn_conv_backward_weights(const Tensor& grad_output, const Tensor& input, const Tensor& grad_weight,
                                  const Tensor& grad_bias, const ConvGeometry& g) {
  match_thread_count();
  ConvDescs d = describe(input, grad_weight, grad_output, g, grad_bias.defined());
  const Cached& c = cached_primitive(BackwardWeights, d.key, [&] {
    dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src, d.weights_any, d.bias,
                                                  d.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_backward_weights::primitive_desc pd(desc, cpu_engine(), forward_pd(d));
    return Cached{dnnl::convolution_backward_weights(pd), pd.diff_weights_desc()};
  });
  dnnl::stream stream(cpu_engine());
  memory plain(d.weights_plain, cpu_engine(), grad_weight.data_ptr());
  bool reorder = c.weights != d.weights_plain;
  memory diff = reorder ? memory(c.weights, cpu_engine()) : plain;
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(d.src, cpu_engine(), input.data_ptr())},
                                       {DNNL_ARG_DIFF_DST, memory(d.dst, cpu_engine(), grad_output.data_ptr())},
                                       {DNNL_ARG_DIFF_WEIGHTS, diff}};
  if (grad_bias.defined()) args.emplace(DNNL_ARG_DIFF_BIAS, memory(d.bias, cpu_engine(), grad_bias.data_ptr()));
  c.primitive.execute(stream, args);
  if (reorder) dnnl::reorder(diff, plain).execute(stream, diff, plain);
  stream.wait();
}

}  // namespace ember::cpu
