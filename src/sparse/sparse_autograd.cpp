// Gradients through sparse tensors: between a sparse tensor and its values, to_dense, sums and torch.sparse.mm.
// A gradient arriving at a sparse tensor may be dense or sparse; values_at reads it at the tensor's coordinates.
#include <cctype>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/type_promotion.h"
#include "sparse_internal.h"

namespace ember::sparse_detail {

namespace {

// A sparse tensor with t's indices and values but none of its autograd state (a node may hold it: no cycle).
Tensor shell(const Tensor& t) {
  SparseParts parts = *t.impl()->sparse;
  parts.values = parts.values.detach();
  return make_sparse(std::move(parts), DimVector(t.sizes()));
}

// The sparse gradient of sparse `t` given its dense-or-sparse gradient g: g at t's (coalesced) coordinates.
Tensor masked_gradient(const Tensor& g, const Tensor& t_shell) {
  Tensor mask = coalesce(t_shell.is_sparse_csr() ? csr_to_coo(t_shell) : t_shell);
  Tensor r = with_values(mask, values_at(g, mask), true);
  return t_shell.is_sparse_csr() ? coo_to_csr(r) : r;
}

}  // namespace

void record_pass_through(const char* node, const Tensor& result, const Tensor& t) {
  autograd::record(node, result, {&t}, {}, [](const autograd::BackwardContext& c) { return c.grads; });
}

Tensor int64_tensor(const std::vector<int64_t>& values) {
  return tensor(values, {int64_t(values.size())}, TensorOptions(kInt64));
}

void record_values_gradient(const char* node, const Tensor& result, const Tensor& values) {
  Tensor mask = shell(result);
  Tensor coo_mask = mask.is_sparse_csr() ? csr_to_coo(mask) : mask;  // same entry order as the CSR values
  autograd::record(node, result, {&values}, {}, [coo_mask](const autograd::BackwardContext& c) {
    return TensorList{values_at(c.grads[0], coo_mask)};
  });
}

Tensor values_alias(const Tensor& t) {
  Tensor v = autograd::untracked([&] { return t.impl()->sparse->values.alias(); });
  if (autograd::needs_grad({&t})) {
    Tensor mask = shell(t);
    autograd::record("ValuesBackward0", v, {&t}, {}, [mask](const autograd::BackwardContext& c) {
      return TensorList{with_values(mask, c.grads[0])};
    });
  }
  return v;
}

void record_to_dense(const Tensor& result, const Tensor& t) {
  Tensor mask = shell(t);
  autograd::record("ToDenseBackward0", result, {&t}, {}, [mask](const autograd::BackwardContext& c) {
    return TensorList{masked_gradient(c.grads[0], mask)};
  });
}

void record_dense_gradient(const char* node, const Tensor& result, const Tensor& t,
                           std::function<Tensor(const Tensor&)> formula) {
  if (!autograd::needs_grad({&t})) return;
  autograd::record(node, result, {&t}, {}, [formula = std::move(formula)](const autograd::BackwardContext& c) {
    const Tensor& g = c.grads[0];
    return TensorList{formula(g.has_sparse_layout() ? sparse_to_dense(g) : g)};
  });
}

void record_unary(const char* op, const Tensor& result, const Tensor& a, const Tensor& applied,
                  std::function<Tensor(const Tensor&)> fn, bool flagged_coalesced) {
  static std::mutex lock;
  static std::unordered_map<std::string, std::string> names;  // torch's node names: the op capitalised
  std::lock_guard<std::mutex> hold(lock);
  std::string& name = names[op];
  if (name.empty()) name = std::string(1, char(std::toupper(op[0]))) + (op + 1) + "Backward0";
  // coalesced: a gradient with one entry per coordinate (duplicates of a neg'd tensor would count twice)
  Tensor mask = autograd::untracked([&] { return applied.is_sparse() ? coalesce(shell(applied)) : shell(applied); });
  autograd::record(name.c_str(), result, {&a}, {},
                   [mask, fn = std::move(fn), flagged_coalesced](const autograd::BackwardContext& c) {
    const Tensor& values = mask.impl()->sparse->values;
    // the gradient at the entries (a CSR mask's entries in its COO form's order)
    Tensor at = autograd::untracked(
        [&] { return values_at(c.grads[0], mask.is_sparse_csr() ? csr_to_coo(mask) : mask); });
    autograd::GradModeGuard on(true);  // the derivative of fn at the values, by autograd on a dense copy
    Tensor v = values.detach().requires_grad_(true);
    Tensor dv = autograd::grad({fn(v)}, {v}, {at})[0];
    return TensorList{with_values(mask, dv.detach(), flagged_coalesced)};
  });
}

void record_sparse_mask(const Tensor& result, const Tensor& self, const Tensor& mask_in) {
  Tensor mask = shell(mask_in);
  autograd::record("SparseMaskBackward0", result, {&self}, {},
                   [mask, dense = !self.has_sparse_layout()](const autograd::BackwardContext& c) {
    Tensor g = with_values(mask, values_at(c.grads[0], mask));
    return TensorList{dense ? sparse_to_dense(g) : g};
  });
}

void record_coalesce(const Tensor& result, const Tensor& t) {
  record_pass_through("CoalesceBackward0", result, t);
}

void record_sparse_sum(const Tensor& result, const Tensor& t) {
  Tensor mask = shell(t);
  autograd::record("SumBackward0", result, {&t}, {}, [mask](const autograd::BackwardContext& c) {
    return TensorList{masked_gradient(c.grads[0].expand(mask.sizes()), mask)};
  });
}

}  // namespace ember::sparse_detail

namespace ember {

using autograd::TensorList;

// torch.sparse.mm / torch.sparse.addmm: the sparse operand's gradient is sparse, at its own coordinates
// (SparseAddmmBackward0), unlike torch.mm's dense one.
Tensor sparse_masked_addmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta,
                           const Scalar& alpha) {
  Tensor r = sparse_addmm(input, a, b, beta, alpha);
  if (!autograd::needs_grad({&input, &a, &b})) return r;
  Tensor mask = sparse_detail::shell(a);
  autograd::record("SparseAddmmBackward0", r, {&input, &a, &b}, {&b}, [mask, beta, alpha](
                       const autograd::BackwardContext& c) {
    const Tensor& g = c.grads[0];
    const Tensor& dense = c.saved[0];
    TensorList grads(3);
    if (c.needs(0)) grads[0] = mul(g, wrapped_scalar(beta));
    Tensor ga = mul(g, wrapped_scalar(alpha));
    if (c.needs(1)) {
      // d(a_ij) = sum_p g_ip * b_jp, only at a's coordinates
      Tensor coo = coalesce(mask.is_sparse_csr() ? sparse_detail::csr_to_coo(mask) : mask);
      Tensor rows = coo.impl()->sparse->indices.select(0, 0), cols = coo.impl()->sparse->indices.select(0, 1);
      Tensor values = sum(mul(ga.index_select(0, rows), dense.index_select(0, cols)), {1});
      Tensor grad = sparse_detail::with_values(coo, values, true);
      grads[1] = mask.is_sparse_csr() ? sparse_detail::coo_to_csr(grad) : grad;
    }
    if (c.needs(2)) grads[2] = sparse_mm(sparse_transpose(mask.is_sparse_csr() ? sparse_detail::csr_to_coo(mask) : mask,
                                                          0, 1), ga);
    return grads;
  });
  return r;
}

}  // namespace ember
