// Device: a device type and an optional index ("cpu", "cuda", "cuda:1").
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
inline constexpr size_t kDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: no index given ("cuda" means the current device)

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  Device(std::string_view spec);  // parses "cpu", "cuda", "cuda:1"
  Device(const char* spec) : Device(std::string_view(spec)) {}
  Device(const std::string& spec) : Device(std::string_view(spec)) {}

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool has_index() const { return index >= 0; }
  std::string str() const;  // "cpu", "cuda:0"
  bool operator==(const Device&) const = default;
};

std::string_view device_type_name(DeviceType t);
std::ostream& operator<<(std::ostream& os, const Device& d);

inline constexpr Device kCPU{DeviceType::CPU};

}  // namespace ember
