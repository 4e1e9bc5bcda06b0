// What the optimizers' constructors share: their options over the defaults, and torch's range checks and messages.
#pragma once
#include <string>

#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// A number as Python prints it (torch's messages show the value given): 1.0, 1e-05, -1.
std::string repr(const Value& v);

// The options a constructor is given, over the optimizer's defaults; unknown names are refused.
template <typename Opt>
Dict merged(const Dict& options) {
  Dict d = Opt::default_options();
  for (const auto& [k, v] : options) {
    EMBER_CHECK(d.contains(k), TypeError, "unexpected optimizer option '", k, "'");
    d[k] = v;
  }
  Opt::validate(d);
  return d;
}

// torch's range checks: "Invalid learning rate: -1", "Invalid epsilon value: ...", "Invalid <name> value: ...".
void check_min(const Dict& o, const std::string& key, double lo = 0);
void check_betas(const Dict& o);  // "Invalid beta parameter at index 1: 1.0"

}  // namespace ember::optim::detail
