// The matmul family. Every case reduces to the gemm kernel on 2-D operands or the batched gemm kernel.
#include "../core/autocast_policy.h"
#include "ember/sparse.h"
#include "ember/linalg.h"

#include <initializer_list>
#include <utility>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

std::string sizes_str(const Tensor& t) {
  std::string s;
  for (int64_t i = 0; i < t.dim(); ++i) s.append(i ? "x" : "").append(std::to_string(t.sizes()[size_t(i)]));
  return s;
}

void check_same_dtype(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "expected m1 and m2 to have the same dtype, but got: ",
              dtype_name(a.dtype()), " != ", dtype_name(b.dtype()));
}

// torch's first check of a CUDA-dispatched op: all operands (name, tensor), in argument order, on one device.
void check_same_device(const char* method, std::initializer_list<std::pair<const char*, const Tensor*>> args) {
  Device first = args.begin()->second->device();
  for (const auto& [name, t] : args) {
    EMBER_CHECK(t->device() == first, Error, "Expected all tensors to be on the same device, but got ", name, " is on ",
                t->device().str(), ", different from other tensors on ", first.str(),
                " (when checking argument in method ", method, ")");
  }
}

void check_bmm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 3, Error, "batch1 must be a 3D tensor");
  EMBER_CHECK(b.dim() == 3, Error, "batch2 must be a 3D tensor");
  int64_t B = a.sizes()[0], K = a.sizes()[2];
  EMBER_CHECK(b.sizes()[0] == B && b.sizes()[1] == K, Error, "Expected size for first two dimensions of batch2 tensor to be: [",
              B, ", ", K, "] but got: [", b.sizes()[0], ", ", b.sizes()[1], "].");
}

// torch's product with nothing to multiply (an empty result or K = 0) before any dtype check: out (of the second
// factor's dtype) is zero, or beta * input through mul_, which refuses a floating beta for an integer result.
bool empty_product(Tensor& out, int64_t K, const Tensor* input = nullptr, const Scalar& beta = Scalar(0)) {
  if (out.numel() != 0 && K != 0) return false;
  if (out.numel() == 0) return true;
  if (!input || beta.to_double() == 0) {
    out.zero_();
  } else {
    out.copy_(input->expand(out.sizes()));
    out.mul_(wrapped_scalar(beta));
  }
  return true;
}

// out (B, M, N, contiguous) = alpha * a @ b + beta * out for each batch.
void bmm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha = 1, double beta = 0) {
  autograd::untracked([&] {  // the CPU kernel takes per-batch views
    kernels::gemm_batched[out.device()](a, b, out, alpha, beta);
    return 0;
  });
}

// a (M, K) @ b (K, N) into out (M, N, contiguous): out = alpha * a @ b + beta * out.
void mm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha = 1, double beta = 0) {
  kernels::gemm[out.device()](a, b, out, alpha, beta);
}

// mm's checks of its operands; returns the product's (uninitialised) tensor.
Tensor mm_result(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 2, Error, "self must be a matrix");
  EMBER_CHECK(b.dim() == 2, Error, "mat2 must be a matrix");
  EMBER_CHECK(a.sizes()[1] == b.sizes()[0], Error, "mat1 and mat2 shapes cannot be multiplied (", sizes_str(a), " and ",
              sizes_str(b), ")");
  check_same_dtype(a, b);
  return empty({a.sizes()[0], b.sizes()[1]}, a.options());
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  EMBER_AUTOCAST(lower, kBoth, mm, a, b);
  check_same_device("wrapper_CUDA_mm", {{"self", &a}, {"mat2", &b}});
  if (a.has_sparse_layout() || b.has_sparse_layout()) [[unlikely]] {
    Tensor r = sparse_mm(a, b);
    if (autograd::needs_grad({&a, &b})) autograd::record_mm(r, a, b);
    return r;
  }
  Tensor out = mm_result(a, b);
  mm_into(a, b, out);
  if (autograd::needs_grad({&a, &b})) autograd::record_mm(out, a, b);
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  EMBER_AUTOCAST(lower, kBoth, bmm, a, b);
  check_same_device("wrapper_CUDA_bmm", {{"self", &a}, {"mat2", &b}});
  check_bmm(a, b);
  Tensor out = empty({a.sizes()[0], a.sizes()[1], b.sizes()[2]}, b.options());  // torch: batch2's options
  if (!empty_product(out, a.sizes()[2])) {
    check_same_dtype(a, b);
    bmm_into(a, b, out);
  }
  if (autograd::needs_grad({&a, &b})) autograd::record_bmm(out, a, b);
  return out;
}

