// Writes an in-place composite: `compute()` out of place, its dtype checked to cast to self's, then written back;
// recorded through record_in_place where self or an input is in the graph (self then takes compute's node).
// A self whose elements share memory is refused first, as torch's iterator does before any dtype check. Outside the
// graph, `direct` (where given) writes self in one pass instead, with the same checks.
#pragma once
#include <functional>
#include <initializer_list>

#include "../autograd/function.h"
#include "ember/layout.h"
#include "ember/type_promotion.h"

namespace ember {

inline Tensor& write_in_place(Tensor& self, std::initializer_list<const Tensor*> inputs,
                              const std::function<Tensor()>& compute, const std::function<void()>& direct = {}) {
  check_no_internal_overlap(self);
  auto checked = [&] {
    Tensor r = compute();
    check_result_fits_output(r.dtype(), self.dtype());
    return r;
  };
  bool graph = autograd::needs_grad({&self}) || autograd::writes_into_graph_view(self);
  for (const Tensor* t : inputs) graph = graph || autograd::needs_grad({t});
  if (graph) return autograd::record_in_place(self, checked);
  autograd::check_in_place(self);
  if (direct) {
    direct();
    return self;
  }
  return self.copy_(checked());
}

}  // namespace ember
