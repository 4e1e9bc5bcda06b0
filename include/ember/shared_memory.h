// Tensors in POSIX shared memory (Tensor.share_memory_ / is_shared), and storages mapped from a segment
// by name: how processes (the DataLoader's workers) hand tensors to each other without copying them
// through a pipe.
#pragma once
#include <optional>
#include <string>

#include "ember/tensor.h"

namespace ember {

// Moves the tensor's storage into a new shared segment (every view of it follows); a no-op when it is
// already shared or not on the CPU.
Tensor& share_memory_(Tensor& self);
bool is_shared(const Tensor& self);

// The segment behind a shared storage: its name (for shm_open) and size.
struct SharedSegment {
  std::string name;
  size_t nbytes;
};
std::optional<SharedSegment> shared_segment(const Storage& storage);
// The storage stops removing its segment's name when it dies: a receiver takes the name over. False (and
// nothing changes) unless this process created the segment and still owns its name.
bool hand_over_segment(const Storage& storage);
// A storage mapping segment `name`; `take_over` removes the name now (the sender handed it over).
Storage open_shared_segment(const std::string& name, size_t nbytes, bool take_over);

}  // namespace ember
