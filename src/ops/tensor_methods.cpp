// Tensor methods and operators (ember/tensor_methods.h, ember/operators.h): each calls its free function.
#include <ostream>

#include "ember/ember.h"

namespace ember {

// ---- unary ops
#define EMBER_UNARY_OP(name, kind, expr)              \
  Tensor Tensor::name() const { return ember::name(*this); } \
  Tensor& Tensor::name##_() { return ember::name##_(*this); }
#include "ember/unary_ops.def"
#undef EMBER_UNARY_OP
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }

// ---- binary ops; in place is the out= form writing into self
#define EMBER_BINARY_OP(name, ...)                                                                          \
  Tensor Tensor::name(const Tensor& other) const { return ember::name(*this, other); }                       \
  Tensor Tensor::name(const Scalar& other) const { return ember::name(*this, wrapped_scalar(other)); }       \
  Tensor& Tensor::name##_(const Tensor& other) { return ember::name##_out(*this, *this, other); }            \
  Tensor& Tensor::name##_(const Scalar& other) { return ember::name##_out(*this, *this, wrapped_scalar(other)); }
#include "ember/binary_ops.def"
#undef EMBER_BINARY_OP
Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const { return ember::add(*this, other, alpha); }
Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) { return ember::add_out(*this, *this, other, alpha); }
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) { return ember::sub_out(*this, *this, other, alpha); }
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const { return ember::sub(*this, other, alpha); }
Tensor Tensor::div(const Tensor& other, std::optional<std::string_view> rounding_mode) const {
  return ember::div(*this, other, rounding_mode);
}
Tensor Tensor::logical_not() const { return ember::logical_not(*this); }
Tensor& Tensor::logical_not_() { return logical_not_out(*this, *this); }
Tensor Tensor::max(const Tensor& other) const { return ember::maximum(*this, other); }
Tensor Tensor::min(const Tensor& other) const { return ember::minimum(*this, other); }

// ---- member operators
Tensor Tensor::operator-() const { return ember::neg(*this); }
Tensor Tensor::operator~() const { return ember::bitwise_not(*this); }
Tensor Tensor::operator[](int64_t index) const { return indexing::get_item(*this, indexing::TensorIndex(index)); }
Tensor Tensor::operator[](const Tensor& index) const { return indexing::get_item(*this, indexing::TensorIndex(index)); }
Tensor& Tensor::operator+=(const Tensor& other) { return add_(other); }
Tensor& Tensor::operator+=(const Scalar& other) { return add_(other); }
Tensor& Tensor::operator-=(const Tensor& other) { return sub_(other); }
Tensor& Tensor::operator-=(const Scalar& other) { return sub_(other); }
Tensor& Tensor::operator*=(const Tensor& other) { return mul_(other); }
Tensor& Tensor::operator*=(const Scalar& other) { return mul_(other); }
Tensor& Tensor::operator/=(const Tensor& other) { return div_(other); }
Tensor& Tensor::operator/=(const Scalar& other) { return div_(other); }

// ---- indexing: a lone integer or slice takes torch's fast path (no "too many indices" check)
Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return index(std::vector<indexing::TensorIndex>(indices));
}
Tensor Tensor::index(const std::vector<indexing::TensorIndex>& indices) const {
  return indices.size() == 1 ? indexing::get_item(*this, indices[0]) : indexing::get_item(*this, indices);
}
Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) {
  return index_put_(std::vector<indexing::TensorIndex>(indices), value);
}
Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) {
  return index_put_(std::vector<indexing::TensorIndex>(indices), value);
}
Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value) {
  if (indices.size() == 1) indexing::set_item(*this, indices[0], value);
  else indexing::set_item(*this, indices, value);
  return *this;
}
Tensor& Tensor::index_put_(const std::vector<indexing::TensorIndex>& indices, const Scalar& value) {
  if (indices.size() == 1) indexing::set_item(*this, indices[0], value);
  else indexing::set_item(*this, indices, value);
  return *this;
}

