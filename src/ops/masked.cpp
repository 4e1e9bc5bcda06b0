// Mask-driven selection: masked_select (a parallel two-pass kernel), masked_scatter, and the index forms of
// nonzero (nonzero(as_tuple=True), where(cond), argwhere).
#include "../autograd/formulas.h"
#include "../dispatch/kernels.h"
#include "ember/creation.h"
#include "ember/layout.h"
#include "ember/ops.h"
#include "ember/reduce.h"
#include "ember/scatter.h"

namespace ember {

namespace {

Tensor masked_select_impl(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool, Error, "masked_select: expected BoolTensor for mask");
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes());
  Tensor x = self.expand(shape).contiguous(), m = mask.expand(shape).contiguous();
  if (!m.device().is_cpu() || !x.device().is_cpu()) return index(x, {m});  // devices without the one-pass kernel
  return kernels::masked_select[x.device()](x, m);
}

void masked_scatter_into(const Tensor& target, const Tensor& mask, const Tensor& source) {
  check_no_internal_overlap(target);
  EMBER_CHECK(target.dtype() == source.dtype(), Error, "masked_scatter: expected self and source to have same dtypes but "
              "got", legacy_name(target.dtype()), " and ", legacy_name(source.dtype()));
  EMBER_CHECK(mask.dtype() == kBool, Error, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              legacy_name(mask.dtype()));
  EMBER_CHECK(!is_float8(target.dtype()), NotImplementedError,
              "\"masked_scatter\" not implemented for '", legacy_name(target.dtype()), "'");
  Tensor m = mask.expand(target.sizes());
  int64_t count = count_nonzero(m).item().to_int();
  EMBER_CHECK(source.numel() >= count, Error, "Number of elements of source < number of ones in mask");
  if (count == 0) return;
  Tensor t = target;
  index_put_(t, {m.contiguous()}, source.reshape({-1}).narrow(0, 0, count));
}

// torch's messages name the in-place op; the out-of-place one broadcasts self and mask first.
Tensor masked_scatter_impl(const Tensor& self, const Tensor& mask, const Tensor& source) {
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes());
  Tensor r = empty(shape, self.options());
  r.copy_(self.expand(shape));
  masked_scatter_into(r, mask.expand(shape), source);
  return r;
}

}  // namespace

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  Tensor r = autograd::untracked([&] { return masked_select_impl(self, mask); });
  if (autograd::needs_grad({&self})) autograd::record_masked_select(r, self, mask);
  return r;
}

Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(!autograd::needs_grad({&self, &out}), Error, "masked_select(): functions with out=... arguments don't "
              "support automatic differentiation, but one of the arguments requires grad.");
  EMBER_CHECK(out.dtype() == self.dtype(), Error, "masked_select(): self and result must have the same scalar type");
  Tensor r = masked_select_impl(self, mask);
  resize_output(out, r.sizes());
  return out.copy_(r);
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  Tensor r = autograd::untracked([&] { return masked_scatter_impl(self, mask, source); });
  if (autograd::needs_grad({&self, &source})) autograd::record_masked_scatter(r, self, mask, source);
  return r;
}

Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  autograd::check_in_place(self);
  if (autograd::needs_grad({&self, &source}) || autograd::writes_into_graph_view(self)) {
    return autograd::record_in_place(self, [&] {
      (void)mask.expand(self.sizes());  // the in-place form never broadcasts self
      return masked_scatter(self, mask, source);
    });
  }
  masked_scatter_into(self, mask, source);
  return self;
}

std::vector<Tensor> nonzero_numpy(const Tensor& x) {
  Tensor nz = nonzero(x.dim() == 0 ? x.unsqueeze(0) : x);
  return nz.unbind(1);
}

std::vector<Tensor> where(const Tensor& condition) { return nonzero_numpy(condition); }

Tensor argwhere(const Tensor& x) { return nonzero(x); }

}  // namespace ember
