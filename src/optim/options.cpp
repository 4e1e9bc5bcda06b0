// The optimizers' option checks and the numbers in their messages, as torch prints them.
#include "options.h"

#include <charconv>
#include <cmath>

namespace ember::optim::detail {

std::string repr(const Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  auto* d = std::get_if<double>(&v);
  if (!d) return "<value>";
  if (!std::isfinite(*d)) return std::isnan(*d) ? "nan" : (*d > 0 ? "inf" : "-inf");
  char buf[64];
  int exp = *d == 0 ? 0 : int(std::floor(std::log10(std::abs(*d))));
  auto fmt = exp < -4 || exp >= 16 ? std::chars_format::scientific : std::chars_format::fixed;
  std::string s(buf, std::to_chars(buf, buf + sizeof buf, *d, fmt).ptr);
  if (fmt == std::chars_format::fixed && s.find('.') == std::string::npos) s += ".0";
  return s;
}

void check_min(const Dict& o, const std::string& key, double lo) {
  if (o.number(key) >= lo) return;
  std::string label = key == "lr" ? "learning rate" : key == "eps" ? "epsilon value" : key + " value";
  throw ValueError(str("Invalid ", label, ": ", repr(o.at(key))));
}

void check_betas(const Dict& o) {
  for (size_t i = 0; i < 2; ++i) {
    double b = o.element("betas", i);
    EMBER_CHECK(b >= 0 && b < 1, ValueError, "Invalid beta parameter at index ", i, ": ", repr(b));
  }
}

}  // namespace ember::optim::detail
