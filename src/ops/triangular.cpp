// Triangles and diagonals: tril/triu (one kernel pass), tril_indices/triu_indices, diag, diag_embed, diagflat,
// trace and block_diag.
#include "../core/autocast_policy.h"
#include <algorithm>

#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/math_ops.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"
#include "ember/type_promotion.h"

namespace ember {

namespace {

const char* triangle_name(bool upper) { return upper ? "triu" : "tril"; }

void check_triangle_input(const Tensor& self, bool upper) {
  EMBER_CHECK(self.dim() >= 2, Error, triangle_name(upper), ": input tensor must have at least 2 dimensions");
  bool float8 = is_float8(self.dtype());
  EMBER_CHECK(!float8, NotImplementedError, "\"", triangle_name(upper), "\" not implemented for '",
              legacy_name(self.dtype()), "'");
}

// t as a (B, R, C) view without copying, when its layout allows one.
std::optional<Tensor> as_matrices(const Tensor& t) {
  return autograd::untracked([&]() -> std::optional<Tensor> {
    if (t.dim() == 2) return t.unsqueeze(0);
    if (!t.is_contiguous()) return std::nullopt;
    return t.view({t.numel() / std::max<int64_t>(t.size(-2) * t.size(-1), 1), t.size(-2), t.size(-1)});
  });
}

Tensor triangle(const Tensor& self, bool upper, int64_t diagonal) {
  check_triangle_input(self, upper);
  Tensor out = empty(self.sizes(), self.options());
  std::optional<Tensor> src = as_matrices(self);
  if (!src) src = as_matrices(autograd::untracked([&] { return self.contiguous(); }));
  kernels::triangle[out.device()](*as_matrices(out), *src, upper, diagonal);
  if (autograd::needs_grad({&self})) autograd::record_triangle(upper, out, self, diagonal);
  return out;
}

Tensor& triangle_out(Tensor& out, const Tensor& self, bool upper, int64_t diagonal) {
  if (autograd::needs_grad({&self, &out})) {
    return autograd::record_out(out, self, triangle_name(upper), [&] { return triangle(self, upper, diagonal); });
  }
  check_triangle_input(self, upper);
  check_out_dtype(out, self.dtype());
  if (out.is_same(self)) {  // in place: only the zeros are written
    if (auto m = as_matrices(self)) {
      kernels::triangle[self.device()](*m, *m, upper, diagonal);
      self.bump_version();
      return out;
    }
  }
  Tensor r = triangle(self, upper, diagonal);
  resize_output(out, r.sizes());
  out.copy_(r);
  return out;
}

// (2, N) coordinates of the kept triangle, row-major.
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options, bool upper) {
  EMBER_CHECK(row >= 0, Error, "row must be non-negative, got", row);
  EMBER_CHECK(col >= 0, Error, "col must be non-negative, got", col);
  ScalarType dtype = options.dtype_or_default();
  EMBER_CHECK(dtype == kInt32 || dtype == kInt64, NotImplementedError, "\"", triangle_name(upper),
              "_indices\" not implemented for '", legacy_name(dtype), "'");
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i) {
    int64_t lo = upper ? std::clamp<int64_t>(i + offset, 0, col) : 0;
    int64_t hi = upper ? col : std::clamp<int64_t>(i + offset + 1, 0, col);
    for (int64_t j = lo; j < hi; ++j) {
      rows.push_back(i);
      cols.push_back(j);
    }
  }
  int64_t n = int64_t(rows.size());
  rows.insert(rows.end(), cols.begin(), cols.end());
  return tensor(rows, {2, n}, TensorOptions(kInt64).device(options.device())).to(dtype);
}

}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) { return triangle(self, false, diagonal); }
Tensor triu(const Tensor& self, int64_t diagonal) { return triangle(self, true, diagonal); }
Tensor& tril_(Tensor& self, int64_t diagonal) { return triangle_out(self, self, false, diagonal); }
Tensor& triu_(Tensor& self, int64_t diagonal) { return triangle_out(self, self, true, diagonal); }
Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal) { return triangle_out(out, self, false, diagonal); }
Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal) { return triangle_out(out, self, true, diagonal); }

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, options, false);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, options, true);
}

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t n = self.dim() + 1;
  int64_t d1 = wrap_dim(dim1, n), d2 = wrap_dim(dim2, n);
  EMBER_CHECK(d1 != d2, Error, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  EMBER_CHECK(self.dim() > 0, IndexError, "Dimension specified as -1 but tensor has no dimensions");
  int64_t len = std::abs(offset) + self.size(-1);
  DimVector sizes(self.sizes());
  sizes.resize(sizes.size() - 1);
  sizes.insert(size_t(std::min(d1, d2)), len);
  sizes.insert(size_t(std::max(d1, d2)), len);
  Tensor out = zeros(sizes, self.options());
  autograd::untracked([&] { return out.diagonal(offset, d1, d2).copy_(self); });
  if (autograd::needs_grad({&self})) autograd::record_diag_embed(out, self, offset, d1, d2);
  return out;
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, Error, "diag(): Supports 1D or 2D tensors. Got ", self.dim(), "D");
  if (self.dim() == 1) return diag_embed(self, diagonal, 0, 1);
  Tensor out = autograd::untracked([&] {
    Tensor d = self.diagonal(diagonal);
    return empty(d.sizes(), d.options()).copy_(d);
  });
  if (autograd::needs_grad({&self})) autograd::record_diagonal_copy(out, self, diagonal, 0, 1);
  return out;
}

