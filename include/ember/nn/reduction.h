// How a loss reduces its elements (torch's at::Reduction, in its order), and torch's argument handling for it.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ember {

enum class Reduction { None, Mean, Sum };

namespace nn {
// "none", "mean" ("elementwise_mean", deprecated, with torch's warning) or "sum"; else torch's ValueError.
Reduction reduction_from_string(std::string_view reduction);
// torch's legacy size_average/reduce arguments: the reduction they mean (None counts as true), with torch's
// deprecation warning.
std::string legacy_reduction(std::optional<bool> size_average, std::optional<bool> reduce, bool emit_warning = true);
}  // namespace nn

}  // namespace ember
