// The Tensor methods of the ops torch has as methods (x.exp(), x.sum(1), x.add_(y), ...).
// Included INSIDE class Tensor (tensor.h); defined in src/ops/tensor_methods.cpp as calls of the free functions.
// Not a standalone header: no #pragma once, no includes.

// ---- unary ops (unary_ops.def): x.exp(), and in place x.exp_()
#define EMBER_UNARY_OP(name, kind, expr) \
  Tensor name() const;                   \
  Tensor& name##_();
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP
Tensor round(int64_t decimals) const;

// ---- binary ops (binary_ops.def): x.add(y), x.add(2), x.add_(y), x.add_(2); a Scalar acts as a Python number would
#define EMBER_BINARY_OP(name, ...)          \
  Tensor name(const Tensor& other) const;   \
  Tensor name(const Scalar& other) const;   \
  Tensor& name##_(const Tensor& other);     \
  Tensor& name##_(const Scalar& other);
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
Tensor add(const Tensor& other, const Scalar& alpha) const;
Tensor sub(const Tensor& other, const Scalar& alpha) const;
Tensor& add_(const Tensor& other, const Scalar& alpha);  // self += alpha * other, as libtorch's
Tensor& sub_(const Tensor& other, const Scalar& alpha);
Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
Tensor logical_not() const;
Tensor& logical_not_();
Tensor max(const Tensor& other) const;  // maximum, as torch's x.max(other)
Tensor min(const Tensor& other) const;

// ---- operators that are members in libtorch: -x, ~x, x[i], compound assignment (in place)
Tensor operator-() const;
Tensor operator~() const;
Tensor operator[](int64_t index) const;  // select(0, index)
Tensor operator[](const Tensor& index) const;
Tensor& operator+=(const Tensor& other);
Tensor& operator+=(const Scalar& other);
Tensor& operator-=(const Tensor& other);
Tensor& operator-=(const Scalar& other);
Tensor& operator*=(const Tensor& other);
Tensor& operator*=(const Scalar& other);
Tensor& operator/=(const Tensor& other);
Tensor& operator/=(const Scalar& other);

// ---- indexing (ember/indexing.h): x.index({Slice(1, None), 0}), x.index_put_({mask}, 0)
Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value);
Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value);
Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value);
Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Scalar& value);

// ---- reductions (ember/reduce.h): dims empty means every dim
Tensor sum(IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
Tensor prod(IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
Tensor mean(IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
std::pair<Tensor, Tensor> aminmax(std::optional<int64_t> dim = {}, bool keepdim = false) const;  // (min, max)
Tensor all(OptionalIntArrayRef dims = {}, bool keepdim = false) const;  // dims {}: every dim, as torch's dim=None
Tensor any(OptionalIntArrayRef dims = {}, bool keepdim = false) const;
Tensor max() const;
Tensor min() const;
std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;  // (values, indices)
std::pair<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
Tensor argmax(std::optional<int64_t> dim = {}, bool keepdim = false) const;
Tensor argmin(std::optional<int64_t> dim = {}, bool keepdim = false) const;
Tensor var(IntArrayRef dims = {}, double correction = 1, bool keepdim = false) const;
Tensor std(IntArrayRef dims = {}, double correction = 1, bool keepdim = false) const;
Tensor norm(double p = 2, IntArrayRef dims = {}, bool keepdim = false) const;
Tensor count_nonzero(IntArrayRef dims = {}) const;
Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = {}) const;
Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = {}) const;
Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = {}) const;
Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = {}) const;

// ---- elementwise composites and selection
Tensor clamp(const std::optional<Scalar>& min, const std::optional<Scalar>& max = {}) const;
Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
Tensor& clamp_(const std::optional<Scalar>& min, const std::optional<Scalar>& max = {});
Tensor& clamp_(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {});
Tensor lerp(const Tensor& end, const Tensor& weight) const;
Tensor& lerp_(const Tensor& end, const Tensor& weight);
// ember/pointwise.h
Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
Tensor& addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor clamp_min(const Tensor& min) const;
Tensor clamp_max(const Tensor& max) const;
Tensor& clamp_min_(const Tensor& min);
Tensor& clamp_max_(const Tensor& max);
Tensor heaviside(const Tensor& values) const;
Tensor ldexp(const Tensor& other) const;
Tensor float_power(const Tensor& exponent) const;
Tensor isneginf() const;
Tensor isposinf() const;
Tensor nan_to_num(double nan = 0.0, std::optional<double> posinf = {}, std::optional<double> neginf = {}) const;
Tensor isnan() const;
Tensor isinf() const;
Tensor isfinite() const;
Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
bool equal(const Tensor& other) const;
Tensor where(const Tensor& condition, const Tensor& other) const;  // self where condition, else other
Tensor where(const Tensor& condition, const Scalar& other) const;
Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
Tensor index_select(int64_t dim, const Tensor& index) const;
Tensor gather(int64_t dim, const Tensor& index) const;
Tensor nonzero() const;

