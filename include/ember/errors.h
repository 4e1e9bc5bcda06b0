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
struct KeyError : Error { using Error::Error; };           // a missing key (Python's KeyError)
struct ZeroDivisionError : Error { using Error::Error; };  // Python float arithmetic torch runs in Python
// A device this build or machine lacks (torch raises AssertionError for CUDA on CPU builds).
struct DeviceUnavailableError : Error { using Error::Error; };
// A device allocation that failed even after the cache was emptied (torch.cuda.OutOfMemoryError, a RuntimeError).
struct OutOfMemoryError : Error { using Error::Error; };
// A linear-algebra routine that failed on its input (torch.linalg.LinAlgError, a RuntimeError).
struct LinAlgError : Error { using Error::Error; };

// Warnings (torch's UserWarning): go to the installed handler; the default prints to stderr.
// The Python module installs one that raises a Python UserWarning.
using WarningHandler = void (*)(const std::string& message);
void set_warning_handler(WarningHandler handler);
void warn(const std::string& message);

}  // namespace ember

// EMBER_CHECK(cond, ExcType, msg...) throws ExcType(msg...) unless cond holds.
#define EMBER_CHECK(cond, Exc, ...) \
  do {                              \
    if (!(cond)) throw Exc(::ember::str(__VA_ARGS__)); \
  } while (0)

#include "ember/str.h"
