#pragma once
// Automatic mixed precision: the thread-local autocast state per device type (torch.autocast's).
#include "ember/device.h"
#include "ember/dtype.h"

#include <cstdint>

namespace ember::autocast {

bool is_enabled(DeviceType device);
void set_enabled(DeviceType device, bool enabled);
ScalarType get_dtype(DeviceType device);  // defaults: CPU bfloat16, CUDA float16
void set_dtype(DeviceType device, ScalarType dtype);
bool is_cache_enabled();
void set_cache_enabled(bool enabled);
void clear_cache();  // drops the casts of leaf weights made while the cache was on
int64_t increment_nesting();
int64_t decrement_nesting();  // the autocast regions still open on this thread

}  // namespace ember::autocast
