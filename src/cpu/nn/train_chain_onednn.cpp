// The convolutions of training chains (train_chain.h) on oneDNN: activations and their gradients stay in nChw8c
// (the chain's plain input as given), weights reordered once per version (cached_weights), weight gradients
// reordered to the plain layout. Each thread runs its part of the batch, as conv_onednn.cpp.
#include "conv_kernel.h"
#include "conv_winograd.h"
#include "ember/creation.h"
#include "onednn_support.h"
#include "train_chain.h"

namespace ember::cpu {

namespace {

using namespace onednn;

memory::desc act_desc(const DimVector& dims, bool blocked, int64_t batch) {
  memory::dims d(dims.begin(), dims.end());
  d[0] = batch;
  return memory::desc(d, memory::data_type::f32, blocked ? Tag::aBcd8b : Tag::abcd);
}

// The primitive descriptors' shared parts for unit u's chunk of `batch` samples.
struct Descs {
  memory::desc src, dst, weights_any, bias;
  memory::dims strides, dilates, pad_l, pad_r;
  std::vector<int64_t> key;
};

Descs describe(const TrainConv& u, int64_t batch) {
  Descs d;
  d.src = act_desc(u.src_dims, u.src_blocked, batch);
  d.dst = act_desc(u.out_dims, true, batch);
  d.weights_any = any_desc(dims_of(u.weight));
  if (u.bias.defined()) d.bias = plain_desc({u.weight.size(0)});
  const ConvGeometry& g = u.geometry;
  for (size_t i = 0; i < 2; ++i) {
    int64_t k = u.weight.size(int64_t(i) + 2), in = u.src_dims[i + 2], out = u.out_dims[i + 2];
    d.strides.push_back(g.stride[i]);
    d.dilates.push_back(g.dilation[i] - 1);
    d.pad_l.push_back(g.padding[i]);
    d.pad_r.push_back((out - 1) * g.stride[i] + g.dilation[i] * (k - 1) + 1 - in - g.padding[i]);
  }
  d.key = {batch, u.src_blocked, u.bias.defined()};
  for (const DimVector* v : {&u.src_dims, &u.out_dims}) d.key.insert(d.key.end(), v->begin() + 1, v->end());
  d.key.insert(d.key.end(), u.weight.sizes().begin(), u.weight.sizes().end());
  for (const auto* v : {&d.strides, &d.dilates, &d.pad_l, &d.pad_r}) d.key.insert(d.key.end(), v->begin(), v->end());
  return d;
}

dnnl::convolution_forward::primitive_desc forward_pd(const Descs& d) {
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, d.src,
                                       d.weights_any, d.bias, d.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
  return {desc, user_scratchpad(), cpu_engine()};
}

// Float offset of sample `first` in an activation of dims (N, C, H, W) (the same in nchw and nChw8c).
float* at_sample(const Tensor& t, const DimVector& dims, int64_t first) {
  return t.data_ptr<float>() + first * dims[1] * dims[2] * dims[3];
}

bool is_reference(const std::string& impl) { return impl.rfind("ref", 0) == 0; }

std::shared_ptr<const Cached> forward_primitive(const Descs& d) {
  return cached_primitive(TrainForward, d.key, [&] {
    auto pd = forward_pd(d);
    return Cached{dnnl::convolution_forward(pd), {{DNNL_ARG_WEIGHTS, pd.weights_desc()}}, pd.scratchpad_desc(),
                  is_reference(pd.impl_info_str())};
  });
}

std::shared_ptr<const Cached> backward_data_primitive(const Descs& d) {
  return cached_primitive(TrainBackwardData, d.key, [&] {
    dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, d.src, d.weights_any, d.dst,
                                               d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_backward_data::primitive_desc pd(desc, user_scratchpad(), cpu_engine(), forward_pd(d));
    return Cached{dnnl::convolution_backward_data(pd), {{DNNL_ARG_WEIGHTS, pd.weights_desc()}}, pd.scratchpad_desc(),
                  is_reference(pd.impl_info_str())};
  });
}

std::shared_ptr<const Cached> backward_weights_primitive(const Descs& d) {
  return cached_primitive(TrainBackwardWeights, d.key, [&] {
    dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src, d.weights_any, d.bias,
                                                  d.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
    dnnl::convolution_backward_weights::primitive_desc pd(desc, user_scratchpad(), cpu_engine(), forward_pd(d));
    return Cached{dnnl::convolution_backward_weights(pd), {{DNNL_ARG_DIFF_WEIGHTS, pd.diff_weights_desc()}},
                  pd.scratchpad_desc(), is_reference(pd.impl_info_str())};
  });
}

// Whether oneDNN has only its reference kernel for the primitive `get` makes (a plain source: measured 1 -> 32
// channels at 28x28, batch 128, backward weights ~1.6 s; a 12-channel forward); made on one OpenMP thread as the
// chunks make theirs (they may reuse it: one made on the default team size starts a team when run).
template <typename Get>
bool reference(const TrainConv& u, Get&& get) {
  SingleOmpThread one_thread;
  return get(describe(u, u.src_dims[0]))->reference;
}

memory weights_memory(const TrainConv& u, const memory::desc& want, dnnl::stream& stream) {
  return cached_weights(memory(plain_desc(dims_of(u.weight)), cpu_engine(), u.weight.data_ptr()), u.weight, want,
                        stream);
}

}  // namespace

void to_blocked(const Tensor& plain, const Tensor& blocked) {
  dnnl::stream stream(cpu_engine());
  DimVector dims(plain.sizes());
  over_batch(dims[0], [&](int64_t first, int64_t n, int64_t) {
    reorder(memory(act_desc(dims, false, n), cpu_engine(), at_sample(plain, dims, first)),
            memory(act_desc(dims, true, n), cpu_engine(), at_sample(blocked, dims, first)), stream);
  });
}

void from_blocked(const Tensor& blocked, const Tensor& plain) {
  dnnl::stream stream(cpu_engine());
  DimVector dims(plain.sizes());
  over_batch(dims[0], [&](int64_t first, int64_t n, int64_t) {
    reorder(memory(act_desc(dims, true, n), cpu_engine(), at_sample(blocked, dims, first)),
            memory(act_desc(dims, false, n), cpu_engine(), at_sample(plain, dims, first)), stream);
  });
}

// Winograd where it fits and gives finite outputs; where oneDNN's kernel for a plain input is its reference one,
// the unfused kernel runs into a plain output.
void train_conv_forward(const TrainConv& u, const Tensor& out) {
  if (winograd_fits(u) && winograd_forward(u, out)) return;
  if (!u.src_blocked && reference(u, forward_primitive)) {
    Tensor plain = empty(u.out_dims, TensorOptions(kFloat32));
    conv_forward_kernel(u.src.view(u.src_dims), u.weight, u.bias, plain, u.geometry);
    return to_blocked(plain, out);
  }
  over_batch(u.src_dims[0], [&](int64_t first, int64_t n, int64_t) {
    Descs d = describe(u, n);
    auto c = forward_primitive(d);
    dnnl::stream stream(cpu_engine());
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, memory(d.src, cpu_engine(), at_sample(u.src, u.src_dims, first))},
        {DNNL_ARG_WEIGHTS, weights_memory(u, c->wanted.at(DNNL_ARG_WEIGHTS), stream)},
        {DNNL_ARG_DST, memory(d.dst, cpu_engine(), at_sample(out, u.out_dims, first))}};
    if (u.bias.defined()) args.emplace(DNNL_ARG_BIAS, memory(d.bias, cpu_engine(), u.bias.data_ptr()));
    run(c->primitive, c->scratchpad, args, stream);
  });
}


