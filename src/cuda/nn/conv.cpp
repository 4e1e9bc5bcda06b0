// Convolutions on CUDA through cuDNN's legacy API, for the contracts in src/dispatch/kernels.h (contiguous NCHW
// tensors of one dtype, 1-3 spatial dims). float32/float64 compute in their own type (float32 in TF32 only when
// ember::cudnn::allow_tf32()), float16/bfloat16 accumulate in float32. The algorithm of each problem is chosen once
// (cuDNN's heuristic, or timing them when cudnn::benchmark()) and remembered; workspaces come from Ember's caching
// allocator.
#include "conv.h"

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "../cudnn_handle.h"
#include "../kernels.h"
#include "../runtime.h"
#include "ember/creation.h"
#include "ember/cudnn.h"
#include "ember/reduce.h"

namespace ember::cuda_backend {

namespace {

// A cuDNN descriptor, destroyed at scope exit.
template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
struct Descriptor {
  T value = nullptr;
  Descriptor() { EMBER_CUDNN_CHECK(Create(&value)); }
  ~Descriptor() { Destroy(value); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
};
using TensorDesc = Descriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc = Descriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc =
    Descriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;

cudnnDataType_t data_type(ScalarType t) {
  switch (t) {
    case kFloat32: return CUDNN_DATA_FLOAT;
    case kFloat64: return CUDNN_DATA_DOUBLE;
    case kFloat16: return CUDNN_DATA_HALF;
    case kBFloat16: return CUDNN_DATA_BFLOAT16;
    default:
      throw NotImplementedError(str("\"cudnn_convolution\" not implemented for '", legacy_name(t), "'"));
  }
}

// Tensor cores for float16/bfloat16; for float32 only when TF32 is allowed (FMA math forbids them).
cudnnMathType_t math_type(ScalarType t) {
  if (t == kFloat16 || t == kBFloat16) return CUDNN_TENSOR_OP_MATH;
  return t == kFloat32 && !cudnn::allow_tf32() ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
}

// One convolution as cuDNN runs it. cuDNN pads both ends by the padding before; where the padding after (which
// follows from the sizes) is larger, the input is zero-padded at its end (x longer than the tensor), and where it is
// smaller, cuDNN's output runs past ours (y longer: a forward result is cropped, a gradient zero-extended).
struct Problem {
  DimVector x, w, y;
  ConvGeometry g;
  ScalarType dtype;
};

Problem plan(IntArrayRef x, IntArrayRef w, IntArrayRef y, const ConvGeometry& g, ScalarType dtype) {
  Problem p{DimVector(x), DimVector(w), DimVector(y), g, dtype};
  for (size_t i = 0; i + 2 < x.size(); ++i) {
    int64_t stride = g.stride[i], pad = g.padding[i], extent = g.dilation[i] * (w[i + 2] - 1) + 1;
    int64_t after = (y[i + 2] - 1) * stride + extent - x[i + 2] - pad;
    p.x[i + 2] += std::max<int64_t>(after - pad, 0);
    p.y[i + 2] = (p.x[i + 2] + 2 * pad - extent) / stride + 1;
  }
  return p;
}

// Sizes (or geometry) as cuDNN's ints; a 1-d convolution runs as 2-d with a unit height (`unit` there).
std::vector<int> ints(IntArrayRef v, size_t at, int unit) {
  std::vector<int> r(v.begin(), v.end());
  if (v.size() == at + 1) r.insert(r.begin() + std::ptrdiff_t(at), unit);
  return r;
}

void set_tensor(const TensorDesc& d, ScalarType t, IntArrayRef sizes) {
  std::vector<int> dims = ints(sizes, 2, 1), strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * dims[i];
  EMBER_CUDNN_CHECK(cudnnSetTensorNdDescriptor(d.value, data_type(t), int(dims.size()), dims.data(), strides.data()));
}

// The descriptors of a problem.
struct Descriptors {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
  Descriptors(const Problem& p, cudnnMathType_t math) {
    set_tensor(x, p.dtype, p.x);
    set_tensor(y, p.dtype, p.y);
    std::vector<int> wd = ints(p.w, 2, 1);
    EMBER_CUDNN_CHECK(cudnnSetFilterNdDescriptor(w.value, data_type(p.dtype), CUDNN_TENSOR_NCHW, int(wd.size()),
                                                 wd.data()));
    std::vector<int> pad = ints(p.g.padding, 0, 0), stride = ints(p.g.stride, 0, 1),
                     dilation = ints(p.g.dilation, 0, 1);
    EMBER_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(conv.value, int(pad.size()), pad.data(), stride.data(),
                                                      dilation.data(), CUDNN_CROSS_CORRELATION,
                                                      p.dtype == kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
    EMBER_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv.value, int(p.g.groups)));
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(conv.value, math));
  }
};

// One cuDNN call's handle, descriptors and buffers, named as in the forward convolution (y = conv(x, w)).
struct Call {
  cudnnHandle_t handle;
  const Descriptors& d;
  void *x, *w, *y;
};

enum class Pass { Forward, BackwardData, BackwardFilter };

// Each pass's cuDNN functions: the heuristic's ranking, timing (writing `out` for the result), the workspace an
// algorithm needs, and the run.
template <Pass P>
struct Functions;

template <>
struct Functions<Pass::Forward> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static void rank(const Call& c, int* found, Perf* perf) {
    EMBER_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(c.handle, c.d.x.value, c.d.w.value, c.d.conv.value,
                                                             c.d.y.value, kCount, found, perf));
  }
  static void time(const Call& c, void* out, int* found, Perf* perf, void* ws, size_t bytes) {
    EMBER_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(c.handle, c.d.x.value, c.x, c.d.w.value, c.w,
                                                             c.d.conv.value, c.d.y.value, out, kCount, found, perf,
                                                             ws, bytes));
  }
  static size_t workspace(const Call& c, Algo algo) {
    size_t bytes = 0;
    EMBER_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(c.handle, c.d.x.value, c.d.w.value, c.d.conv.value,
                                                              c.d.y.value, algo, &bytes));
    return bytes;
  }
  static void run(const Call& c, Algo algo, void* ws, size_t bytes, const void* alpha, const void* beta) {
    EMBER_CUDNN_CHECK(cudnnConvolutionForward(c.handle, alpha, c.d.x.value, c.x, c.d.w.value, c.w, c.d.conv.value,
                                              algo, ws, bytes, beta, c.d.y.value, c.y));
  }
};