Tensor mv(const Tensor& m, const Tensor& v) {
  EMBER_AUTOCAST(lower, kCUDA, mv, m, v);
  EMBER_AUTOCAST(keep, kCPU, mv, m, v);
  check_same_device("wrapper_CUDA_addmv_out_out", {{"mat", &m}, {"vec", &v}});  // torch's mv is addmv_out
  if (m.has_sparse_layout() || v.has_sparse_layout()) [[unlikely]] {
    EMBER_CHECK(!v.has_sparse_layout() && v.dim() == 1, Error, "mv: expected a dense vector, got a ",
                layout_name(v.layout()), " tensor of size ", int_list(v.sizes()));
    Tensor r = autograd::untracked([&] { return sparse_mm(m, v.unsqueeze(1)).squeeze(1); });
    if (autograd::needs_grad({&m, &v})) autograd::record_mv(r, m, v);
    return r;
  }
  EMBER_CHECK(m.dim() == 2 && v.dim() == 1, Error, "vector + matrix @ vector expected, got ", m.dim(), ", ", v.dim(),
              ", ", v.dim());
  EMBER_CHECK(m.sizes()[1] == v.sizes()[0], Error, "size mismatch, got input (", m.sizes()[0], "), mat (", sizes_str(m),
              "), vec (", v.sizes()[0], ")");
  Tensor r = autograd::untracked([&] { return mm(m, v.unsqueeze(1)).squeeze({1}); });
  if (autograd::needs_grad({&m, &v})) autograd::record_mv(r, m, v);
  return r;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  EMBER_AUTOCAST(promote, kCUDA, dot, a, b);
  EMBER_AUTOCAST(keep, kCPU, dot, a, b);
  check_same_device("wrapper_CUDA__dot", {{"self", &a}, {"tensor", &b}});
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, Error, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(),
              "D tensors");
  EMBER_CHECK(a.numel() == b.numel(), Error, "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
              b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
              " elements respectively");
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "dot : expected both vectors to have same dtype, but found ",
              legacy_name(a.dtype()), " and ", legacy_name(b.dtype()));
  Tensor r = autograd::untracked([&] { return mm(a.unsqueeze(0), b.unsqueeze(1)).reshape({}); });
  autograd::as_new_tensor(r);  // no view of the temporary product: an in-place op on it records AddBackward0 etc.
  if (autograd::needs_grad({&a, &b})) autograd::record_dot(r, a, b);
  return r;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, Error, "outer: expected 1D tensors");
  return mul(a.unsqueeze(1), b.unsqueeze(0));
}

namespace {

// torch's matmul shapes a folded or batched product with _unsafe_view: a new tensor (no view), UnsafeViewBackward0.
Tensor unsafe_view(const Tensor& product, IntArrayRef shape) {
  Tensor r = autograd::untracked([&] { return product.view(shape); });
  autograd::as_new_tensor(r);
  if (autograd::needs_grad({&product})) autograd::record_unsafe_view(r, product, product.sizes());
  return r;
}

// 1-d @ 2-d: torch squeezes the (1, N) product in place (SqueezeBackward4; the result is no view).
Tensor squeezed_row(const Tensor& product) {
  return autograd::run_function(
      "SqueezeBackward4", {product},
      [&](autograd::AutogradContext&) {
        Tensor r = product.squeeze(0);
        autograd::as_new_tensor(r);
        return autograd::TensorList{r};
      },
      [](autograd::AutogradContext&, const autograd::TensorList& grads) {
        return autograd::TensorList{grads[0].unsqueeze(0)};
      })[0];
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  EMBER_AUTOCAST(lower, kBoth, matmul, a, b);
  int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da > 0 && db > 0, Error, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ",
              db, "D");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (a.has_sparse_layout() || b.has_sparse_layout()) [[unlikely]] return mm(a, b);  // torch's sparse matmul
  if (da == 1 && db == 2) return squeezed_row(mm(a.unsqueeze(0), b));
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && db <= 2) {  // fold a's batch dims into rows
    DimVector out_shape(a.sizes());
    out_shape.erase(out_shape.size() - 1);
    Tensor rows = a.reshape({checked_numel(out_shape), a.sizes().back()});
    if (db == 1) return unsafe_view(mv(rows, b), out_shape);
    out_shape.push_back(b.sizes()[1]);
    return unsafe_view(mm(rows, b), out_shape);
  }
  if (da == 1 && a.dtype() != b.dtype()) {  // torch folds b into an addmv of a, whose dtype check comes first
    std::string_view ta = legacy_name(a.dtype()), tb = legacy_name(b.dtype());
    EMBER_CHECK(a.numel() && b.numel(), Error, "addmv input tensors must have the same dtype, but got ", ta, ", ", tb,
                ", and ", ta);
    throw Error(str("expected scalar type ", ta, " but found ", tb));
  }
  // General case: broadcast the batch dims and run bmm.
  Tensor a2 = da == 1 ? a.unsqueeze(0) : a, b2 = db == 1 ? b.unsqueeze(1) : b;
  int64_t M = a2.sizes()[size_t(a2.dim() - 2)], K = a2.sizes().back(), N = b2.sizes().back();
  EMBER_CHECK(K == b2.sizes()[size_t(b2.dim() - 2)], Error, "Expected size for first two dimensions of batch2 tensor to be: [",
              checked_numel(IntArrayRef(a2.sizes().data(), size_t(a2.dim() - 2))), ", ", K, "] but got: [",
              checked_numel(IntArrayRef(b2.sizes().data(), size_t(b2.dim() - 2))), ", ", b2.sizes()[size_t(b2.dim() - 2)], "].");
  DimVector batch = broadcast_shapes(IntArrayRef(a2.sizes().data(), size_t(a2.dim() - 2)),
                                     IntArrayRef(b2.sizes().data(), size_t(b2.dim() - 2)));
  DimVector ea(batch), eb(batch);
  ea.push_back(M); ea.push_back(K);
  eb.push_back(K); eb.push_back(N);
  int64_t nbatch = checked_numel(batch);  // not -1: ambiguous when M, K or N is 0
  Tensor out = bmm(a2.expand(ea).reshape({nbatch, M, K}), b2.expand(eb).reshape({nbatch, K, N}));
  DimVector out_shape(batch);
  if (da > 1) out_shape.push_back(M);
  if (db > 1) out_shape.push_back(N);
  return unsafe_view(out, out_shape);
}

Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST(lower, kBoth, addmm, input, m1, m2, beta, alpha);
  check_same_device("wrapper_CUDA_addmm", {{"self", &input}, {"mat1", &m1}, {"mat2", &m2}});
  if (m1.has_sparse_layout() || m2.has_sparse_layout()) [[unlikely]] {
    Tensor r = autograd::untracked([&] { return sparse_addmm(input, m1, m2, beta, alpha); });
    if (autograd::needs_grad({&input, &m1, &m2})) autograd::record_addmm(r, input, m1, m2, beta, alpha);
    return r;
  }
  Tensor out = autograd::untracked([&] {
    Tensor out = mm_result(m1, m2);
    Tensor in = input.expand(out.sizes());  // torch expands input first, even for an empty product
    if (empty_product(out, m1.sizes()[1], &in, beta)) return out;
    out.copy_(in);
    if (beta.to_double() == 0) out.zero_();  // beta = 0 ignores input, NaNs included, as torch
    mm_into(m1, m2, out, alpha.to_double(), beta.to_double() == 0 ? 0.0 : beta.to_double());
    return out;
  });
  if (autograd::needs_grad({&input, &m1, &m2})) autograd::record_addmm(out, input, m1, m2, beta, alpha);
  return out;
}

