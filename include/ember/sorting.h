// Order statistics: sorting, selection, medians and quantiles, running extremes, searches, histograms, unique.
// Each follows torch 2.13 (values, indices, NaN order, errors); ops with several results return them as torch's
// named tuples do (values first). The *_out forms resize their outputs as torch's out= tensors.
#pragma once
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "ember/tensor.h"

namespace ember {

// Sorted values and their indices along dim (NaN last ascending, first descending). Without `stable`, equal
// elements of rows under 512 land where torch's std::sort puts them; longer rows are always sorted stably (torch
// leaves that order unspecified).
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false);
std::pair<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> stable, int64_t dim, bool descending = false);
std::pair<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim = -1,
                                     bool descending = false, bool stable = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor& argsort_out(Tensor& out, const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor msort(const Tensor& x);  // sort along dim 0
Tensor& msort_out(Tensor& out, const Tensor& x);

// The k largest (or smallest) along dim, sorted unless `sorted` is false.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
std::pair<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t k, int64_t dim = -1,
                                     bool largest = true, bool sorted = true);
// The k-th smallest (k from 1) along dim.
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1, bool keepdim = false);
std::pair<Tensor&, Tensor&> kthvalue_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t k, int64_t dim = -1,
                                         bool keepdim = false);
// The lower median (of all elements, or along dim); NaN if any is NaN. nanmedian ignores NaNs.
Tensor median(const Tensor& x);
std::pair<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor&, Tensor&> median_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& x);
std::pair<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor&, Tensor&> nanmedian_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim,
                                          bool keepdim = false);
// The most frequent value along dim (the smallest of equally frequent ones) and an index of it.
std::pair<Tensor, Tensor> mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);
std::pair<Tensor&, Tensor&> mode_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim = -1,
                                     bool keepdim = false);

// Quantiles q (a number or a 0-/1-dim tensor of x's dtype, in [0, 1]) of all elements or along dim; interpolation
// is linear, lower, higher, midpoint or nearest. A 1-dim q puts its dim first. nanquantile ignores NaNs.
Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                   std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                   std::string_view interpolation = "linear");
Tensor& quantile_out(Tensor& out, const Tensor& x, const Tensor& q, std::optional<int64_t> dim = {},
                     bool keepdim = false, std::string_view interpolation = "linear", bool ignore_nan = false);

// Running maximum (minimum) along dim and the index where it was found (the latest of equal ones).
std::pair<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
std::pair<Tensor&, Tensor&> cummax_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim);
std::pair<Tensor&, Tensor&> cummin_out(Tensor& values, Tensor& indices, const Tensor& x, int64_t dim);

// Where each value would be inserted into the innermost rows of sorted_sequence (1-D, or matching values'
// leading dims) to keep them sorted: before equal elements, after them with right (or side "right"). sorter:
// indices that sort an unsorted sequence. int32 indices with out_int32.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = {}, const std::optional<Tensor>& sorter = {});
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = {}, const std::optional<Tensor>& sorter = {});
Tensor& searchsorted_out(Tensor& out, const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                         bool right = false, std::optional<std::string_view> side = {},
                         const std::optional<Tensor>& sorter = {});
// The bucket of each element among 1-D sorted boundaries (searchsorted with the roles named as torch.bucketize).
Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& x, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor& bucketize_out(Tensor& out, const Tensor& x, const Tensor& boundaries, bool out_int32 = false, bool right = false);

// Histogram of `bins` equal bins over [min, max] (both 0: the data's range), in x's float dtype.
Tensor histc(const Tensor& x, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
Tensor& histc_out(Tensor& out, const Tensor& x, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
// Occurrences of each value of a 1-D non-negative integer tensor (or the sums of their weights), at least
// minlength long.
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = {}, int64_t minlength = 0);

// Distinct elements (or slices along dim) in ascending order, with each input element's position among them
// (inverse) and their counts; the results not asked for are empty, as torch's _unique2.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false, std::optional<int64_t> dim = {});
// The same for runs of equal neighbours, without sorting.
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse = false,
                                                      bool return_counts = false, std::optional<int64_t> dim = {});

}  // namespace ember