template <>
struct Functions<Pass::BackwardData> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static void rank(const Call& c, int* found, Perf* perf) {
    EMBER_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(c.handle, c.d.w.value, c.d.y.value,
                                                                  c.d.conv.value, c.d.x.value, kCount, found, perf));
  }
  static void time(const Call& c, void* out, int* found, Perf* perf, void* ws, size_t bytes) {
    EMBER_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(c.handle, c.d.w.value, c.w, c.d.y.value, c.y,
                                                                  c.d.conv.value, c.d.x.value, out, kCount, found,
                                                                  perf, ws, bytes));
  }
  static size_t workspace(const Call& c, Algo algo) {
    size_t bytes = 0;
    EMBER_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(c.handle, c.d.w.value, c.d.y.value,
                                                                   c.d.conv.value, c.d.x.value, algo, &bytes));
    return bytes;
  }
  static void run(const Call& c, Algo algo, void* ws, size_t bytes, const void* alpha, const void* beta) {
    EMBER_CUDNN_CHECK(cudnnConvolutionBackwardData(c.handle, alpha, c.d.w.value, c.w, c.d.y.value, c.y,
                                                   c.d.conv.value, algo, ws, bytes, beta, c.d.x.value, c.x));
  }
};

template <>
struct Functions<Pass::BackwardFilter> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static void rank(const Call& c, int* found, Perf* perf) {
    EMBER_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(c.handle, c.d.x.value, c.d.y.value,
                                                                    c.d.conv.value, c.d.w.value, kCount, found, perf));
  }
  static void time(const Call& c, void* out, int* found, Perf* perf, void* ws, size_t bytes) {
    EMBER_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(c.handle, c.d.x.value, c.x, c.d.y.value, c.y,
                                                                    c.d.conv.value, c.d.w.value, out, kCount, found,
                                                                    perf, ws, bytes));
  }
  static size_t workspace(const Call& c, Algo algo) {
    size_t bytes = 0;
    EMBER_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(c.handle, c.d.x.value, c.d.y.value,
                                                                     c.d.conv.value, c.d.w.value, algo, &bytes));
    return bytes;
  }
  static void run(const Call& c, Algo algo, void* ws, size_t bytes, const void* alpha, const void* beta) {
    EMBER_CUDNN_CHECK(cudnnConvolutionBackwardFilter(c.handle, alpha, c.d.x.value, c.x, c.d.y.value, c.y,
                                                     c.d.conv.value, algo, ws, bytes, beta, c.d.w.value, c.w));
  }
};

