// einsum: the equation is parsed into labels, every operand is aligned to one dim order (output labels, then the
// summed ones; diagonals taken, missing labels unsqueezed), then operands contract pairwise through bmm.
#include "../core/autocast_policy.h"
#include "ember/einsum.h"

#include <cctype>
#include <deque>
#include <utility>
#include <vector>

#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/reduce.h"

namespace ember {

namespace {

constexpr int kLabels = 52;         // A-Z, then a-z
constexpr int kEllipsis = kLabels;  // "..." in a label list

int label_of(unsigned char c) { return std::isupper(c) ? c - 'A' : c - 'a' + 26; }
char char_of(int label) { return char(label < 26 ? 'A' + label : 'a' + label - 26); }

// The labels of each operand (lhs of the equation), kEllipsis for "...".
std::vector<std::vector<int>> parse_operands(std::string_view lhs, size_t num_ops) {
  std::vector<std::vector<int>> labels(num_ops);
  size_t op = 0;
  bool ellipsis = false;
  for (size_t i = 0; i < lhs.size(); ++i) {
    unsigned char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!ellipsis, Error, "einsum(): found '.' for operand ", op, " for which an ellipsis was already found");
      EMBER_CHECK(i + 2 < lhs.size() && lhs[++i] == '.' && lhs[++i] == '.', Error, "einsum(): found '.' for operand ",
                  op, " that is not part of any ellipsis");
      labels[op].push_back(kEllipsis);
      ellipsis = true;
    } else if (c == ',') {
      EMBER_CHECK(++op < num_ops, Error, "einsum(): fewer operands were provided than specified in the equation");
      ellipsis = false;
    } else {
      EMBER_CHECK(std::isalpha(c), Error, "einsum(): invalid subscript given at index ", i,
                  " in the equation string, subscripts must be in [a-zA-Z]");
      labels[op].push_back(label_of(c));
    }
  }
  EMBER_CHECK(op == num_ops - 1, Error, "einsum(): more operands were provided than specified in the equation");
  return labels;
}

// Where each label (and the ellipsis dims) sits in the aligned dim order: the output's dims first.
struct Alignment {
  std::vector<int64_t> position = std::vector<int64_t>(kLabels, -1);
  int64_t ellipsis_at = 0, ellipsis_dims = 0;
  int64_t out_dims = 0, total_dims = 0;
};

Alignment align_labels(std::string_view equation, size_t arrow, std::span<const Tensor> operands,
                       const std::vector<std::vector<int>>& labels) {
  Alignment al;
  std::vector<int64_t> count(kLabels, 0);
  for (size_t i = 0; i < operands.size(); ++i) {
    int64_t named = 0, ndim = operands[i].dim();
    bool has_ellipsis = false;
    for (int s : labels[i]) {
      if (s == kEllipsis) has_ellipsis = true;
      else ++count[size_t(s)], ++named;
    }
    if (has_ellipsis) al.ellipsis_dims = std::max(al.ellipsis_dims, ndim - named);
    EMBER_CHECK(has_ellipsis ? named <= ndim : named == ndim, Error, "einsum(): the number of subscripts in the equation (",
                named, has_ellipsis ? ") is more than the number of dimensions (" : ") does not match the number of dimensions (",
                ndim, ") for operand ", i, has_ellipsis ? "" : " and no ellipsis was given");
  }
  int64_t next = 0;
  bool ellipsis_out = false;
  if (arrow == std::string_view::npos) {  // implicit: "..." then the labels seen once, alphabetically
    next = al.ellipsis_dims;
    ellipsis_out = true;
    for (int s = 0; s < kLabels; ++s) {
      if (count[size_t(s)] == 1) al.position[size_t(s)] = next++;
    }
  } else {
    std::string_view rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      unsigned char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        EMBER_CHECK(!ellipsis_out, Error, "einsum(): found '.' for output but an ellipsis (...) was already found");
        EMBER_CHECK(i + 2 < rhs.size() && rhs[++i] == '.' && rhs[++i] == '.', Error,
                    "einsum(): found '.' for output that is not part of any ellipsis (...)");
        al.ellipsis_at = next;
        next += al.ellipsis_dims;
        ellipsis_out = true;
        continue;
      }
      EMBER_CHECK(std::isalpha(c), Error, "einsum(): invalid subscript given at index ", arrow + 2 + i,
                  " in the equation string, subscripts must be in [a-zA-Z]");
      int s = label_of(c);
      EMBER_CHECK(count[size_t(s)] > 0 && al.position[size_t(s)] == -1, Error, "einsum(): output subscript ", char(c),
                  al.position[size_t(s)] > -1 ? " appears more than once in the output"
                                              : " does not appear in the equation for any input operand");
      al.position[size_t(s)] = next++;
    }
  }
  al.out_dims = next;
  if (!ellipsis_out) {  // summed ellipsis dims come first among the contracted ones
    al.ellipsis_at = next;
    next += al.ellipsis_dims;
  }
  for (int s = 0; s < kLabels; ++s) {
    if (count[size_t(s)] > 0 && al.position[size_t(s)] == -1) al.position[size_t(s)] = next++;
  }
  al.total_dims = next;
  return al;
}

