// Reductions over all dims (dims empty) or a list of dims, with keepdim and dtype= as torch.
#pragma once
#include <optional>
#include <utility>

#include "ember/tensor.h"

namespace ember {

// How many input elements fold into each output of a reduction over `dims` (all when empty).
int64_t reduced_count(IntArrayRef sizes, IntArrayRef dims);

// Integers and bool sum to int64; dtype= casts the input first.
Tensor sum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor prod(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
// Floating inputs only (or a floating dtype=).
Tensor mean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
// (amin, amax) over dim (none: every element), one pass of checks as torch.aminmax (src/ops/aminmax.cpp).
std::pair<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
// bool results (uint8 for uint8 inputs). dims as torch's dim=: none (the default) reduces every dim, an empty
// list none (each element's truth).
Tensor all(const Tensor& x, OptionalIntArrayRef dims = {}, bool keepdim = false);
Tensor any(const Tensor& x, OptionalIntArrayRef dims = {}, bool keepdim = false);

// max()/min() of the whole tensor: amax/amin's value, recorded as torch's MaxBackward1/MinBackward1.
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
// max/min along one dim: (values, indices of the first extreme).
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
// Index of the max/min: over the flattened tensor when dim is nullopt.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);

// Variance and standard deviation with Bessel's correction (correction=1) by default.
Tensor var(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
std::pair<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
std::pair<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
// p-norms for p = 1, 2 ('fro'), +-inf and 0.
Tensor norm(const Tensor& x, double p = 2, IntArrayRef dims = {}, bool keepdim = false);
Tensor count_nonzero(const Tensor& x, IntArrayRef dims = {});
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);
// Numerically stable softmax / log_softmax along one dim (dtype= casts the input first).
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
// Inclusive scans along one dim; integers accumulate as int64.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});

// out= forms (src/ops/reduce_out.cpp), each with torch's rule for out's dtype; out is resized as torch's out=
// tensors are, and refused under autograd except where the result is not differentiable (all, any, argmax, argmin).
// sum/prod/mean/cumsum/cumprod compute in out's dtype unless dtype= is given (then out must have it).
Tensor& sum_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor& prod_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor& mean_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = {});
Tensor& cumsum_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor& cumprod_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
// out of the input's dtype.
Tensor& amax_out(Tensor& out, const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor& amin_out(Tensor& out, const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor& norm_out(Tensor& out, const Tensor& x, double p = 2, IntArrayRef dims = {}, bool keepdim = false);
// out of the input's dtype, or of dtype= when given.
Tensor& softmax_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
Tensor& log_softmax_out(Tensor& out, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
// out of any dtype the input's casts to.
Tensor& max_out(Tensor& out, const Tensor& x);
Tensor& min_out(Tensor& out, const Tensor& x);
Tensor& var_out(Tensor& out, const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
Tensor& std_out(Tensor& out, const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
// A floating out; the input is converted to its dtype first.
Tensor& logsumexp_out(Tensor& out, const Tensor& x, IntArrayRef dims, bool keepdim = false);
// values of the input's dtype, int64 indices.
std::pair<Tensor&, Tensor&> max_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor&, Tensor&> min_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool keepdim = false);
// A bool or uint8 out.
Tensor& all_out(Tensor& out, const Tensor& x, OptionalIntArrayRef dims = {}, bool keepdim = false);
Tensor& any_out(Tensor& out, const Tensor& x, OptionalIntArrayRef dims = {}, bool keepdim = false);
// An int64 out.
Tensor& argmax_out(Tensor& out, const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
Tensor& argmin_out(Tensor& out, const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);

}  // namespace ember
