// Sparse tensors (torch.sparse_coo_tensor, torch.sparse_csr_tensor): a tensor whose TensorImpl has no elements of
// its own but an index tensor and a values tensor. COO keeps an int64 (sparse_dim, nnz) matrix of coordinates and
// values of shape (nnz, dense sizes...); CSR keeps a 2-D matrix as row pointers (nrows + 1), column indices (nnz)
// and values (nnz). Dense ops refuse them (NotImplementedError); the ops below take them.
#pragma once
#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

struct SparseParts {
  Layout layout = Layout::SparseCoo;
  Tensor indices;      // COO: int64 (sparse_dim, nnz); CSR: crow_indices, (nrows + 1)
  Tensor col_indices;  // CSR: (nnz)
  Tensor values;       // COO: (nnz, dense sizes...); CSR: (nnz)
  bool coalesced = false;  // COO: indices sorted and unique (torch's flag: set by coalesce or the caller)
};

std::string_view layout_name(Layout layout);  // "sparse_coo"

// torch.sparse_coo_tensor. Without `size` it is the smallest that holds the indices (plus values' dense sizes).
// The indices are always checked (torch's check_invariants=True messages): Ember never reads out of bounds.
// `check_invariants` false defers the checks that read the indices (a checkpoint's storages are read after its
// tensors are made); check_sparse_invariants must then run before any other use.
Tensor sparse_coo_tensor(const Tensor& indices, const Tensor& values, std::optional<IntArrayRef> size = std::nullopt,
                         TensorOptions options = {}, std::optional<bool> is_coalesced = std::nullopt,
                         bool check_invariants = true);
Tensor sparse_coo_tensor(IntArrayRef size, TensorOptions options = {});  // all zeros (nnz 0)
// torch.sparse_csr_tensor: a 2-D matrix; the row pointers and columns are checked as torch's check_invariants does.
Tensor sparse_csr_tensor(const Tensor& crow_indices, const Tensor& col_indices, const Tensor& values,
                         std::optional<IntArrayRef> size = std::nullopt, TensorOptions options = {},
                         bool check_invariants = true);
// The checks of the indices sparse_coo_tensor / sparse_csr_tensor make (torch's check_invariants=True errors).
void check_sparse_invariants(const Tensor& t);

// The sparse parts of a sparse tensor; raises torch's error for a tensor of another layout.
const SparseParts& sparse_parts(const Tensor& t, const char* what);

// Conversions between layouts (Tensor::to_dense, to_sparse, to_sparse_csr call these).
Tensor sparse_to_dense(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor dense_to_sparse(const Tensor& t, std::optional<int64_t> sparse_dim = std::nullopt);
Tensor to_sparse_csr(const Tensor& t);
Tensor coalesce(const Tensor& t);

// The sparse forms of ops; the dense entry points (add, mul, mm, sum, ...) send sparse operands here.
Tensor sparse_add(const Tensor& a, const Tensor& b, const Scalar& alpha);  // either operand sparse
// dense += alpha * sparse in place (not bool), touching only the sparse tensor's elements; sizes already checked.
void add_sparse_into(Tensor& dense, const Tensor& sparse, const Scalar& alpha);
Tensor sparse_mul(const Tensor& a, const Tensor& b);                       // sparse * sparse, or * a 0-dim tensor
// sparse / a 0-dim tensor (torch refuses other divisors); a rounding mode coalesces first.
Tensor sparse_div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode = {});
// A unary op on a sparse tensor: the ops with f(0) = 0 apply to the values (neg keeps the entries as they are, the
// others coalesce first, as torch); the rest raise NotImplementedError.
Tensor sparse_unary(const char* name, const Tensor& a, Tensor (*fn)(const Tensor&));
// Its in-place and out= form: in place, an op other than neg needs a coalesced tensor (torch's rule).
void sparse_unary_out(const char* name, Tensor& out, const Tensor& a, Tensor (*fn)(const Tensor&));
// self ** exponent at the entries (coalesced first); torch's errors for 0 and for a result dtype other than self's.
Tensor sparse_pow(const Tensor& a, const Scalar& exponent);
// Tensor.sparse_mask: self's elements (self dense or sparse) at the coordinates of sparse `mask`, in mask's layout.
Tensor sparse_mask(const Tensor& self, const Tensor& mask);
Tensor sparse_mm(const Tensor& a, const Tensor& b);  // sparse @ dense, dense @ sparse (dense result)
Tensor sparse_addmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha);
// torch.sparse.mm / torch.sparse.addmm: as sparse_addmm, but the sparse operand's gradient is sparse at its own
// coordinates (SparseAddmmBackward0).
Tensor sparse_masked_addmm(const Tensor& input, const Tensor& a, const Tensor& b, const Scalar& beta = 0,
                           const Scalar& alpha = 1);
// The sum, a 0-dim dense tensor. `masked` (torch.sparse.sum) gives a sparse input a gradient at its coordinates only;
// Tensor.sum gives it a dense one.
Tensor sparse_sum(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt, bool masked = false);
// The sum over `dims`: sparse when sparse dims remain, dense when only dense dims do.
Tensor sparse_sum(const Tensor& t, IntArrayRef dims, bool keepdim = false,
                  std::optional<ScalarType> dtype = std::nullopt, bool masked = false);
// COO: swaps two sparse dims (`node`: TBackward0 when t() asks).
Tensor sparse_transpose(const Tensor& t, int64_t dim0, int64_t dim1, const char* node = "TransposeBackward0");
// COO: on a sparse dim these pick or add coordinates (torch's order), on a dense dim they act on the values.
Tensor sparse_select(const Tensor& t, int64_t dim, int64_t index);
Tensor sparse_index_select(const Tensor& t, int64_t dim, const Tensor& index);
Tensor sparse_unsqueeze(const Tensor& t, int64_t dim);
Tensor sparse_clone(const Tensor& t);
Tensor sparse_to(const Tensor& t, std::optional<ScalarType> dtype, std::optional<Device> device);
Tensor sparse_detach(const Tensor& t);
// An empty (nnz 0) sparse tensor like t (torch's zeros_like of a sparse tensor).
Tensor sparse_zeros_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
// torch's empty_like: COO as zeros_like, CSR with t's structure and zero values (fill_ then fills them).
Tensor sparse_empty_like(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
// self.copy_(src) between sparse tensors of one layout and size; torch's error for dense <-> sparse.
void sparse_copy_(Tensor& self, const Tensor& src);
void sparse_zero_(Tensor& self);  // drops every entry (nnz 0)

// NotImplementedError for a dense op reached by a sparse tensor (torch: "Could not run 'aten::op' with arguments
// from the 'SparseCPU' backend").
[[noreturn]] void throw_sparse_unsupported(const Tensor& t, const char* op = nullptr);

}  // namespace ember
