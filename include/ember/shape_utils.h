// Shape utilities (torch's names and semantics): stacking and splitting helpers, flips and rolls, repeats,
// broadcasting, meshgrid, triangles and diagonals, products of sets, atleast_*d.
#pragma once
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// Stacking: hstack (cat along dim 1, dim 0 for 1-D inputs), vstack/row_stack (atleast_2d then cat along 0),
// dstack (atleast_3d then cat along 2), column_stack (1-D and 0-D inputs as columns, then cat along 1).
Tensor hstack(std::span<const Tensor> tensors);
Tensor vstack(std::span<const Tensor> tensors);
Tensor row_stack(std::span<const Tensor> tensors);
Tensor dstack(std::span<const Tensor> tensors);
Tensor column_stack(std::span<const Tensor> tensors);
Tensor& hstack_out(Tensor& out, std::span<const Tensor> tensors);
Tensor& vstack_out(Tensor& out, std::span<const Tensor> tensors);
Tensor& row_stack_out(Tensor& out, std::span<const Tensor> tensors);
Tensor& dstack_out(Tensor& out, std::span<const Tensor> tensors);
Tensor& column_stack_out(Tensor& out, std::span<const Tensor> tensors);

// Views with at least 1, 2 or 3 dims (0-D becomes (1,)/(1, 1)/(1, 1, 1); 1-D (n) becomes (1, n)/(1, n, 1);
// 2-D (m, n) becomes (m, n, 1)); a tensor with enough dims is returned itself.
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);

// Views splitting `self` along dim: into `sections` nearly equal parts (the first size % sections one longer),
// at `indices`, or as given by a 0-D (sections) or 1-D (indices) int64 tensor.
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& indices_or_sections, int64_t dim = 0);
// tensor_split along dim 1 (dim 0 for 1-D), 0 and 2; `sections` must divide the dim.
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);

// Copies with the elements reversed along `dims` (fliplr: dim 1, flipud: dim 0).
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
// Elements shifted along dims (wrapping around); no dims: over the flattened tensor, shape kept.
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
// Rotation by k * 90 degrees in the plane of dims (from the first towards the second).
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});

// self tiled repeats[i] times along dim i (repeats may have more dims than self: leading new dims).
Tensor repeat(const Tensor& self, IntArrayRef repeats);
// repeat with fewer dims allowed (leading repeats of 1).
Tensor tile(const Tensor& self, IntArrayRef dims);
// Each element (no dim: of the flattened tensor) or slice along dim repeated `repeats` times (or repeats[i]);
// output_size, when given, must be the result's length along dim.
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = {},
                         std::optional<int64_t> output_size = {});
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = {},
                         std::optional<int64_t> output_size = {});
// repeats[i] copies of i for each i: an int32 or int64 vector of repeats' dtype.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = {});

// Broadcasting: every tensor expanded to the common shape (one of that shape already is returned itself).
std::vector<Tensor> broadcast_tensors(std::span<const Tensor> tensors);
DimVector broadcast_shapes(std::span<const DimVector> shapes);
Tensor broadcast_to(const Tensor& self, IntArrayRef sizes);
// Coordinate grids of 0-D/1-D tensors: indexing "ij" (matrix) or "xy" (Cartesian: first two dims swapped).
std::vector<Tensor> meshgrid(std::span<const Tensor> tensors, std::string_view indexing = "ij");

// The lower (upper) triangle of the last two dims, from the `diagonal`-th diagonal on; the rest zero.
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor& tril_(Tensor& self, int64_t diagonal = 0);
Tensor& triu_(Tensor& self, int64_t diagonal = 0);
Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
// (2, N) coordinates of the lower (upper) triangle of a row x col matrix, row-major; int64 by default.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = kInt64);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = kInt64);

// diag: a 1-D input as the `diagonal`-th diagonal of a square matrix, or a 2-D input's diagonal (a copy).
Tensor diag(const Tensor& self, int64_t diagonal = 0);
Tensor& diag_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
// Zeros with the last dim of self on the diagonal of (dim1, dim2) (new dims of the result).
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
// The flattened input on the `offset`-th diagonal of a square matrix.
Tensor diagflat(const Tensor& self, int64_t offset = 0);
// Sum of a matrix's diagonal (sum's dtype: integers give int64).
Tensor trace(const Tensor& self);
// The inputs (0-D, 1-D as rows, 2-D) along the diagonal of a zero matrix, in their promoted dtype.
Tensor block_diag(std::span<const Tensor> tensors);
// Rows of every combination of one element from each 1-D input (one input: itself).
Tensor cartesian_prod(std::span<const Tensor> tensors);
// Rows of the length-r combinations of a 1-D input's elements (with_replacement: repeats allowed).
Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false);

// The flattened tensor: a view when self is contiguous, else a contiguous copy.
Tensor ravel(const Tensor& self);

}  // namespace ember
