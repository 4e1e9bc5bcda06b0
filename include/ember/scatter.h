// The scatter/gather family (torch.scatter, scatter_add, scatter_reduce, index_add/copy/fill/reduce, take,
// take_along_dim, put, masked_select, masked_scatter, where(cond), argwhere) with torch's checks and messages.
// Each op has its function, in-place (name_) and out= (name_out) forms where torch has them.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// self[..., index[p], ...] = src[p] along dim for every position p of index (index has self's rank, int32/int64).
// reduce: "add" or "multiply" (torch's deprecated scatter.reduce; not differentiable).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    std::string_view reduce);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                    std::string_view reduce);
// self with src added at index along dim (repeated indices add up).
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: "sum", "prod", "mean", "amax" or "amin" ("max"/"min" too, as torch's forward); include_self: self's
// values take part (else the written positions start from the reduction's identity).
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self = true);
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true);
Tensor& scatter_reduce_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self = true);

// Slices of source (source.select(dim, i)) combined into self.select(dim, index[i]); index a vector (or 0-dim).
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor& index_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Scalar& alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
// A 0-dim tensor value: differentiable w.r.t. it, as torch's index_fill.int_Tensor.
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
// reduce: "prod", "mean", "amax" or "amin".
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self = true);
Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                      bool include_self = true);
Tensor& index_reduce_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         std::string_view reduce, bool include_self = true);

// self's elements at flat (row-major) positions index (negative ones count from the end); index's shape.
Tensor take(const Tensor& self, const Tensor& index);
Tensor& take_out(Tensor& out, const Tensor& self, const Tensor& index);
// gather along dim after broadcasting self and indices except along dim; no dim: over the flattened self.
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = std::nullopt);
Tensor& take_along_dim_out(Tensor& out, const Tensor& self, const Tensor& indices,
                           std::optional<int64_t> dim = std::nullopt);
// self with source written (or added) at flat positions index.
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);

// The elements of self where mask (broadcast together) is true, as a vector in row-major order.
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask);
// self with the elements where mask is true replaced, in order, by source's first elements.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source);

// nonzero(x, as_tuple=True): one index vector per dim (one for a 0-dim x); where(cond) is the same.
std::vector<Tensor> nonzero_numpy(const Tensor& x);
std::vector<Tensor> where(const Tensor& condition);
Tensor argwhere(const Tensor& x);

}  // namespace ember