// The tensor a pass writes: y, x's gradient or w's gradient.
IntArrayRef written(Pass pass, const Problem& p) {
  return pass == Pass::Forward ? IntArrayRef(p.y) : pass == Pass::BackwardData ? IntArrayRef(p.x) : IntArrayRef(p.w);
}

// An algorithm chosen for a problem, with the math type and workspace it runs with.
struct Choice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

// The problem, device, switches and buffer alignments a choice is remembered under.
using Key = std::vector<int64_t>;
std::mutex choices_mutex;
std::map<Key, Choice> choices;

std::optional<Choice> remembered(const Key& key) {
  std::lock_guard<std::mutex> lock(choices_mutex);
  auto it = choices.find(key);
  return it == choices.end() ? std::nullopt : std::optional(it->second);
}
void remember(const Key& key, const Choice& choice) {
  std::lock_guard<std::mutex> lock(choices_mutex);
  choices.emplace(key, choice);
}

// The largest power of two up to 16 dividing an address.
int64_t alignment(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  int64_t align = 16;
  while (a % uintptr_t(align)) align /= 2;
  return align;
}

Key key_of(Pass pass, const Problem& p, const Call& c, cudnnMathType_t math) {
  Key k{int64_t(pass), current_device(), int64_t(p.dtype), int64_t(math), cudnn::deterministic(), cudnn::benchmark(),
        alignment(c.x), alignment(c.w), alignment(c.y), p.g.groups};
  for (IntArrayRef v : {IntArrayRef(p.x), IntArrayRef(p.w), IntArrayRef(p.y), IntArrayRef(p.g.stride),
                        IntArrayRef(p.g.padding), IntArrayRef(p.g.dilation)}) {
    k.push_back(int64_t(v.size()));
    k.insert(k.end(), v.begin(), v.end());
  }
  return k;
}

Tensor device_bytes(const Tensor& like, size_t n) { return empty({int64_t(n)}, like.options().dtype(kUInt8)); }

// The most workspace an algorithm may take (cuDNN ranks some that want gigabytes).
constexpr size_t kMaxWorkspace = size_t(1) << 30;

// The first usable algorithm of cuDNN's ranking (its heuristic's, or by measured time when benchmarking; the timed
// runs write a scratch result): within the workspace limit, deterministic when asked, and in full float32 or in
// float64 never one needing tensor cores or a conversion to half.
template <Pass P>
Choice choose(const Call& c, const Problem& p, cudnnMathType_t math, const Tensor& like) {
  using F = Functions<P>;
  std::array<typename F::Perf, F::kCount> perf{};
  int found = 0;
  F::rank(c, &found, perf.data());
  size_t limit = kMaxWorkspace;
  if (cudnn::benchmark()) {  // time them with the most workspace a ranked algorithm wants
    limit = 0;
    for (int i = 0; i < found; ++i) {
      if (perf[size_t(i)].status == CUDNN_STATUS_SUCCESS) limit = std::max(limit, perf[size_t(i)].memory);
    }
    limit = std::min(limit, kMaxWorkspace);
    Tensor ws = device_bytes(like, limit);
    Tensor scratch = empty(DimVector(written(P, p)), like.options());
    F::time(c, scratch.data_ptr(), &found, perf.data(), ws.data_ptr(), limit);
  }
  bool deterministic = cudnn::deterministic();
  for (int i = 0; i < found; ++i) {
    const auto& r = perf[size_t(i)];
    bool tensor_ops = r.mathType == CUDNN_TENSOR_OP_MATH || r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (r.status != CUDNN_STATUS_SUCCESS || r.memory > limit ||
        (deterministic && r.determinism != CUDNN_DETERMINISTIC) ||
        (math == CUDNN_FMA_MATH && tensor_ops) ||
        (p.dtype != kFloat16 && p.dtype != kBFloat16 && r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)) {
      continue;
    }
    Choice choice{int(r.algo), math == CUDNN_FMA_MATH ? math : r.mathType, 0};
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(c.d.conv.value, choice.math));
    choice.workspace = F::workspace(c, r.algo);
    return choice;
  }
  throw Error(str("cuDNN error: no ", deterministic ? "deterministic " : "", "algorithm for a ",
                  dtype_name(p.dtype), " convolution of input ", int_list(p.x), " and weight ", int_list(p.w)));
}

