// Python-style reprs of the values module reprs show.
#include "ember/nn/repr.h"

#include <charconv>
#include <cmath>

namespace ember::nn {

std::string add_indent(const std::string& s, int spaces) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out.append(spaces, ' ');
  }
  return out;
}

std::string repr_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  // Python's repr: the shortest round-trip digits, scientific below 1e-4 and from 1e16 on.
  double mag = std::fabs(v);
  bool sci = mag != 0 && (mag < 1e-4 || mag >= 1e16);
  auto end = std::to_chars(buf, buf + sizeof buf, v, sci ? std::chars_format::scientific : std::chars_format::fixed).ptr;
  std::string s(buf, end);
  if (!sci && s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string repr_scalar(const Scalar& v) {
  if (v.is_floating_point()) return repr_float(v.to_double());
  if (v.is_bool()) return v.to_bool() ? "True" : "False";
  return std::to_string(v.to_int());
}

std::string repr_tuple(IntArrayRef v, bool none_for_minus_one) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + (none_for_minus_one && v[i] == -1 ? std::string("None") : std::to_string(v[i]));
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string SizeArg::repr() const {
  if (scalar) return values[0] == -1 ? "None" : std::to_string(values[0]);
  return repr_tuple(values, true);
}

}  // namespace ember::nn
