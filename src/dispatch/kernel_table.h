// The seam between the device-neutral op layer (src/ops) and the backends (src/cpu, later src/cuda):
// one small table per kernel family, keyed by device type. A backend fills its column when the library
// loads (src/cpu/register_kernels.cpp); an op looks its kernel up by the device of its tensors.
#pragma once
#include <array>

#include "ember/device.h"
#include "ember/errors.h"
#include "ember/str.h"

namespace ember {

template <typename Fn>
class KernelTable {
 public:
  constexpr explicit KernelTable(const char* family) : family_(family) {}

  void set(DeviceType d, Fn fn) { fns_[size_t(d)] = fn; }

  // The kernel for device type `d`; NotImplementedError where the backend has none.
  Fn operator[](DeviceType d) const {
    Fn fn = fns_[size_t(d)];
    if (!fn) throw NotImplementedError(str("no ", family_, " kernel for device type ", device_type_name(d)));
    return fn;
  }
  Fn operator[](Device d) const { return (*this)[d.type]; }

 private:
  const char* family_;
  std::array<Fn, kDeviceTypes> fns_{};
};

}  // namespace ember