// One pass of cuDNN over a problem: written = alpha * pass + beta * written.
template <Pass P>
void run(const Problem& p, const Tensor& like, void* x, void* w, void* y, double beta) {
  using F = Functions<P>;
  cudnnMathType_t math = math_type(p.dtype);
  Descriptors d(p, math);
  Call c{cudnn_handle(), d, x, w, y};
  Key key = key_of(P, p, c, math);
  std::optional<Choice> choice = remembered(key);
  if (!choice) {
    choice = choose<P>(c, p, math, like);
    remember(key, *choice);
  }
  EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(d.conv.value, choice->math));
  Tensor ws = choice->workspace ? device_bytes(like, choice->workspace) : Tensor();
  double one = 1;
  float one_f = 1, beta_f = float(beta);
  bool wide = p.dtype == kFloat64;
  F::run(c, static_cast<typename F::Algo>(choice->algo), ws.defined() ? ws.data_ptr() : nullptr, choice->workspace,
         wide ? static_cast<const void*>(&one) : &one_f, wide ? static_cast<const void*>(&beta) : &beta_f);
}

// cuDNN counts a tensor's elements in int: larger batches run in slices of the batch, `f(start, slice)`.
template <typename F>
void by_batch(const Problem& p, F f) {
  int64_t n = p.x[0], per_sample = 1;
  for (IntArrayRef sizes : {IntArrayRef(p.x), IntArrayRef(p.y)}) {
    int64_t numel = 1;
    for (size_t i = 1; i < sizes.size(); ++i) numel *= sizes[i];
    per_sample = std::max(per_sample, numel);
  }
  int64_t step = std::max<int64_t>(1, INT_MAX / per_sample);
  for (int64_t start = 0; start < n; start += step) {
    Problem slice = p;
    slice.x[0] = slice.y[0] = std::min(step, n - start);
    f(start, slice);
  }
}

void* batch_ptr(const Tensor& t, int64_t start, int64_t n) { return t.narrow(0, start, n).data_ptr(); }

bool same_sizes(const Tensor& t, IntArrayRef sizes) {
  return std::equal(sizes.begin(), sizes.end(), t.sizes().begin(), t.sizes().end());
}

// t's leading corner of the given sizes (a view).
Tensor corner(const Tensor& t, IntArrayRef sizes) {
  Tensor v = t;
  for (int64_t d = 2; d < t.dim(); ++d) {
    if (sizes[size_t(d)] != t.size(d)) v = v.narrow(d, 0, sizes[size_t(d)]);
  }
  return v;
}

// t in the leading corner of a zero tensor of `sizes` (t itself when the sizes are its own).
Tensor zero_extended(const Tensor& t, IntArrayRef sizes) {
  if (same_sizes(t, sizes)) return t;
  Tensor z = zeros(sizes, t.options());
  corner(z, t.sizes()).copy_(t);
  return z;
}

// A tensor of `sizes` to compute into: t itself when the sizes are its own, else a new one (copied back by
// `crop_into`).
Tensor result_buffer(const Tensor& t, IntArrayRef sizes) {
  return same_sizes(t, sizes) ? t : empty(sizes, t.options());
}
void crop_into(const Tensor& t, const Tensor& buffer) {
  if (!buffer.is_same(t)) Tensor(t).copy_(corner(buffer, t.sizes()));
}

