// Printing with torch's format, character for character (torch/_tensor_str.py).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;
  int64_t edgeitems = 3;
  int64_t linewidth = 80;
  std::optional<bool> sci_mode;
};

PrintOptions& print_options();
// profile: "default", "short" or "full", applied before the explicit fields.
void set_printoptions(std::optional<int> precision, std::optional<int64_t> threshold,
                      std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                      std::optional<std::string_view> profile, std::optional<bool> sci_mode);

// The text of repr(t). `suffix_extra` holds suffixes that only Python knows (grad_fn=<...>).
std::string tensor_repr(const Tensor& t);

}  // namespace ember
