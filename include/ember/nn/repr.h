// Pieces of module reprs written as Python writes them (torch's extra_repr formats Python values).
#pragma once
#include <string>

#include "ember/tensor.h"

namespace ember::nn {

// A float as Python's repr: 1e-05, 0.0001, 2.0.
std::string repr_float(double v);
// A Scalar as given: 3 for an int, 3.0 for a float.
std::string repr_scalar(const Scalar& v);
// A tuple of ints as Python's: (3,), (3, 3); -1 entries show None where none_for_minus_one.
std::string repr_tuple(IntArrayRef v, bool none_for_minus_one = false);
// torch's _addindent: every line of s after the first indented by `spaces`.
std::string add_indent(const std::string& s, int spaces);

// A size argument as given: one int (shown bare, applied to every dim) or a tuple (shown as one).
struct SizeArg {
  DimVector values;
  bool scalar = true;
  SizeArg(int64_t v) : values{v} {}  // NOLINT: an int stands for all dims, as in torch
  SizeArg(std::initializer_list<int64_t> v) : values(v), scalar(false) {}
  SizeArg(IntArrayRef v, bool scalar) : values(v), scalar(scalar) {}
  // The per-dim values: a scalar repeated `dims` times.
  DimVector expand(int64_t dims) const { return scalar ? DimVector(size_t(dims), values[0]) : values; }
  std::string repr() const;
};

}  // namespace ember::nn
