// oneDNN inference chains (eval_chain.h). Measured on the seed CNN's inference (issue 11, batch 64, 1-thread CPU
// time): 45 ms against 50 module by module, where each convolution reordered its input and output (nchw <-> nChw8c)
// and BatchNorm and ReLU made a pass each; here only the chain's ends are reordered, BatchNorm is in the weights and
// ReLU a post-op. Carrying sub-batches of 1-8 images through the chain (for cache reuse) measured no faster.
#include "eval_chain.h"

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "ember/creation.h"
#include "onednn_support.h"

namespace ember::cpu {

namespace {

using namespace onednn;

memory::dims spatial(const DimVector& v) { return memory::dims(v.begin(), v.end()); }

// A fresh buffer (Ember's caching allocator) for memory of layout `desc`, kept in `buffers`.
memory buffer(const memory::desc& desc, std::vector<Tensor>& buffers) {
  buffers.push_back(empty({int64_t(desc.get_size())}, TensorOptions(kUInt8)));
  return memory(desc, cpu_engine(), buffers.back().data_ptr());
}

// One stage on `src` (dims `src_dims`); returns its output. `key` names the chain so far (the source's layout
// follows from it).
memory conv_stage(const ChainStage& s, const memory& src, const memory::dims& src_dims, const memory::dims& dst_dims,
                  const std::vector<int64_t>& key, std::vector<Tensor>& buffers, dnnl::stream& stream) {
  int64_t groups = s.conv.groups;
  memory::dims wd = dims_of(s.weight);
  if (groups > 1) {
    wd[0] /= groups;
    wd.insert(wd.begin(), groups);
  }
  auto c = cached_primitive(FusedForward, key, [&] {
    memory::dims strides, dilates, pad_l, pad_r;
    for (size_t i = 0; i < s.out.size(); ++i) {
      int64_t k = s.weight.size(int64_t(i) + 2), in = src_dims[i + 2];
      strides.push_back(s.conv.stride[i]);
      dilates.push_back(s.conv.dilation[i] - 1);
      pad_l.push_back(s.conv.padding[i]);
      pad_r.push_back((s.out[i] - 1) * s.conv.stride[i] + s.conv.dilation[i] * (k - 1) + 1 - in - s.conv.padding[i]);
    }
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any_desc(src_dims), any_desc(wd),
        s.bias.defined() ? plain_desc({s.weight.size(0)}) : memory::desc(), any_desc(dst_dims), strides, dilates,
        pad_l, pad_r);
    dnnl::primitive_attr attr;  // not a copy of user_scratchpad(): attributes are shared handles
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (s.relu) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      attr.set_post_ops(ops);
    }
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    return Cached{dnnl::convolution_forward(pd),
                  {{DNNL_ARG_SRC, pd.src_desc()}, {DNNL_ARG_WEIGHTS, pd.weights_desc()}, {DNNL_ARG_DST, pd.dst_desc()}},
                  pd.scratchpad_desc()};
  });
  memory in = src;
  if (!(src.get_desc() == c->wanted.at(DNNL_ARG_SRC))) {
    in = buffer(c->wanted.at(DNNL_ARG_SRC), buffers);
    reorder(src, in, stream);
  }
  memory given(plain_desc(wd), cpu_engine(), s.weight.data_ptr());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, in},
                                       {DNNL_ARG_WEIGHTS, cached_weights(given, s.weight, c->wanted.at(DNNL_ARG_WEIGHTS),
                                                                         stream)},
                                       {DNNL_ARG_DST, buffer(c->wanted.at(DNNL_ARG_DST), buffers)}};
  if (s.bias.defined()) args.emplace(DNNL_ARG_BIAS, memory(plain_desc({s.weight.size(0)}), cpu_engine(),
                                                           s.bias.data_ptr()));
  run(c->primitive, c->scratchpad, args, stream);
  return args.at(DNNL_ARG_DST);
}