// The checks every kernel makes: one CUDA device (made current) and a dtype cuDNN takes.
int check(std::initializer_list<const Tensor*> tensors) {
  const Tensor& first = **tensors.begin();
  for (const Tensor* t : tensors) {
    EMBER_CHECK(!t->defined() || t->device() == first.device(), Error,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                first.device().str(), " and ", t->device().str(), "!");
  }
  data_type(first.dtype());
  return device_index(first.device());
}

void forward_kernel(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y, const ConvGeometry& g) {
  DeviceGuard guard(check({&y, &x, &w, &b}));
  Problem p = plan(x.sizes(), w.sizes(), y.sizes(), g, y.dtype());
  Tensor xp = zero_extended(x, p.x), yp = result_buffer(y, p.y);
  by_batch(p, [&](int64_t start, const Problem& s) {
    run<Pass::Forward>(s, y, batch_ptr(xp, start, s.x[0]), w.data_ptr(), batch_ptr(yp, start, s.y[0]), 0);
  });
  crop_into(y, yp);
  if (b.defined()) {
    DimVector shape(size_t(y.dim()), 1);
    shape[1] = b.size(0);
    Tensor(y).add_(b.view(shape));
  }
}

// x's gradient from a zero-extended dy.
void data_gradient(const Problem& p, const Tensor& dyp, const Tensor& w, const Tensor& dx) {
  Tensor dxp = result_buffer(dx, p.x);
  by_batch(p, [&](int64_t start, const Problem& s) {
    run<Pass::BackwardData>(s, dx, batch_ptr(dxp, start, s.x[0]), w.data_ptr(), batch_ptr(dyp, start, s.y[0]), 0);
  });
  crop_into(dx, dxp);
}

// w's gradient from a zero-extended dy; batch slices after the first accumulate.
void weight_gradient(const Problem& p, const Tensor& dyp, const Tensor& x, const Tensor& dw) {
  Tensor xp = zero_extended(x, p.x);
  by_batch(p, [&](int64_t start, const Problem& s) {
    run<Pass::BackwardFilter>(s, dw, batch_ptr(xp, start, s.x[0]), dw.data_ptr(), batch_ptr(dyp, start, s.y[0]),
                              start ? 1 : 0);
  });
}

// The bias's gradient: dy summed over the batch and the positions (as torch, not cuDNN's kernel).
void bias_gradient(const Tensor& dy, const Tensor& db) {
  DimVector dims{0};
  for (int64_t d = 2; d < dy.dim(); ++d) dims.push_back(d);
  Tensor(db).copy_(sum(dy, dims));
}

void backward_kernel(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& dx, const Tensor& dw,
                     const Tensor& db, const ConvGeometry& g) {
  DeviceGuard guard(check({&dy, &x, &w, &dx, &dw, &db}));
  Problem p = plan(x.sizes(), w.sizes(), dy.sizes(), g, dy.dtype());
  Tensor dyp = zero_extended(dy, p.y);
  if (dx.defined()) data_gradient(p, dyp, w, dx);
  if (dw.defined()) weight_gradient(p, dyp, x, dw);
  if (db.defined()) bias_gradient(dy, db);
}

void backward_data_kernel(const Tensor& dy, const Tensor& w, const Tensor& dx, const ConvGeometry& g) {
  backward_kernel(dy, dx, w, dx, Tensor(), Tensor(), g);
}

void backward_weights_kernel(const Tensor& dy, const Tensor& x, const Tensor& dw, const Tensor& db,
                             const ConvGeometry& g) {
  backward_kernel(dy, x, dw, Tensor(), dw, db, g);
}

}  // namespace

void register_conv_kernels() {
  constexpr DeviceType cuda = DeviceType::CUDA;
  kernels::conv_forward.set(cuda, forward_kernel);
  kernels::conv_backward_data.set(cuda, backward_data_kernel);
  kernels::conv_backward_weights.set(cuda, backward_weights_kernel);
  kernels::conv_backward.set(cuda, backward_kernel);
}

}  // namespace ember::cuda_backend
