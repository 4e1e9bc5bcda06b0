// Host access to tensor elements: code that reads or writes elements on the CPU does so on a CPU tensor, and
// a device tensor gets there through host_copy.
#pragma once
#include "ember/errors.h"
#include "ember/tensor.h"

namespace ember {

// t itself on the CPU; else a CPU copy of a device tensor's values (out of the graph; it waits for the device, as
// torch's .cpu()).
inline Tensor host_copy(const Tensor& t) { return t.device().is_cpu() ? t : t.detach().to(kCPU); }

}  // namespace ember