// ---- reductions
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dims, keepdim, dtype);
}
Tensor Tensor::prod(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dims, keepdim, dtype);
}
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dims, keepdim, dtype);
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return ember::amax(*this, dims, keepdim); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return ember::amin(*this, dims, keepdim); }
Tensor Tensor::all(OptionalIntArrayRef dims, bool keepdim) const { return ember::all(*this, dims, keepdim); }
Tensor Tensor::any(OptionalIntArrayRef dims, bool keepdim) const { return ember::any(*this, dims, keepdim); }
Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return ember::max(*this, dim, keepdim); }
std::pair<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return ember::min(*this, dim, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { return ember::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { return ember::argmin(*this, dim, keepdim); }
Tensor Tensor::var(IntArrayRef dims, double correction, bool keepdim) const {
  return ember::var(*this, dims, correction, keepdim);
}
Tensor Tensor::std(IntArrayRef dims, double correction, bool keepdim) const {
  return ember::std(*this, dims, correction, keepdim);
}
Tensor Tensor::norm(double p, IntArrayRef dims, bool keepdim) const { return ember::norm(*this, p, dims, keepdim); }
Tensor Tensor::count_nonzero(IntArrayRef dims) const { return ember::count_nonzero(*this, dims); }
Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const { return ember::logsumexp(*this, dims, keepdim); }
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const { return ember::cumsum(*this, dim, dtype); }
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const { return ember::cumprod(*this, dim, dtype); }
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const { return ember::softmax(*this, dim, dtype); }
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}

// ---- elementwise composites and selection
Tensor Tensor::clamp(const std::optional<Scalar>& min, const std::optional<Scalar>& max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clamp_(const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return ember::clamp_(*this, min, max);
}
Tensor& Tensor::clamp_(const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return ember::clamp_(*this, min, max);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const { return ember::lerp(*this, end, weight); }
Tensor Tensor::nan_to_num(double nan, std::optional<double> posinf, std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, other, rtol, atol, equal_nan);
}
bool Tensor::equal(const Tensor& other) const { return ember::equal(*this, other); }
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const { return ember::where(condition, *this, other); }
Tensor Tensor::where(const Tensor& condition, const Scalar& other) const {
  return ember::where(condition, *this, wrapped_scalar(other));
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const { return ember::masked_fill(*this, mask, value); }
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const { return ember::masked_fill(*this, mask, value); }
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) { return ember::masked_fill_(*this, mask, value); }
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) { return ember::masked_fill_(*this, mask, value); }
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const { return ember::index_select(*this, dim, index); }
Tensor Tensor::gather(int64_t dim, const Tensor& index) const { return ember::gather(*this, dim, index); }
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }

// ---- linear algebra
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return ember::bmm(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::outer(const Tensor& other) const { return ember::outer(*this, other); }

// ---- conversions and random fills
Tensor Tensor::to(const TensorOptions& options, bool copy) const {
  Tensor r = to(options.device(), copy).to(options.dtype_opt().value_or(dtype()), false);
  return options.requires_grad() ? r.requires_grad_(true) : r;
}
Tensor& Tensor::uniform_(double from, double to) { return ember::uniform_(*this, from, to); }
Tensor& Tensor::normal_(double mean, double std) { return ember::normal_(*this, mean, std); }

// ---- printing
std::ostream& operator<<(std::ostream& os, IntArrayRef sizes) {
  os << '[';
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  return os << ']';
}
std::ostream& operator<<(std::ostream& os, ScalarType dtype) { return os << legacy_name(dtype); }

// ---- free operators (ember/operators.h)
namespace {
// number - x, number / x, ... as Python's reflected operators compute them.
Tensor rdiv(const Scalar& a, const Tensor& b) {
  return b.is_floating_point() ? mul(reciprocal(b), wrapped_scalar(a)) : div(wrapped_scalar(a), b);
}
}  // namespace

Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, wrapped_scalar(a)); }
Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, wrapped_scalar(a)); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, wrapped_scalar(a)); }
Tensor operator/(const Scalar& a, const Tensor& b) { return rdiv(a, b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, wrapped_scalar(b)); }
Tensor operator%(const Scalar& a, const Tensor& b) { return remainder(wrapped_scalar(a), b); }