// The size of dim d of a * b (a size 1 broadcasts, a size 0 does not).
int64_t joint_size(const Tensor& a, const Tensor& b, int64_t d) {
  return a.sizes()[size_t(d)] != 1 ? a.sizes()[size_t(d)] : b.sizes()[size_t(d)];
}

// sum((a * b), sum_dims) kept as size-1 dims, through one bmm: a as (shared, a only, summed), b as (shared, summed,
// b only); a dim of size 1 on one side is broadcast. Operands have the same rank.
Tensor contract_pair(Tensor a, Tensor b, const DimVector& sum_dims) {
  if (sum_dims.empty()) return mul(a, b);
  int64_t ndim = a.dim();
  std::vector<bool> summed(size_t(ndim), false);
  for (int64_t d : sum_dims) summed[size_t(d)] = true;
  DimVector both, only_a, only_b;
  int64_t both_size = 1, a_size = 1, b_size = 1, sum_size = 1;
  for (int64_t d = 0; d < ndim; ++d) {
    int64_t sa = a.sizes()[size_t(d)], sb = b.sizes()[size_t(d)];
    if (sa != 1 && sb != 1) {
      EMBER_CHECK(sa == sb, Error, "non-broadcast dimensions must match");
      if (summed[size_t(d)]) sum_size *= sa;
      else both.push_back(d), both_size *= sa;
    } else if (summed[size_t(d)]) {  // summed but on one side only: sum it there now
      if (sa != 1) a = sum(a, {d}, true);
      else if (sb != 1) b = sum(b, {d}, true);
    } else if (sa != 1) {
      only_a.push_back(d), a_size *= sa;
    } else {
      only_b.push_back(d), b_size *= sb;
    }
  }
  EMBER_CHECK(a.dtype() == b.dtype(), Error, "expected scalar type ", legacy_name(a.dtype()),
              " but found ", legacy_name(b.dtype()));
  // torch's bmm answers empty products and K = 0 before its dtype dispatch
  EMBER_CHECK(a.dtype() != kBool || both_size * a_size * b_size * sum_size == 0, NotImplementedError,
              "\"bmm\" not implemented for 'Bool'");
  if (!only_a.empty() && !only_b.empty() && only_b.back() < only_a[0]) {  // b first gives the dims in order, as torch
    std::swap(a, b);
    std::swap(only_a, only_b);
    std::swap(a_size, b_size);
  }
  // result dims in bmm order: both, only_a, summed (size 1), only_b
  DimVector a_perm(both), b_perm(both), out_sizes, out_perm(size_t(ndim), 0);
  for (int64_t d : only_a) a_perm.push_back(d);
  for (int64_t d : sum_dims) a_perm.push_back(d), b_perm.push_back(d);
  for (int64_t d : only_b) a_perm.push_back(d), b_perm.push_back(d);
  for (int64_t d : only_a) b_perm.push_back(d);
  for (size_t i = 0; i < a_perm.size(); ++i) {
    int64_t d = a_perm[i];
    out_perm[size_t(d)] = int64_t(i);
    out_sizes.push_back(summed[size_t(d)] ? 1 : joint_size(a, b, d));
  }
  Tensor left = a.permute(a_perm).reshape({both_size, a_size, sum_size});
  Tensor right = b.permute(b_perm).reshape({both_size, sum_size, b_size});
  return bmm(left, right).view(out_sizes).permute(out_perm);
}

// Numel of the product of ops[i] and ops[j] once the dims no other operand has are summed.
int64_t pair_cost(const std::deque<Tensor>& ops, size_t i, size_t j, int64_t out_dims) {
  int64_t cost = 1;
  for (int64_t d = 0; d < ops[i].dim(); ++d) {
    int64_t size = joint_size(ops[i], ops[j], d);
    bool elsewhere = d < out_dims;
    for (size_t k = 0; k < ops.size() && !elsewhere; ++k) elsewhere = k != i && k != j && ops[k].sizes()[size_t(d)] != 1;
    cost *= elsewhere ? size : 1;
  }
  return cost;
}

}  // namespace