Tensor& diag_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  if (autograd::needs_grad({&self, &out})) {
    return autograd::record_out(out, self, "diag", [&] { return diag(self, diagonal); });
  }
  Tensor r = diag(self, diagonal);
  check_out_dtype(out, self.dtype());
  resize_output(out, r.sizes());
  out.copy_(r);
  return out;
}

Tensor diagflat(const Tensor& self, int64_t offset) { return diag_embed(ravel(self), offset); }

Tensor trace(const Tensor& self) {
  EMBER_AUTOCAST(fp32, kCPU, trace, self);
  bool supported = self.dtype() != kBool && !is_float8(self.dtype());
  EMBER_CHECK(supported, NotImplementedError, "\"trace\" not implemented for '", legacy_name(self.dtype()),
              "'");
  EMBER_CHECK(self.dim() == 2, Error, "trace: expected a matrix, but got tensor with dim ", self.dim());
  Tensor out = autograd::untracked([&] { return sum(self.diagonal()); });
  if (autograd::needs_grad({&self})) autograd::record_trace(out, self);
  return out;
}

Tensor block_diag(std::span<const Tensor> tensors) {
  if (tensors.empty()) return empty({1, 0});
  int64_t rows = 0, cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, Error, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i,
                " has ", t.dim(), " dimensions");
    EMBER_CHECK(t.device() == tensors[0].device(), Error, "torch.block_diag: input tensors must all be on the same "
                "device. Input 0 is on device ", tensors[0].device().str(), " and input ", i, " is on device ",
                t.device().str());
    rows += t.dim() == 2 ? t.size(0) : 1;
    cols += t.dim() == 2 ? t.size(1) : t.dim() == 1 ? t.size(0) : 1;
  }
  Tensor out = zeros({rows, cols}, tensors[0].options().with_dtype(result_type(tensors)));
  autograd::untracked([&] {
    int64_t row = 0, col = 0;
    for (const Tensor& t : tensors) {
      Tensor block = t.dim() == 2 ? t : t.reshape({1, t.numel()});
      out.narrow(0, row, block.size(0)).narrow(1, col, block.size(1)).copy_(block);
      row += block.size(0);
      col += block.size(1);
    }
    return 0;
  });
  if (std::any_of(tensors.begin(), tensors.end(), [](const Tensor& t) { return t.requires_grad(); }) &&
      autograd::is_grad_enabled()) {
    autograd::record_block_diag(out, tensors);
  }
  return out;
}

}  // namespace ember
