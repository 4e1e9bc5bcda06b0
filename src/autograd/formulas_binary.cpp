// Derivatives of the binary elementwise ops (broadcast gradients are summed back by the engine).
#include "ember/creation.h"
#include "ember/ops.h"
#include "ember/type_promotion.h"
#include "formulas.h"

namespace ember::autograd {

Tensor scaled(const Tensor& g, const Scalar& s) { return s.to_double() == 1.0 ? g : g * s; }

namespace {

void record_pow(const Tensor& r, const Tensor& a, const Tensor& b) {
  // d/da a^b = b a^(b-1) (0 where b == 0); d/db a^b = a^b log(a) (0 where a == 0 and b >= 0).
  auto base_grad = [](const Tensor& g, const Tensor& a, const Tensor& b) {
    // A number exponent stays a number (wrapped - 1 would promote to the default float dtype).
    Tensor b_minus_1 = !b.impl()->is_wrapped_number ? sub(b, wrapped_scalar(1))
                       : b.is_floating_point() ? wrapped_scalar(b.item().to_double() - 1.0)
                                               : wrapped_scalar(b.item().to_int() - 1);
    // torch's shortcut for a zero exponent skips a bool one (Scalar(false) never equals 0.0): 0 * a^-1 stays
    if (b.impl()->is_wrapped_number && b.dtype() != kBool && b.item().to_double() == 0.0) return zeros_like(g);
    Tensor d = mul(g, mul(b, pow(a, b_minus_1)));
    return b.impl()->is_wrapped_number ? d : where(eq(b, wrapped_scalar(0)), zeros_like(d), d);
  };
  auto exponent_grad = [](const Tensor& g, const Tensor& a, const Tensor& b, const Tensor& r) {
    // the base in the result's precision (a Python number would compute log in the default dtype)
    Tensor base = a.impl()->is_wrapped_number ? scalar_tensor(a.item(), r.options()) : a.to(r.dtype());
    Tensor d = mul(g, mul(r, log(base)));
    return where(logical_and(eq(a, wrapped_scalar(0)), ge(b, wrapped_scalar(0))), zeros_like(d), d);
  };
  // A Python-number exponent or base is not an input of the node (one edge), as in torch.
  if (b.impl()->is_wrapped_number) {
    record("PowBackward0", r, {&a}, {&a, &b}, [base_grad](const BackwardContext& c) {
      return TensorList{base_grad(c.grads[0], c.saved[0], c.saved[1])};
    });
  } else if (a.impl()->is_wrapped_number) {
    record("PowBackward2", r, {&b}, {&a, &b, &r}, [exponent_grad](const BackwardContext& c) {
      return TensorList{exponent_grad(c.grads[0], c.saved[0], c.saved[1], c.saved[2])};
    });
  } else {
    // torch saves the result whichever input needs a gradient: an in-place change of it fails backward
    record("PowBackward1", r, {&a, &b}, {&a, &b, &r}, [base_grad, exponent_grad](const BackwardContext& c) {
      const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
      return TensorList{c.needs(0) ? base_grad(g, a, b) : Tensor(), c.needs(1) ? exponent_grad(g, a, b, c.saved[2]) : Tensor()};
    });
  }
}

// maximum/minimum: the gradient goes to the selected input, split evenly on ties, and to both where a
// comparison is NaN (torch masks out only the input that loses).
void record_extremum(const char* name, bool is_max, const Tensor& r, const Tensor& a, const Tensor& b) {
  record(name, r, {&a, &b}, {&a, &b}, [is_max](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
    Tensor half = div(g, wrapped_scalar(2)), zero = zeros_like(g);
    Tensor tie = eq(a, b), a_wins = is_max ? gt(a, b) : lt(a, b), b_wins = is_max ? lt(a, b) : gt(a, b);
    Tensor ga = where(tie, half, where(b_wins, zero, g));
    Tensor gb = where(tie, half, where(a_wins, zero, g));
    return TensorList{ga, gb};
  });
}

// fmax/fmin: self takes the whole gradient where it is selected, on ties, or where other is NaN (torch).
void record_fextremum(const char* name, bool is_max, const Tensor& r, const Tensor& a, const Tensor& b) {
  record(name, r, {&a, &b}, {&a, &b}, [is_max](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
    Tensor zero = zeros_like(g), self_takes = logical_or(is_max ? ge(a, b) : le(a, b), isnan(b));
    return TensorList{where(self_takes, g, zero), where(self_takes, zero, g)};
  });
}

void record_true_div(const char* name, const Tensor& r, const Tensor& a, const Tensor& b) {
  record(name, r, {&a, &b}, {if_needed(b.requires_grad(), a), &b}, [](const BackwardContext& c) {
    const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
    return TensorList{c.needs(0) ? div(g, b) : Tensor(), c.needs(1) ? neg(div(mul(g, a), mul(b, b))) : Tensor()};
  });
}

}  // namespace

// An op torch does not differentiate: its node is torch::autograd::NotImplemented, which raises in backward.
void record_not_implemented(const char* op, const Tensor& r, const Tensor& a, const Tensor& b) {
  record("torch::autograd::NotImplemented", r, {&a, &b}, {}, [op](const BackwardContext&) -> TensorList {
    throw Error(str("derivative for aten::", op, " is not implemented"));
  });
}

void record_without_derivative(const std::string& op, const char* node, const Tensor& r, const Tensor& self) {
  record(node, r, {&self}, {}, [op](const BackwardContext&) -> TensorList {
    throw NotImplementedError(str("the derivative for '", op, "' is not implemented."));
  });
}

void record_in_place_not_implemented(const char* op, const char* node, const Tensor& r, const Tensor& self) {
  record_without_derivative(str("inplace version of ", op), node, r, self);
}

// torch's node of an in-place comparison: name.Scalar (Backward0) for a number b, name.Tensor (Backward1) else.
const char* comparison_node(BinaryOp op, bool number) {
  switch (op) {
    case BinaryOp::Eq: return number ? "EqBackward0" : "EqBackward1";
    case BinaryOp::Ne: return number ? "NeBackward0" : "NeBackward1";
    case BinaryOp::Lt: return number ? "LtBackward0" : "LtBackward1";
    case BinaryOp::Le: return number ? "LeBackward0" : "LeBackward1";
    case BinaryOp::Gt: return number ? "GtBackward0" : "GtBackward1";
    case BinaryOp::Ge: return number ? "GeBackward0" : "GeBackward1";
    default: throw Error(str(binary_op_name(op), " is not a comparison"));
  }
}

void record_comparison(BinaryOp op, const Tensor& r, const Tensor& a, const Tensor& b) {
  record(comparison_node(op, b.impl()->is_wrapped_number), r, {&a, &b}, {},
         [b_sizes = DimVector(b.sizes())](const BackwardContext& c) {
           Tensor zero = zeros_like(c.grads[0]);
           return TensorList{zero, c.needs(1) ? sum_to(zero, b_sizes) : Tensor()};
         });
}

void record_div_mode(const Tensor& r, const Tensor& a, const Tensor& b) { record_true_div("DivBackward2", r, a, b); }

void record_div_scalar(const Tensor& r, const Tensor& a, double b) {
  record("DivBackward1", r, {&a}, {}, [b](const BackwardContext& c) { return TensorList{div(c.grads[0], wrapped_scalar(b))}; });
}

void record_mul_scalar(const Tensor& r, const Tensor& a, double b) {
  record("MulBackward1", r, {&a}, {}, [b](const BackwardContext& c) {
    return TensorList{mul(c.grads[0], wrapped_scalar(b))};
  });
}

void record_rsub(const Tensor& r, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  auto formula = [alpha](const BackwardContext& c) {
    return TensorList{neg(scaled(c.grads[0], alpha)), c.grads[0]};
  };
  if (other.impl()->is_wrapped_number) {  // a Python number is not an input of the node (one edge)
    record("RsubBackward1", r, {&self}, {}, [alpha](const BackwardContext& c) {
      return TensorList{neg(scaled(c.grads[0], alpha))};
    });
  } else {
    record("RsubBackward0", r, {&self, &other}, {}, formula);
  }
}

void record_binary(BinaryOp op, const Tensor& r, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  switch (op) {
    case BinaryOp::Add:
      return record("AddBackward0", r, {&a, &b}, {}, [alpha](const BackwardContext& c) {
        return TensorList{c.grads[0], c.needs(1) ? scaled(c.grads[0], alpha) : Tensor()};
      });
    case BinaryOp::Sub:
      return record("SubBackward0", r, {&a, &b}, {}, [alpha](const BackwardContext& c) {
        return TensorList{c.grads[0], c.needs(1) ? neg(scaled(c.grads[0], alpha)) : Tensor()};
      });
    case BinaryOp::Mul: {
      auto formula = [](const BackwardContext& c) {
        const Tensor& g = c.grads[0];
        return TensorList{c.needs(0) ? mul(g, c.saved[1]) : Tensor(), c.needs(1) ? mul(g, c.saved[0]) : Tensor()};
      };
      return record("MulBackward0", r, {&a, &b}, {if_needed(b.requires_grad(), a), if_needed(a.requires_grad(), b)},
                    formula);
    }
    case BinaryOp::Div:
      return record_true_div("DivBackward0", r, a, b);
    case BinaryOp::Pow:
      return record_pow(r, a, b);
    case BinaryOp::Remainder:
    case BinaryOp::Fmod: {
      bool floor = op == BinaryOp::Remainder;
      // torch's overloads: a number `b` is name.Scalar (Backward0), a tensor name.Tensor (Backward1); a number
      // `a` (2 % x) is remainder.Scalar_Tensor, which has no derivative
      if (a.impl()->is_wrapped_number) return record_not_implemented("remainder", r, a, b);
      const char* name = floor ? (b.impl()->is_wrapped_number ? "RemainderBackward0" : "RemainderBackward1")
                               : (b.impl()->is_wrapped_number ? "FmodBackward0" : "FmodBackward1");
      bool b_grad = b.requires_grad();
      return record(name, r, {&a, &b}, {if_needed(b_grad, a), if_needed(b_grad, b)}, [floor](const BackwardContext& c) {
        const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
        if (!c.needs(1)) return TensorList{g, Tensor()};
        Tensor quotient = floor ? ember::floor(div(a, b)) : trunc(div(a, b));
        return TensorList{g, neg(mul(g, quotient))};
      });
    }
    case BinaryOp::Atan2:
      return record("Atan2Backward0", r, {&a, &b}, {&a, &b}, [](const BackwardContext& c) {
        const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
        // 1 / (a² + b²), taken as 0 where a² + b² is 0 (a zero gradient at the origin, as torch)
        Tensor denom = add(mul(a, a), mul(b, b));
        Tensor recip = where(eq(denom, wrapped_scalar(0)), wrapped_scalar(0), reciprocal(denom));
        return TensorList{mul(mul(g, b), recip), mul(mul(g, neg(a)), recip)};
      });
    case BinaryOp::Copysign: {  // d/da = result / a (0 where a is 0); b gives only the sign: a zero gradient
      auto grad_a = [](const BackwardContext& c) {
        const Tensor &g = c.grads[0], &a = c.saved[0];
        return where(eq(a, wrapped_scalar(0)), zeros_like(g), mul(g, div(c.saved[1], a)));
      };
      if (b.impl()->is_wrapped_number) {  // a number b is not an input of the node (one edge), as torch
        return record("CopysignBackward1", r, {&a}, {&a, &r}, [grad_a](const BackwardContext& c) {
          return TensorList{grad_a(c)};
        });
      }
      return record("CopysignBackward0", r, {&a, &b}, {&a, &r}, [grad_a](const BackwardContext& c) {
        return TensorList{grad_a(c), zeros_like(c.grads[0])};
      });
    }
    case BinaryOp::Hypot:
      return record("HypotBackward0", r, {&a, &b}, {&a, &b, &r}, [](const BackwardContext& c) {
        const Tensor &g = c.grads[0], &r = c.saved[2];
        return TensorList{div(mul(g, c.saved[0]), r), div(mul(g, c.saved[1]), r)};
      });
    case BinaryOp::Xlogy: {  // d/da = xlogy(a != 0, b), d/db = a / b; a number operand gets no edge (Backward1/2)
      auto grad_a = [](const Tensor& g, const Tensor& a, const Tensor& b) { return mul(g, xlogy(ne(a, wrapped_scalar(0)).to(g.dtype()), b)); };
      auto grad_b = [](const Tensor& g, const Tensor& a, const Tensor& b) { return div(mul(g, a), b); };
      if (a.impl()->is_wrapped_number) {
        return record("XlogyBackward1", r, {&b}, {&a, &b}, [grad_b](const BackwardContext& c) {
          return TensorList{grad_b(c.grads[0], c.saved[0], c.saved[1])};
        });
      }
      if (b.impl()->is_wrapped_number) {
        return record("XlogyBackward2", r, {&a}, {&a, &b}, [grad_a](const BackwardContext& c) {
          return TensorList{grad_a(c.grads[0], c.saved[0], c.saved[1])};
        });
      }
      return record("XlogyBackward0", r, {&a, &b}, {&a, &b}, [grad_a, grad_b](const BackwardContext& c) {
        const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
        return TensorList{c.needs(0) ? grad_a(g, a, b) : Tensor(), c.needs(1) ? grad_b(g, a, b) : Tensor()};
      });
    }
    case BinaryOp::Logaddexp:
    case BinaryOp::Logaddexp2: {  // d/da = 1 / (1 + base^(b - a)), d/db = 1 / (1 + base^(a - b))
      bool two = op == BinaryOp::Logaddexp2;
      return record(two ? "Logaddexp2Backward0" : "LogaddexpBackward0", r, {&a, &b}, {&a, &b},
                    [two](const BackwardContext& c) {
        const Tensor &g = c.grads[0], &a = c.saved[0], &b = c.saved[1];
        auto share = [&](const Tensor& x, const Tensor& y) {
          return div(g, add(two ? exp2(sub(y, x)) : exp(sub(y, x)), wrapped_scalar(1)));
        };
        return TensorList{c.needs(0) ? share(a, b) : Tensor(), c.needs(1) ? share(b, a) : Tensor()};
      });
    }
    case BinaryOp::Maximum: return record_extremum("MaximumBackward0", true, r, a, b);
    case BinaryOp::Minimum: return record_extremum("MinimumBackward0", false, r, a, b);
    case BinaryOp::Fmax: return record_fextremum("FmaxBackward0", true, r, a, b);
    case BinaryOp::Fmin: return record_fextremum("FminBackward0", false, r, a, b);
    case BinaryOp::DivFloor: case BinaryOp::DivTrunc:  // piecewise constant: zero gradients, as torch
      return record("DivBackward2", r, {&a, &b}, {}, [](const BackwardContext& c) {
        return TensorList{zeros_like(c.grads[0]), zeros_like(c.grads[0])};
      });
    case BinaryOp::FloorDivide:
      return record_not_implemented("floor_divide", r, a, b);
    default:  // integer and bool results: nothing to differentiate
      return;
  }
}

}  // namespace ember::autograd
