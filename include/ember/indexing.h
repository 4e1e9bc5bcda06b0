// x.index({...}) and x.index_put_({...}, v): torch's indexing (x[1:, None, ..., mask] in Python) with libtorch's
// TensorIndex API. Integers, slices, None, Ellipsis and bools make views; tensors index (copy on read, scatter
// on write). The Python bindings translate x[...] into these TensorIndex lists.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember::indexing {

struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis;
inline constexpr std::nullopt_t None = std::nullopt;  // a new unit dim (None in Python)

// start:stop:step; an unset start or stop is the whole extent, an unset step 1 (a step must be positive).
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

// One entry of an index: None, Ellipsis ("..." too), an integer, a bool, a Slice or a tensor.
class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  TensorIndex(const char* str);  // "..."
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}
  TensorIndex(int i) : TensorIndex(int64_t(i)) {}
  TensorIndex(bool b) : kind_(Kind::Boolean), integer_(b) {}
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}
  // counts_one_dim: a Python list or array used as a mask counts as one dim toward "too many indices" (torch).
  TensorIndex(Tensor t, bool counts_one_dim = false)
      : kind_(Kind::Tensor), tensor_(std::move(t)), counts_one_dim_(counts_one_dim) {}

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_integer() const { return kind_ == Kind::Integer; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return integer_ != 0; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }
  bool counts_one_dim() const { return counts_one_dim_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  Tensor tensor_;
  bool counts_one_dim_ = false;
};

// x[index] for one entry written alone (x[0], not x[(0,)]): an integer or a slice takes torch's fast path,
// which skips the "too many indices" check; x.index({0}) comes here.
Tensor get_item(const Tensor& self, const TensorIndex& index);
// x[indices] as torch's applySlicing (Python's x[a, b, ...]).
Tensor get_item(const Tensor& self, const std::vector<TensorIndex>& indices);
// x[index] = value and x[indices] = value: a tensor broadcast to the indexed shape, or a number.
void set_item(const Tensor& self, const TensorIndex& index, const Tensor& value);
void set_item(const Tensor& self, const TensorIndex& index, const Scalar& value);
void set_item(const Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value);
void set_item(const Tensor& self, const std::vector<TensorIndex>& indices, const Scalar& value);
// Raises torch's IndexError when `indices` name more dims than self has (`invalid` more entries count one each).
void check_index_count(const Tensor& self, const std::vector<TensorIndex>& indices, int64_t invalid = 0);

}  // namespace ember::indexing