#define EMBER_SYMMETRIC_OPERATOR(op, fn)                                                    \
  Tensor operator op(const Tensor& a, const Tensor& b) { return fn(a, b); }                 \
  Tensor operator op(const Tensor& a, const Scalar& b) { return fn(a, wrapped_scalar(b)); } \
  Tensor operator op(const Scalar& a, const Tensor& b) { return fn(b, wrapped_scalar(a)); }
EMBER_SYMMETRIC_OPERATOR(&, bitwise_and)
EMBER_SYMMETRIC_OPERATOR(|, bitwise_or)
EMBER_SYMMETRIC_OPERATOR(^, bitwise_xor)
EMBER_SYMMETRIC_OPERATOR(==, eq)
EMBER_SYMMETRIC_OPERATOR(!=, ne)
#undef EMBER_SYMMETRIC_OPERATOR

// a < b for a number a is b > a.
#define EMBER_COMPARISON_OPERATOR(op, fn, flipped)                                          \
  Tensor operator op(const Tensor& a, const Tensor& b) { return fn(a, b); }                 \
  Tensor operator op(const Tensor& a, const Scalar& b) { return fn(a, wrapped_scalar(b)); } \
  Tensor operator op(const Scalar& a, const Tensor& b) { return flipped(b, wrapped_scalar(a)); }
EMBER_COMPARISON_OPERATOR(<, lt, gt)
EMBER_COMPARISON_OPERATOR(<=, le, ge)
EMBER_COMPARISON_OPERATOR(>, gt, lt)
EMBER_COMPARISON_OPERATOR(>=, ge, le)
#undef EMBER_COMPARISON_OPERATOR

Tensor clamp(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  auto bound = [](const std::optional<Scalar>& s) { return s ? std::optional<Tensor>(wrapped_scalar(*s)) : std::nullopt; };
  return clamp(x, bound(min), bound(max));
}
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  auto bound = [](const std::optional<Scalar>& s) { return s ? std::optional<Tensor>(wrapped_scalar(*s)) : std::nullopt; };
  return clamp_(self, bound(min), bound(max));
}

// ---- the scatter family
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const { return ember::scatter(*this, dim, index, src); }
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) { return ember::scatter_(*this, dim, index, src); }
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  return ember::scatter_(*this, dim, index, value);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  return ember::scatter_add_(*this, dim, index, src);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                                bool include_self) {
  return ember::scatter_reduce_(*this, dim, index, src, reduce, include_self);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return ember::index_add_(*this, dim, index, source, alpha);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  return ember::index_copy_(*this, dim, index, source);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  return ember::index_fill_(*this, dim, index, value);
}
Tensor Tensor::index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                            bool include_self) const {
  return ember::index_reduce(*this, dim, index, source, reduce, include_self);
}
Tensor& Tensor::index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                              bool include_self) {
  return ember::index_reduce_(*this, dim, index, source, reduce, include_self);
}
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ember::take_along_dim(*this, indices, dim);
}
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  return ember::put(*this, index, source, accumulate);
}
Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) {
  return ember::put_(*this, index, source, accumulate);
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}
Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) { return ember::masked_scatter_(*this, mask, source); }
Tensor Tensor::argwhere() const { return ember::argwhere(*this); }

}  // namespace ember

