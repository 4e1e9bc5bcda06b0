// The thread-local autocast state and the weight-cast cache (ember/autocast.h, autocast_policy.h).
#include "autocast_policy.h"

#include "ember/autograd.h"
#include "ember/errors.h"


#include <array>
#include <memory>
#include <unordered_map>

namespace ember::autocast {

namespace detail {
thread_local uint8_t t_active = 0;
}  // namespace detail

namespace {
constexpr size_t kDevices = 2;
struct State {
  uint8_t enabled = 0;  // bit per device type; t_active mirrors it outside listed ops
  std::array<ScalarType, kDevices> dtype{kBFloat16, kFloat16};
  bool cache_enabled = true;
  int64_t nesting = 0;
  // Casts of leaf tensors requiring grad, keyed by the source (kept alive by the weak_ptr check).
  std::unordered_map<const TensorImpl*, std::pair<std::weak_ptr<TensorImpl>, Tensor>> cache;
};
thread_local State t_state;

size_t index(DeviceType device) { return size_t(device); }
}  // namespace

bool is_enabled(DeviceType device) { return t_state.enabled >> index(device) & 1; }
void set_enabled(DeviceType device, bool enabled) {
  uint8_t bit = uint8_t(1u << index(device));
  t_state.enabled = enabled ? t_state.enabled | bit : t_state.enabled & ~bit;
  detail::t_active = t_state.enabled;
}
ScalarType get_dtype(DeviceType device) { return t_state.dtype[index(device)]; }
void set_dtype(DeviceType device, ScalarType dtype) { t_state.dtype[index(device)] = dtype; }
bool is_cache_enabled() { return t_state.cache_enabled; }
void set_cache_enabled(bool enabled) { t_state.cache_enabled = enabled; }
void clear_cache() { t_state.cache.clear(); }
int64_t increment_nesting() { return ++t_state.nesting; }
int64_t decrement_nesting() { return --t_state.nesting; }

bool eligible(const Tensor& t, DeviceType device) {
  return t.defined() && t.device().type == device && is_floating_point(t.dtype()) && t.dtype() != kFloat64;
}

ScalarType prioritize(ScalarType current, ScalarType next) {
  if (current == kFloat32 || next == kFloat32) return kFloat32;
  EMBER_CHECK(current == next, Error, "Unexpected floating ScalarType in at::autocast::prioritize");
  return current;
}

Tensor cast(const Tensor& t, ScalarType dtype, DeviceType device) {
  // torch caches only float32 leaves requiring grad (weights) cast to the autocast dtype, while grad mode is on (a
  // cast made without it has no graph to reuse).
  bool cacheable = t_state.cache_enabled && dtype == get_dtype(device) && t.dtype() == kFloat32 && t.requires_grad() &&
                   t.is_leaf() && autograd::is_grad_enabled();
  if (!cacheable) return t.to(dtype);
  auto [it, fresh] = t_state.cache.try_emplace(t.impl());
  if (!fresh && it->second.first.lock() == t.shared_impl()) return it->second.second;
  it->second = {t.shared_impl(), t.to(dtype)};
  return it->second.second;
}

}  // namespace ember::autocast