Tensor einsum(std::string_view equation, std::span<const Tensor> operands) {
  EMBER_AUTOCAST(lower, kCUDA, einsum, equation, operands);
  EMBER_CHECK(!operands.empty(), Error, "einsum(): must provide at least one operand");
  size_t arrow = equation.find("->");
  auto labels = parse_operands(equation.substr(0, arrow), operands.size());
  Alignment al = align_labels(equation, arrow, operands, labels);

  // Align every operand to the dim order; count the operands where each dim is not 1.
  std::vector<int64_t> label_size(kLabels, 1), ellipsis_size(size_t(al.ellipsis_dims), 1);
  std::vector<int64_t> dim_count(size_t(al.total_dims), 0);
  std::deque<Tensor> ops;
  for (size_t i = 0; i < operands.size(); ++i) {
    Tensor op = operands[i];
    DimVector perm(size_t(al.total_dims), -1);
    int64_t dim = 0;
    for (int s : labels[i]) {
      if (s == kEllipsis) {
        int64_t covered = operands[i].dim() - int64_t(labels[i].size() - 1);
        for (int64_t j = al.ellipsis_dims - covered; j < al.ellipsis_dims; ++j, ++dim) {
          int64_t size = op.sizes()[size_t(dim)];
          if (size != 1) {
            EMBER_CHECK(ellipsis_size[size_t(j)] == 1 || ellipsis_size[size_t(j)] == size, Error, "einsum(): dimension ",
                        dim, " covered by ellipsis in operand ", i, "has size ", size,
                        " which does not broadcast with previously seen ellipsis with size ", ellipsis_size[size_t(j)],
                        " for the respective dimension");
            ellipsis_size[size_t(j)] = size;
            ++dim_count[size_t(al.ellipsis_at + j)];
          }
          perm[size_t(al.ellipsis_at + j)] = dim;
        }
      } else if (int64_t& at = perm[size_t(al.position[size_t(s)])]; at == -1) {
        int64_t size = op.sizes()[size_t(dim)];
        if (size != 1) {
          EMBER_CHECK(label_size[size_t(s)] == 1 || label_size[size_t(s)] == size, Error, "einsum(): subscript ",
                      char_of(s), " has size ", size, " for operand ", i,
                      " which does not broadcast with previously seen size ", label_size[size_t(s)]);
          label_size[size_t(s)] = size;
          ++dim_count[size_t(al.position[size_t(s)])];
        }
        at = dim++;
      } else {  // a repeated label: the diagonal, kept at the first occurrence's place
        int64_t size = op.sizes()[size_t(dim)], first = op.sizes()[size_t(at)];
        EMBER_CHECK(size == first, Error, "einsum(): subscript ", char_of(s), " is repeated for operand ", i,
                    " but the sizes don't match, ", size, " != ", first);
        op = op.diagonal(0, at, dim).movedim({-1}, {at});
      }
    }
    for (int64_t& p : perm) {
      if (p == -1) op = op.unsqueeze(dim), p = dim++;
    }
    ops.push_back(op.permute(perm));
  }

  // Contract pairs, the one with the smallest result first (the leftmost pair on ties).
  while (ops.size() > 1) {
    size_t bi = 0, bj = 1;
    if (ops.size() > 2) {
      int64_t best = pair_cost(ops, 0, 1, al.out_dims);
      for (size_t i = 0; i < ops.size(); ++i) {
        for (size_t j = i + 1; j < ops.size(); ++j) {
          if (int64_t c = pair_cost(ops, i, j, al.out_dims); c < best) best = c, bi = i, bj = j;
        }
      }
    }
    Tensor a = ops[bi], b = ops[bj];
    ops.erase(ops.begin() + std::ptrdiff_t(bj));
    ops.erase(ops.begin() + std::ptrdiff_t(bi));
    DimVector sum_dims, sum_a, sum_b;  // contracted dims only one of the pair has, and no other operand
    for (int64_t d = al.out_dims; d < al.total_dims; ++d) {
      int64_t& n = dim_count[size_t(d)];
      bool in_a = a.sizes()[size_t(d)] != 1, in_b = b.sizes()[size_t(d)] != 1;
      if (in_a && in_b) {
        if (--n == 1) sum_dims.push_back(d), n = 0;
      } else if (n == 1 && (in_a || in_b)) {
        (in_a ? sum_a : sum_b).push_back(d);
        n = 0;
      }
    }
    if (!sum_a.empty()) a = sum(a, sum_a, true);
    if (!sum_b.empty()) b = sum(b, sum_b, true);
    ops.push_front(contract_pair(a, b, sum_dims));
  }

  int64_t contracted = al.total_dims - al.out_dims;
  if (contracted == 0) return ops[0];
  if (operands.size() > 1) {  // the contracted dims are all 1 now
    DimVector sizes(ops[0].sizes());
    sizes.resize(size_t(al.out_dims));
    return ops[0].view(sizes);
  }
  DimVector dims;
  for (int64_t d = al.out_dims; d < al.total_dims; ++d) dims.push_back(d);
  return sum(ops[0], dims);
}

}  // namespace ember