// ---- linear algebra (ember/linalg.h)
Tensor matmul(const Tensor& other) const;
Tensor mm(const Tensor& other) const;
Tensor bmm(const Tensor& other) const;
Tensor mv(const Tensor& vec) const;
Tensor dot(const Tensor& other) const;
Tensor outer(const Tensor& other) const;

// ---- conversions and in-place random fills
Tensor to(const TensorOptions& options, bool copy = false) const;
Tensor type_as(const Tensor& other) const;  // to(other's dtype); a sparse tensor stays in its layout
Tensor& uniform_(double from = 0.0, double to = 1.0);
Tensor& normal_(double mean = 0.0, double std = 1.0);

// ---- shape utilities (ember/shape_utils.h)
Tensor repeat(IntArrayRef repeats) const;
Tensor tile(IntArrayRef dims) const;
Tensor flip(IntArrayRef dims) const;
Tensor fliplr() const;
Tensor flipud() const;
Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = {}, std::optional<int64_t> output_size = {}) const;
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = {},
                         std::optional<int64_t> output_size = {}) const;
Tensor tril(int64_t diagonal = 0) const;
Tensor triu(int64_t diagonal = 0) const;
Tensor& tril_(int64_t diagonal = 0);
Tensor& triu_(int64_t diagonal = 0);
Tensor diag(int64_t diagonal = 0) const;
Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
Tensor diagflat(int64_t offset = 0) const;
Tensor trace() const;
Tensor ravel() const;
Tensor broadcast_to(IntArrayRef sizes) const;
std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
std::vector<Tensor> hsplit(int64_t sections) const;
std::vector<Tensor> hsplit(IntArrayRef indices) const;
std::vector<Tensor> vsplit(int64_t sections) const;
std::vector<Tensor> vsplit(IntArrayRef indices) const;
std::vector<Tensor> dsplit(int64_t sections) const;
std::vector<Tensor> dsplit(IntArrayRef indices) const;
// ---- the scatter family (ember/scatter.h)
Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self = true) const;
Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true);
Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self = true) const;
Tensor& index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                      bool include_self = true);
Tensor take(const Tensor& index) const;
Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor masked_select(const Tensor& mask) const;
Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
Tensor& masked_scatter_(const Tensor& mask, const Tensor& source);
Tensor argwhere() const;
// ---- order statistics (ember/sorting.h)
std::pair<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
std::pair<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim, bool descending = false) const;
Tensor argsort(int64_t dim = -1, bool descending = false, bool stable = false) const;
Tensor msort() const;
std::pair<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;
std::pair<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
Tensor median() const;
std::pair<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
Tensor nanmedian() const;
std::pair<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
std::pair<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
Tensor quantile(double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                std::string_view interpolation = "linear") const;
Tensor quantile(const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                std::string_view interpolation = "linear") const;
Tensor nanquantile(double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                   std::string_view interpolation = "linear") const;
Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                   std::string_view interpolation = "linear") const;
std::pair<Tensor, Tensor> cummax(int64_t dim) const;
std::pair<Tensor, Tensor> cummin(int64_t dim) const;
Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
Tensor bincount(const std::optional<Tensor>& weights = {}, int64_t minlength = 0) const;
std::tuple<Tensor, Tensor, Tensor> unique(bool sorted = true, bool return_inverse = false, bool return_counts = false,
                                          std::optional<int64_t> dim = {}) const;
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(bool return_inverse = false, bool return_counts = false,
                                                      std::optional<int64_t> dim = {}) const;
// ---- math ops (ember/math_ops.h)
Tensor logit(std::optional<double> eps = {}) const;
Tensor signbit() const;
Tensor nansum(IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
Tensor nanmean(IntArrayRef dims = {}, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
Tensor logcumsumexp(int64_t dim) const;
Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = {},
            const std::optional<Tensor>& append = {}) const;
Tensor cross(const Tensor& other, std::optional<int64_t> dim = {}) const;
Tensor kron(const Tensor& other) const;
Tensor dist(const Tensor& other, double p = 2) const;
std::tuple<Tensor, Tensor, Tensor> svd(bool some = true, bool compute_uv = true) const;
// ---- views named after another tensor or numpy
Tensor view_as(const Tensor& other) const;
Tensor reshape_as(const Tensor& other) const;
Tensor swapaxes(int64_t axis0, int64_t axis1) const;
Tensor swapdims(int64_t dim0, int64_t dim1) const;
Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const;
