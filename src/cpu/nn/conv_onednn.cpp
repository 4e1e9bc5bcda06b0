// Float32 convolutions on oneDNN: forward, backward data and backward weights. Activations stay in torch's plain
// layout (N, C, *spatial) at the op boundary; weights go to the layout each primitive prefers, reordered once and
// cached while their storage and version are unchanged. Primitives are cached by shape (creating one costs far more
// than a small convolution). oneDNN runs on its OpenMP runtime with Ember's thread count.
#include <algorithm>

#include "conv_kernel.h"
#include "ember/creation.h"
#include "onednn_support.h"

namespace ember::cpu {

namespace {

using namespace onednn;

// Weight dims as oneDNN sees them: (groups, Co / groups, C / groups, *K) when grouped.
memory::dims weight_dims(const Tensor& w, int64_t groups) {
  memory::dims d = dims_of(w);
  if (groups == 1) return d;
  d[0] /= groups;
  d.insert(d.begin(), groups);
  return d;
}

// One convolution's descriptors: plain tensors as given, "any" for what the primitive may lay out its own way.
struct ConvDescs {
  memory::desc src, weights, dst, bias;  // plain
  memory::desc src_any, weights_any, dst_any;
  memory::dims strides, dilates, pad_l, pad_r;
  std::vector<int64_t> key;
};

ConvDescs describe(const Tensor& input, const Tensor& weight, const Tensor& output, const ConvGeometry& g,
                   bool bias) {
  ConvDescs d;
  memory::dims wd = weight_dims(weight, g.groups);
  d.src = strided_desc(input);
  d.dst = strided_desc(output);
  d.weights = plain_desc(wd);
  d.src_any = any_desc(dims_of(input));
  d.dst_any = any_desc(dims_of(output));
  d.weights_any = any_desc(wd);
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

dnnl::convolution_forward::primitive_desc forward_pd(const ConvDescs& d, const dnnl::primitive_attr& attr = {}) {
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                       d.src_any, d.weights_any, d.bias, d.dst_any, d.strides, d.dilates, d.pad_l,
                                       d.pad_r);
  return {desc, attr, cpu_engine()};
}

// One argument of a primitive: a plain tensor read (In), written (Out), or weights (read, reordered once).
enum class Role { In, Out, Weights };
struct Arg {
  int id;
  const Tensor& tensor;
  const memory::desc& plain;
  Role role;
};

// Plain inputs already reordered to a primitive's layout during one chunk's work (a backward's grad_output serves
// both the data and the weight gradient), with the scratch tensors that hold them.
struct Reordered {
  struct Input {
    const void* data;
    memory::desc plain;
    memory reordered;
  };
  std::vector<Input> inputs;
  std::vector<Tensor> scratch;
};

// Runs a primitive on plain tensors: arguments it wants in another layout are reordered into scratch tensors
// (Ember's caching allocator: no page faults per call), outputs reordered back after. Inputs reordered before
// into `done` are reused.
void execute(const Cached& c, std::initializer_list<Arg> args, Reordered& done) {
  dnnl::stream stream(cpu_engine());
  std::unordered_map<int, memory> bound;
  std::vector<std::pair<memory, memory>> write_back;
  for (const Arg& a : args) {
    memory given(a.plain, cpu_engine(), a.tensor.data_ptr());
    auto it = c.wanted.find(a.id);
    if (it == c.wanted.end() || it->second == a.plain) {
      bound.emplace(a.id, given);
      continue;
    }
    if (a.role == Role::Weights) {
      bound.emplace(a.id, cached_weights(given, a.tensor, it->second, stream));
      continue;
    }
    auto same = std::find_if(done.inputs.begin(), done.inputs.end(), [&](const Reordered::Input& r) {
      return r.data == a.tensor.data_ptr() && r.plain == a.plain && r.reordered.get_desc() == it->second;
    });
    if (a.role == Role::In && same != done.inputs.end()) {
      bound.emplace(a.id, same->reordered);
      continue;
    }
    done.scratch.push_back(empty({int64_t(it->second.get_size())}, TensorOptions(kUInt8)));
    memory m(it->second, cpu_engine(), done.scratch.back().data_ptr());
    if (a.role == Role::In) {
      reorder(given, m, stream);
      done.inputs.push_back({a.tensor.data_ptr(), a.plain, m});
    } else {
      write_back.emplace_back(m, given);
    }
    bound.emplace(a.id, m);
  }
  run(c.primitive, c.scratchpad, bound, stream);
  for (auto& [from, to] : write_back) reorder(from, to, stream);
}

// The three kinds over one chunk of the batch (all tensors already narrowed to it).
void forward_chunk(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& output,
                   const ConvGeometry& g) {
  ConvDescs d = describe(input, weight, output, g, bias.defined());
  auto c = cached_primitive(Forward, d.key, [&] {
    auto pd = forward_pd(d, user_scratchpad());
    return Cached{dnnl::convolution_forward(pd),
                  {{DNNL_ARG_SRC, pd.src_desc()}, {DNNL_ARG_WEIGHTS, pd.weights_desc()}, {DNNL_ARG_DST, pd.dst_desc()}},
                  pd.scratchpad_desc()};
  });
  Reordered done;
  if (!bias.defined()) {
    return execute(*c, {{DNNL_ARG_SRC, input, d.src, Role::In}, {DNNL_ARG_WEIGHTS, weight, d.weights, Role::Weights},
                       {DNNL_ARG_DST, output, d.dst, Role::Out}}, done);
  }
  execute(*c, {{DNNL_ARG_SRC, input, d.src, Role::In}, {DNNL_ARG_WEIGHTS, weight, d.weights, Role::Weights},
              {DNNL_ARG_BIAS, bias, d.bias, Role::In}, {DNNL_ARG_DST, output, d.dst, Role::Out}}, done);
}

void backward_data_chunk(const Tensor& grad_output, const Tensor& weight, const Tensor& grad_input,
                         const ConvGeometry& g, Reordered& done) {
  ConvDescs d = describe(grad_input, weight, grad_output, g, false);
  auto c = cached_primitive(BackwardData, d.key, [&] {
    dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, d.src_any, d.weights_any,
                                               d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_backward_data::primitive_desc pd(desc, user_scratchpad(), cpu_engine(), forward_pd(d));
    return Cached{dnnl::convolution_backward_data(pd), {{DNNL_ARG_DIFF_DST, pd.diff_dst_desc()},
                                                        {DNNL_ARG_WEIGHTS, pd.weights_desc()},
                                                        {DNNL_ARG_DIFF_SRC, pd.diff_src_desc()}},
                  pd.scratchpad_desc()};
  });
  execute(*c, {{DNNL_ARG_DIFF_DST, grad_output, d.dst, Role::In}, {DNNL_ARG_WEIGHTS, weight, d.weights, Role::Weights},
              {DNNL_ARG_DIFF_SRC, grad_input, d.src, Role::Out}}, done);
}

void backward_weights_chunk(const Tensor& grad_output, const Tensor& input, const Tensor& grad_weight,
                            const Tensor& grad_bias, const ConvGeometry& g, Reordered& done) {
  ConvDescs d = describe(input, grad_weight, grad_output, g, grad_bias.defined());
  auto c = cached_primitive(BackwardWeights, d.key, [&] {
    dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src_any, d.weights_any,
                                                  d.bias, d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_backward_weights::primitive_desc pd(desc, user_scratchpad(), cpu_engine(), forward_pd(d));
    return Cached{dnnl::convolution_backward_weights(pd), {{DNNL_ARG_SRC, pd.src_desc()},
                                                           {DNNL_ARG_DIFF_DST, pd.diff_dst_desc()},
                                                           {DNNL_ARG_DIFF_WEIGHTS, pd.diff_weights_desc()}},
                  pd.scratchpad_desc()};
  });
  if (!grad_bias.defined()) {
    return execute(*c, {{DNNL_ARG_SRC, input, d.src, Role::In}, {DNNL_ARG_DIFF_DST, grad_output, d.dst, Role::In},
                       {DNNL_ARG_DIFF_WEIGHTS, grad_weight, d.weights, Role::Out}}, done);
  }
  execute(*c, {{DNNL_ARG_SRC, input, d.src, Role::In}, {DNNL_ARG_DIFF_DST, grad_output, d.dst, Role::In},
              {DNNL_ARG_DIFF_WEIGHTS, grad_weight, d.weights, Role::Out},
              {DNNL_ARG_DIFF_BIAS, grad_bias, d.bias, Role::Out}}, done);
}

}  // namespace

// A batch smaller than the pool is split by output channels instead (blocks of 8, oneDNN's on AVX2).
void onednn_conv_forward(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& output,
                         const ConvGeometry& g) {
  if (input.size(0) < get_num_threads() && g.groups == 1 && weight.size(0) >= 16) {
    return over_parts(weight.size(0), 8, [&](int64_t first, int64_t n, int64_t) {
      forward_chunk(input, weight.narrow(0, first, n), bias.defined() ? bias.narrow(0, first, n) : Tensor(),
                    output.narrow(1, first, n), g);
    });
  }
  over_batch(input.size(0), [&](int64_t first, int64_t n, int64_t) {
    forward_chunk(input.narrow(0, first, n), weight, bias, output.narrow(0, first, n), g);
  });
}

// Both gradients chunk by chunk, grad_output reordered once for both. Each chunk but the first sums its weight (and
// bias) gradient into its own tensor, added up at the end.
void onednn_conv_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                          const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                          const ConvGeometry& g) {
  int64_t batch = grad_output.size(0), threads = get_num_threads();
  std::vector<Tensor> weights{grad_weight}, biases{grad_bias};
  for (int64_t t = 1; grad_weight.defined() && t < threads && batch >= threads; ++t) {
    weights.push_back(empty_like(grad_weight));
    biases.push_back(grad_bias.defined() ? empty_like(grad_bias) : Tensor());
  }
  over_batch(batch, [&](int64_t first, int64_t n, int64_t t) {
    Reordered done;
    Tensor go = grad_output.narrow(0, first, n);
    if (grad_input.defined()) backward_data_chunk(go, weight, grad_input.narrow(0, first, n), g, done);
    if (grad_weight.defined()) {
      backward_weights_chunk(go, input.narrow(0, first, n), weights[size_t(t)], biases[size_t(t)], g, done);
    }
  });
  for (size_t t = 1; t < weights.size(); ++t) {
    weights[0].add_(weights[t]);
    if (grad_bias.defined()) biases[0].add_(biases[t]);
  }
}

}  // namespace ember::cpu