// ---- shape utilities
namespace ember {
Tensor Tensor::repeat(IntArrayRef repeats) const { return ember::repeat(*this, repeats); }
Tensor Tensor::tile(IntArrayRef dims) const { return ember::tile(*this, dims); }
Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::fliplr() const { return ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ember::flipud(*this); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const { return ember::roll(*this, shifts, dims); }
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ember::rot90(*this, k, dims); }
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim, std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
Tensor& Tensor::tril_(int64_t diagonal) { return ember::tril_(*this, diagonal); }
Tensor& Tensor::triu_(int64_t diagonal) { return ember::triu_(*this, diagonal); }
Tensor Tensor::diag(int64_t diagonal) const { return ember::diag(*this, diagonal); }
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diag_embed(*this, offset, dim1, dim2);
}
Tensor Tensor::diagflat(int64_t offset) const { return ember::diagflat(*this, offset); }
Tensor Tensor::trace() const { return ember::trace(*this); }
Tensor Tensor::ravel() const { return ember::ravel(*this); }
Tensor Tensor::broadcast_to(IntArrayRef sizes) const { return ember::broadcast_to(*this, sizes); }
std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return ember::tensor_split(*this, sections, dim);
}
std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  return ember::tensor_split(*this, indices, dim);
}
std::vector<Tensor> Tensor::hsplit(int64_t sections) const { return ember::hsplit(*this, sections); }
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const { return ember::hsplit(*this, indices); }
std::vector<Tensor> Tensor::vsplit(int64_t sections) const { return ember::vsplit(*this, sections); }
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const { return ember::vsplit(*this, indices); }
std::vector<Tensor> Tensor::dsplit(int64_t sections) const { return ember::dsplit(*this, sections); }
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const { return ember::dsplit(*this, indices); }

// ---- math ops
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor Tensor::signbit() const { return ember::signbit(*this); }
Tensor Tensor::nansum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nansum(*this, dims, keepdim, dtype);
}
Tensor Tensor::nanmean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nanmean(*this, dims, keepdim, dtype);
}
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }
Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) const {
  return ember::diff(*this, n, dim, prepend, append);
}
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const { return ember::cross(*this, other, dim); }
Tensor Tensor::kron(const Tensor& other) const { return ember::kron(*this, other); }
Tensor Tensor::dist(const Tensor& other, double p) const { return ember::dist(*this, other, p); }
std::tuple<Tensor, Tensor, Tensor> Tensor::svd(bool some, bool compute_uv) const {
  return ember::svd(*this, some, compute_uv);
}

// ---- views named after another tensor or numpy
Tensor Tensor::view_as(const Tensor& other) const { return view(other.sizes()); }
Tensor Tensor::reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return transpose(axis0, axis1); }
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
Tensor Tensor::moveaxis(IntArrayRef source, IntArrayRef destination) const { return movedim(source, destination); }

// ---- order statistics
std::pair<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const { return ember::sort(*this, dim, descending); }
std::pair<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim, bool descending) const {
  return ember::sort(*this, stable, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending, bool stable) const {
  return ember::argsort(*this, dim, descending, stable);
}
Tensor Tensor::msort() const { return ember::msort(*this); }
std::pair<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}
std::pair<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ember::kthvalue(*this, k, dim, keepdim);
}
Tensor Tensor::median() const { return ember::median(*this); }
std::pair<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const { return ember::median(*this, dim, keepdim); }
Tensor Tensor::nanmedian() const { return ember::nanmedian(*this); }
std::pair<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ember::nanmedian(*this, dim, keepdim);
}
std::pair<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const { return ember::mode(*this, dim, keepdim); }
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
std::pair<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::pair<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ember::histc(*this, bins, min, max);
}
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ember::bincount(*this, weights, minlength);
}
std::tuple<Tensor, Tensor, Tensor> Tensor::unique(bool sorted, bool return_inverse, bool return_counts,
                                                  std::optional<int64_t> dim) const {
  return ember::unique(*this, sorted, return_inverse, return_counts, dim);
}
std::tuple<Tensor, Tensor, Tensor> Tensor::unique_consecutive(bool return_inverse, bool return_counts,
                                                              std::optional<int64_t> dim) const {
  return ember::unique_consecutive(*this, return_inverse, return_counts, dim);
}

}  // namespace ember