Tensor addmv(const Tensor& input, const Tensor& m, const Tensor& v, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST(lower, kCUDA, addmv, input, m, v, beta, alpha);
  EMBER_AUTOCAST(keep, kCPU, addmv, input, m, v, beta, alpha);
  check_same_device("wrapper_CUDA_addmv", {{"self", &input}, {"mat", &m}, {"vec", &v}});
  Tensor out = autograd::untracked([&] {
    return addmm(input.dim() == 1 ? input.unsqueeze(1) : input, m, v.unsqueeze(1), beta, alpha).squeeze(1);
  });
  autograd::as_new_tensor(out);  // not a view of addmm's result: torch's addmv is one op (AddmvBackward0)
  if (autograd::needs_grad({&input, &m, &v})) autograd::record_addmv(out, input, m, v, beta, alpha);
  return out;
}

// beta * input + alpha * b1 @ b2 in one rounding per batch (gemm's beta), as torch's baddbmm kernel.
Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  EMBER_AUTOCAST(lower, kBoth, baddbmm, input, b1, b2, beta, alpha);
  check_same_device("wrapper_CUDA_baddbmm", {{"self", &input}, {"batch1", &b1}, {"batch2", &b2}});
  // torch first expands input to (batch1.size(0), batch1.size(1), batch2.size(2)): IndexErrors and the expand's
  // error come before the 3-D checks
  input.expand({b1.sizes()[size_t(wrap_dim(0, b1.dim()))], b1.sizes()[size_t(wrap_dim(1, b1.dim()))],
                b2.sizes()[size_t(wrap_dim(2, b2.dim()))]});
  EMBER_CHECK(input.dtype() == b1.dtype(), Error, "Input dtypes must be the same, got: input ",
              dtype_info(input.dtype()).cpp_name, ", batch1: ", dtype_info(b1.dtype()).cpp_name, ", batch2: ",
              dtype_info(b2.dtype()).cpp_name);
  Tensor out = autograd::untracked([&] {
    check_bmm(b1, b2);
    Tensor out = empty({b1.sizes()[0], b1.sizes()[1], b2.sizes()[2]}, b2.options());  // torch: batch2's options
    if (empty_product(out, b1.sizes()[2], &input, beta)) return out;
    check_same_dtype(b1, b2);
    if (beta.to_double() == 0) out.zero_();  // beta = 0 ignores input, NaNs included, as torch
    else out.copy_(input.expand(out.sizes()));
    bmm_into(b1, b2, out, alpha.to_double(), beta.to_double());
    return out;
  });
  if (autograd::needs_grad({&input, &b1, &b2})) autograd::record_baddbmm(out, input, b1, b2, beta, alpha);
  return out;
}

}  // namespace ember
