// Derivatives of the shape utilities that copy (flip, roll, rot90, repeat, tril/triu, the diagonal ops, trace,
// block_diag): each gradient is the matching reverse copy of the output's gradient.
#include "ember/creation.h"
#include "ember/reduce.h"
#include "ember/shape_utils.h"
#include "formulas.h"

namespace ember::autograd {

void record_flip(const Tensor& r, const Tensor& self, IntArrayRef dims) {
  record("FlipBackward0", r, {&self}, {}, [dims = DimVector(dims)](const BackwardContext& c) {
    return TensorList{flip(c.grads[0], dims)};
  });
}

void record_roll(const Tensor& r, const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  DimVector back(shifts);
  for (int64_t& s : back) s = -s;
  record("RollBackward0", r, {&self}, {}, [back, dims = DimVector(dims)](const BackwardContext& c) {
    return TensorList{roll(c.grads[0], back, dims)};
  });
}

void record_rot90(const Tensor& r, const Tensor& self, int64_t k, IntArrayRef dims) {
  record("Rot90Backward0", r, {&self}, {}, [k, dims = DimVector(dims)](const BackwardContext& c) {
    return TensorList{rot90(c.grads[0], -k, dims)};
  });
}

void record_repeat(const Tensor& r, const Tensor& self, IntArrayRef repeats) {
  // The gradient viewed as (r0, s0, r1, s1, ...) (s: self's sizes padded with leading 1s), summed over the r's.
  DimVector split, reduced;
  size_t pad = repeats.size() - size_t(self.dim());
  for (size_t i = 0; i < repeats.size(); ++i) {
    split.push_back(repeats[i]);
    split.push_back(i < pad ? 1 : self.sizes()[i - pad]);
    reduced.push_back(int64_t(2 * i));
  }
  record("RepeatBackward0", r, {&self}, {}, [split, reduced, in = DimVector(self.sizes())](const BackwardContext& c) {
    return TensorList{sum(c.grads[0].reshape(split), reduced).reshape(in)};
  });
}

void record_triangle(bool upper, const Tensor& r, const Tensor& self, int64_t diagonal) {
  record(upper ? "TriuBackward0" : "TrilBackward0", r, {&self}, {}, [upper, diagonal](const BackwardContext& c) {
    return TensorList{upper ? triu(c.grads[0], diagonal) : tril(c.grads[0], diagonal)};
  });
}

void record_diag_embed(const Tensor& r, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  record("DiagEmbedBackward0", r, {&self}, {}, [offset, dim1, dim2](const BackwardContext& c) {
    return TensorList{c.grads[0].diagonal(offset, dim1, dim2)};
  });
}

void record_diagonal_copy(const Tensor& r, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  record("DiagonalBackward0_copy", r, {&self}, {}, [in = DimVector(self.sizes()), offset, dim1, dim2](const BackwardContext& c) {
    Tensor z = zeros(in, c.grads[0].options());
    z.diagonal(offset, dim1, dim2).copy_(c.grads[0]);
    return TensorList{z};
  });
}

void record_trace(const Tensor& r, const Tensor& self) {
  record("TraceBackward0", r, {&self}, {}, [in = DimVector(self.sizes())](const BackwardContext& c) {
    Tensor z = zeros(in, c.grads[0].options());
    z.diagonal().copy_(c.grads[0]);
    return TensorList{z};
  });
}

void record_block_diag(const Tensor& r, std::span<const Tensor> inputs) {
  std::vector<DimVector> shapes;
  for (const Tensor& t : inputs) shapes.emplace_back(t.sizes());
  auto node = std::make_shared<FunctionNode>("BlockDiagBackward0", [shapes](const BackwardContext& c) {
    TensorList grads;
    int64_t row = 0, col = 0;
    for (const DimVector& s : shapes) {
      int64_t rows = s.size() == 2 ? s[0] : 1, cols = s.size() == 2 ? s[1] : s.size() == 1 ? s[0] : 1;
      grads.push_back(c.grads[0].narrow(0, row, rows).narrow(1, col, cols).reshape(s));
      row += rows;
      col += cols;
    }
    return grads;
  });
  for (const Tensor& t : inputs) add_edge(*node, t);
  add_output(node, r);
  as_new_tensor(r);
}

}  // namespace ember::autograd
