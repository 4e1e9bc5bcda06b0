#pragma once
// Autocast hooks for op entries (docs/design.md, "Automatic mixed precision"): a listed op begins with
//   EMBER_AUTOCAST(lower, kBoth, mm, a, b);
// which, only while autocast is on for the inputs' device, re-enters the op with its floating inputs cast and
// autocast off for the ops it calls. With autocast off the cost is one thread-local byte test.
#include "ember/autocast.h"
#include "ember/tensor.h"

#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace ember::autocast {

namespace detail {
// Bit (1 << DeviceType) set while autocast is enabled for that device and not suspended inside a listed op.
extern thread_local uint8_t t_active __attribute__((visibility("hidden")));
}  // namespace detail

inline bool active() { return detail::t_active != 0; }

// Which of torch's op lists name the op: the CPU list, the CUDA list, or both.
enum Lists : uint8_t { kCPU = 1 << int(DeviceType::CPU), kCUDA = 1 << int(DeviceType::CUDA), kBoth = kCPU | kCUDA };

// Suspends autocast for the ops a listed op calls (torch excludes its autocast key there).
class Suspend {
 public:
  Suspend() : saved_(detail::t_active) { detail::t_active = 0; }
  ~Suspend() { detail::t_active = saved_; }
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  uint8_t saved_;
};

// A floating tensor (not float64) on `device`: what autocast casts.
bool eligible(const Tensor& t, DeviceType device);
// t cast to dtype (autograd's ToCopyBackward0), from the weight cache for leaves requiring grad.
Tensor cast(const Tensor& t, ScalarType dtype, DeviceType device);

// The device an op autocasts for (its first tensor's), or nullopt when autocast is off for it or lists omit it.
template <class... Args>
std::optional<DeviceType> device_of(Lists lists, const Args&... args) {
  std::optional<Device> dev;
  auto see = [&](const auto& a) {
    using T = std::decay_t<decltype(a)>;
    if (dev) return;
    if constexpr (std::is_same_v<T, Tensor>) {
      if (a.defined()) dev = a.device();
    } else if constexpr (std::is_same_v<T, std::optional<Tensor>>) {
      if (a && a->defined()) dev = a->device();
    } else if constexpr (std::is_convertible_v<const T&, std::span<const Tensor>>) {
      for (const Tensor& t : std::span<const Tensor>(a))
        if (!dev && t.defined()) dev = t.device();
    }
  };
  (see(args), ...);
  if (!dev) return std::nullopt;
  uint8_t bit = uint8_t(1u << int(dev->type));
  if (!(detail::t_active & lists & bit)) return std::nullopt;
  return dev->type;
}

// Applies `f` to each tensor of an argument (Tensor, optional Tensor, tensor list); other arguments pass through.
template <class T, class F>
decltype(auto) map_tensors(const T& a, F&& f) {
  if constexpr (std::is_same_v<T, Tensor>) {
    return a.defined() ? f(a) : a;
  } else if constexpr (std::is_same_v<T, std::optional<Tensor>>) {
    return a && a->defined() ? std::optional<Tensor>(f(*a)) : a;
  } else if constexpr (std::is_convertible_v<const T&, std::span<const Tensor>> && !std::is_same_v<T, IntArrayRef>) {
    std::vector<Tensor> out;
    for (const Tensor& t : std::span<const Tensor>(a)) out.push_back(t.defined() ? f(t) : t);
    return out;
  } else {
    return (a);
  }
}

// Calls op with every eligible tensor argument cast to `dtype` (none cast for nullopt), autocast suspended.
template <class Op, class... Args>
auto call_cast(std::optional<ScalarType> dtype, DeviceType device, Op&& op, const Args&... args) {
  auto to = [&](const Tensor& t) {
    return dtype && eligible(t, device) && t.dtype() != *dtype ? cast(t, *dtype, device) : t;
  };
  Suspend suspend;
  return op(map_tensors(args, to)...);
}

// torch's promote policy step: float32 wins; two different lower-precision types raise.
ScalarType prioritize(ScalarType current, ScalarType next);

// The widest floating type among the eligible inputs, starting from the autocast dtype (torch's promote policy).
template <class... Args>
ScalarType widest(DeviceType device, const Args&... args) {
  ScalarType wide = get_dtype(device);
  auto see = [&](const Tensor& t) {
    if (eligible(t, device)) wide = prioritize(wide, t.dtype());
    return t;
  };
  (map_tensors(args, see), ...);
  return wide;
}

}  // namespace ember::autocast

// policy: lower (the autocast dtype), fp32 (float32), promote (the widest input type), or keep: no casts, for an
// op torch does not list but Ember composes of listed ones (its parts then keep the inputs' dtypes, as torch's).
#define EMBER_AUTOCAST(policy, lists, op, ...)                                                             \
  if (::ember::autocast::active()) [[unlikely]] {                                                          \
    if (auto ac_device = ::ember::autocast::device_of(::ember::autocast::lists, __VA_ARGS__))              \
      return ::ember::autocast::call_cast(EMBER_AUTOCAST_DTYPE_##policy(*ac_device, __VA_ARGS__), *ac_device, \
                                          [&](const auto&... ac_args) { return op(ac_args...); }, __VA_ARGS__); \
  }
#define EMBER_AUTOCAST_DTYPE_lower(device, ...) ::ember::autocast::get_dtype(device)
#define EMBER_AUTOCAST_DTYPE_fp32(device, ...) ::ember::kFloat32
#define EMBER_AUTOCAST_DTYPE_promote(device, ...) ::ember::autocast::widest(device, __VA_ARGS__)
#define EMBER_AUTOCAST_DTYPE_keep(device, ...) std::optional<::ember::ScalarType>()
// torch's fp32_set_opt_dtype policy: an op given no dtype computes in float32 for an eligible first input.
#define EMBER_AUTOCAST_FP32_DTYPE(lists, op, x, dtype, ...)                                               \
  if (::ember::autocast::active() && !(dtype)) [[unlikely]] {                                              \
    auto ac_device = ::ember::autocast::device_of(::ember::autocast::lists, x);                           \
    if (ac_device && ::ember::autocast::eligible(x, *ac_device)) {                                        \
      ::ember::autocast::Suspend ac_suspend;                                                               \
      return op(x, __VA_ARGS__, ::ember::kFloat32);                                                        \
    }                                                                                                      \
  }