// 2x2 windows at stride 2 without padding, none past the input's end, on nChw8c (the seed CNN's pools): 8 channels
// per AVX2 max, into `dst`; false (nothing done) for other pools and layouts. A chain's inputs are finite. Measured
// against oneDNN's pooling: the seed CNN's inference 43.4 ms instead of 45.3 (1-thread CPU time).
bool pool_2x2_blocked(const ChainStage& s, const memory& src, const memory::dims& src_dims,
                      const memory::dims& dst_dims, std::vector<Tensor>& buffers, memory& dst) {
#ifdef __AVX2__
  bool two = s.kernel == DimVector{2, 2} && s.stride == DimVector{2, 2} && s.padding == DimVector{0, 0} &&
             2 * dst_dims[2] <= src_dims[2] && 2 * dst_dims[3] <= src_dims[3];
  if (!two || src_dims[1] % 8 != 0 || !(src.get_desc() == memory::desc(src_dims, memory::data_type::f32, Tag::aBcd8b)))
    return false;
  dst = buffer(memory::desc(dst_dims, memory::data_type::f32, Tag::aBcd8b), buffers);
  const float* in = static_cast<const float*>(src.get_data_handle());
  float* out = static_cast<float*>(dst.get_data_handle());
  int64_t w = src_dims[3], oh = dst_dims[2], ow = dst_dims[3];
  for (int64_t p = 0, planes = src_dims[0] * src_dims[1] / 8; p < planes; ++p) {
    const float* a = in + p * src_dims[2] * w * 8;
    float* b = out + p * oh * ow * 8;
    for (int64_t y = 0; y < oh; ++y) {
      const float *r0 = a + 2 * y * w * 8, *r1 = r0 + w * 8;
      for (int64_t x = 0; x < ow; ++x) {
        __m256 top = _mm256_max_ps(_mm256_loadu_ps(r0 + 16 * x), _mm256_loadu_ps(r0 + 16 * x + 8));
        __m256 bottom = _mm256_max_ps(_mm256_loadu_ps(r1 + 16 * x), _mm256_loadu_ps(r1 + 16 * x + 8));
        _mm256_storeu_ps(b + (y * ow + x) * 8, _mm256_max_ps(top, bottom));
      }
    }
  }
  return true;
#else
  return false;
#endif
}

memory pool_stage(const ChainStage& s, const memory& src, const memory::dims& src_dims, const memory::dims& dst_dims,
                  const std::vector<int64_t>& key, std::vector<Tensor>& buffers, dnnl::stream& stream) {
  memory fast;
  if (pool_2x2_blocked(s, src, src_dims, dst_dims, buffers, fast)) return fast;
  auto c = cached_primitive(MaxPoolForward, key, [&] {
    memory::dims pad_r;
    for (size_t i = 0; i < s.out.size(); ++i)
      pad_r.push_back((s.out[i] - 1) * s.stride[i] + s.kernel[i] - src_dims[i + 2] - s.padding[i]);
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
                                     src.get_desc(), any_desc(dst_dims), spatial(s.stride), spatial(s.kernel),
                                     spatial(s.padding), pad_r);
    dnnl::pooling_forward::primitive_desc pd(desc, user_scratchpad(), cpu_engine());
    return Cached{dnnl::pooling_forward(pd), {{DNNL_ARG_DST, pd.dst_desc()}}, pd.scratchpad_desc()};
  });
  memory dst = buffer(c->wanted.at(DNNL_ARG_DST), buffers);
  run(c->primitive, c->scratchpad, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, stream);
  return dst;
}

void chain_chunk(const Tensor& input, const std::vector<ChainStage>& stages, const Tensor& output) {
  dnnl::stream stream(cpu_engine());
  std::vector<Tensor> buffers;
  memory cur(strided_desc(input), cpu_engine(), input.data_ptr());
  memory::dims dims = dims_of(input);
  std::vector<int64_t> key(dims.begin(), dims.end());
  for (const ChainStage& s : stages) {
    memory::dims out{dims[0], s.pool ? dims[1] : s.weight.size(0)};
    out.insert(out.end(), s.out.begin(), s.out.end());
    key.push_back(s.pool);
    if (s.pool) {
      for (const DimVector* v : {&s.kernel, &s.stride, &s.padding, &s.out}) key.insert(key.end(), v->begin(), v->end());
      cur = pool_stage(s, cur, dims, out, key, buffers, stream);
    } else {
      key.insert(key.end(), s.weight.sizes().begin(), s.weight.sizes().end());
      for (const DimVector* v : {&s.conv.stride, &s.conv.padding, &s.conv.dilation, &s.out})
        key.insert(key.end(), v->begin(), v->end());
      key.insert(key.end(), {s.conv.groups, s.bias.defined(), s.relu});
      cur = conv_stage(s, cur, dims, out, key, buffers, stream);
    }
    dims = out;
  }
  reorder(cur, memory(strided_desc(output), cpu_engine(), output.data_ptr()), stream);
}

}  // namespace

void onednn_eval_chain(const Tensor& input, const std::vector<ChainStage>& stages, const Tensor& output) {
  over_batch(input.size(0), [&](int64_t first, int64_t n, int64_t) {
    chain_chunk(input.narrow(0, first, n), stages, output.narrow(0, first, n));
  });
}

}  // namespace ember::cpu