namespace {

// Each chunk but the first sums its weight (and bias) gradient into its own tensor, added up at the end. Where
// oneDNN's kernel for a plain input is its reference one, the unfused kernels run on a plain grad_conv
// (conv_kernel.cpp has a faster path for one input channel).
void direct_backward(const TrainConv& u, const Tensor& grad_conv, const Tensor& grad_src, const Tensor& grad_weight,
                     const Tensor& grad_bias) {
  bool weights = grad_weight.defined() || grad_bias.defined();
  if (!weights && !grad_src.defined()) return;
  if (!u.src_blocked && ((grad_src.defined() && reference(u, backward_data_primitive)) ||
                         (weights && reference(u, backward_weights_primitive)))) {
    Tensor go = empty(u.out_dims, TensorOptions(kFloat32));
    from_blocked(grad_conv, go);
    return conv_backward_kernel(go, u.src.view(u.src_dims), u.weight,
                                grad_src.defined() ? grad_src.view(u.src_dims) : Tensor(), grad_weight, grad_bias,
                                u.geometry);
  }
  int64_t batch = u.src_dims[0], threads = get_num_threads();
  std::vector<Tensor> gw{grad_weight.defined() ? grad_weight : empty_like(u.weight)};
  std::vector<Tensor> gb{grad_bias};
  if (u.bias.defined() && !gb[0].defined()) gb[0] = empty_like(u.bias);
  for (int64_t t = 1; weights && t < threads && batch >= threads; ++t) {
    gw.push_back(empty_like(gw[0]));
    gb.push_back(gb[0].defined() ? empty_like(gb[0]) : Tensor());
  }
  over_batch(batch, [&](int64_t first, int64_t n, int64_t t) {
    Descs d = describe(u, n);
    dnnl::stream stream(cpu_engine());
    memory diff_dst(d.dst, cpu_engine(), at_sample(grad_conv, u.out_dims, first));
    if (grad_src.defined()) {
      auto c = backward_data_primitive(d);
      run(c->primitive, c->scratchpad,
          {{DNNL_ARG_DIFF_DST, diff_dst},
           {DNNL_ARG_WEIGHTS, weights_memory(u, c->wanted.at(DNNL_ARG_WEIGHTS), stream)},
           {DNNL_ARG_DIFF_SRC, memory(d.src, cpu_engine(), at_sample(grad_src, u.src_dims, first))}},
          stream);
    }
    if (!weights) return;
    auto c = backward_weights_primitive(d);
    const memory::desc& want = c->wanted.at(DNNL_ARG_DIFF_WEIGHTS);
    memory plain(plain_desc(dims_of(u.weight)), cpu_engine(), gw[size_t(t)].data_ptr());
    Tensor scratch;
    memory diff_weights = plain;
    if (!(want == plain.get_desc())) {
      scratch = empty({int64_t(want.get_size())}, TensorOptions(kUInt8));
      diff_weights = memory(want, cpu_engine(), scratch.data_ptr());
    }
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, memory(d.src, cpu_engine(), at_sample(u.src, u.src_dims, first))},
        {DNNL_ARG_DIFF_DST, diff_dst},
        {DNNL_ARG_DIFF_WEIGHTS, diff_weights}};
    if (u.bias.defined()) args.emplace(DNNL_ARG_DIFF_BIAS, memory(d.bias, cpu_engine(), gb[size_t(t)].data_ptr()));
    run(c->primitive, c->scratchpad, args, stream);
    if (scratch.defined()) reorder(diff_weights, plain, stream);
  });
  for (size_t t = 1; t < gw.size(); ++t) {
    gw[0].add_(gw[t]);
    if (gb[0].defined()) gb[0].add_(gb[t]);
  }
}

}  // namespace

// Winograd for the passes that fit (a non-finite result runs again directly), the direct kernels for the rest.
void train_conv_backward(const TrainConv& u, const Tensor& grad_conv, const Tensor& grad_src,
                         const Tensor& grad_weight, const Tensor& grad_bias) {
  bool data = grad_src.defined() && winograd_fits(u) &&
              winograd_backward_data(u, grad_conv, grad_src);
  bool weights = grad_weight.defined() && winograd_fits(u) &&
                 winograd_backward_weights(u, grad_conv, grad_weight, grad_bias);
  direct_backward(u, grad_conv, data ? Tensor() : grad_src, weights ? Tensor() : grad_weight,
                  weights ? Tensor() : grad_bias);
}

}  // namespace ember::cpu
