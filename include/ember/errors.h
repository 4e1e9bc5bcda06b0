// Exceptions: each maps to the Python exception torch raises.
#pragma once
#include <stdexcept>
#include <string>

namespace ember {

struct Error : std::runtime_error {             // RuntimeError
  using std::runtime_error::runtime_error;
};
struct IndexError : Error { using Error::Error; };
struct TypeError : Error { using Error::Error; };
struct ValueError : Error { using Error::Error; };
struct NotImplementedError : Error { using Error::Error; };
// A device this build or machine lacks (torch raises AssertionError for CUDA on CPU builds).
struct DeviceUnavailableError : Error { using Error::Error; };


}  // namespace ember

// EMBER_CHECK(cond, ExcType, msg...) throws ExcType(msg...) unless cond holds.
#define EMBER_CHECK(cond, Exc, ...) \
  do {                              \
    if (!(cond)) throw Exc(::ember::str(__VA_ARGS__)); \
  } while (0)

#include "ember/str.h"
