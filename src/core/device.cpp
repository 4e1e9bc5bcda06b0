#include "ember/device.h"

#include <charconv>

#include "ember/errors.h"

namespace ember {

std::string_view device_type_name(DeviceType t) { return t == DeviceType::CPU ? "cpu" : "cuda"; }

Device::Device(std::string_view spec) {
  std::string_view type_part = spec;
  auto colon = spec.find(':');
  if (colon != std::string_view::npos) type_part = spec.substr(0, colon);
  if (type_part == "cpu") {
    type = DeviceType::CPU;
  } else if (type_part == "cuda") {
    type = DeviceType::CUDA;
  } else {
    throw Error(ember::str("Expected one of cpu, cuda device type at start of device string: ", spec));
  }
  if (colon == std::string_view::npos) return;
  std::string_view idx = spec.substr(colon + 1);
  int value = -1;
  auto [end, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), value);
  EMBER_CHECK(ec == std::errc() && end == idx.data() + idx.size() && !idx.empty() && idx[0] != '-' &&
                  value < 128,
              Error, "Invalid device string: '", spec, "'");
  index = int8_t(value);
}

std::string Device::str() const {
  std::string s(device_type_name(type));
  if (has_index()) s.append(":").append(std::to_string(index));
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
