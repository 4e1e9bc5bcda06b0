// einsum(equation, *operands), einsum(equation, [operands]) and torch's sublist form einsum(x, [0, 1], y, [1, 2], [0, 2]).
#include <string>
#include <vector>

#include "bindings.h"

namespace ember::py {

namespace {

// The subscripts of one list of the sublist form: ints in [0, 52) (A-Z, then a-z) or Ellipsis.
// A tensor where a list belongs is a TypeError, as torch's; with an output list (an odd count of arguments) torch's
// Python wrapper reads it first and raises a RuntimeError.
std::string sublist_labels(nb::handle list, bool with_output) {
  EMBER_CHECK(!nb::isinstance<Tensor>(list) || !with_output, Error, "einsum(): the sublist form takes a list of "
              "subscripts after each operand, not a Tensor");
  EMBER_CHECK(!nb::isinstance<Tensor>(list), TypeError, "einsum(): the sublist form takes a list of subscripts after "
              "each operand, not a Tensor");
  std::string labels;
  for (nb::handle item : nb::iter(list)) {
    if (item.is(nb::handle(Py_Ellipsis))) {
      labels += "...";
      continue;
    }
    auto n = int_value(item, "subscript");
    EMBER_CHECK(n, TypeError, "einsum(): subscripts must be integers or Ellipsis, not ", nb::inst_name(item).c_str());
    EMBER_CHECK(*n >= 0 && *n < 52, ValueError, "einsum(): subscript in subscript list is not within the valid range [0, 52)");
    labels += char(*n < 26 ? 'A' + *n : 'a' + *n - 26);
  }
  return labels;
}

Tensor einsum_args(const nb::args& args) {
  size_t n = args.size();
  EMBER_CHECK(n >= 2, ValueError, "einsum(): must specify the equation string and at least one operand, or at least "
              "one operand and its subscripts list");
  std::string equation;
  std::vector<Tensor> operands;
  if (nb::isinstance<Tensor>(args[0])) {  // x, [subscripts], y, [subscripts], ..., [output]
    for (size_t i = 0; i + 1 < n; i += 2) {
      operands.push_back(tensor_element(args[i], i));
      equation += (i ? "," : "") + sublist_labels(args[i + 1], n % 2 == 1);
    }
    if (n % 2 == 1) equation += "->" + sublist_labels(args[n - 1], true);
    return einsum(equation, operands);
  }
  EMBER_CHECK(nb::isinstance<nb::str>(args[0]), TypeError, "einsum(): argument 'equation' must be str, not ",
              nb::inst_name(args[0]).c_str());
  equation = nb::cast<std::string>(args[0]);
  nb::handle list = n == 2 && (nb::isinstance<nb::list>(args[1]) || nb::isinstance<nb::tuple>(args[1])) ? args[1] : nb::handle();
  if (list.is_valid()) {  // the operands as one list
    size_t i = 0;
    for (nb::handle item : nb::iter(list)) operands.push_back(tensor_element(item, i++, 1));
  } else {
    for (size_t i = 1; i < n; ++i) operands.push_back(tensor_element(args[i], i - 1, 1));
  }
  return einsum(equation, operands);
}

}  // namespace

void init_einsum(nb::module_& m) { m.def("einsum", &einsum_args); }

}  // namespace ember::py
