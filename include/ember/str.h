// ember::str(a, b, ...) builds an error message from streamable pieces.
#pragma once
#include <sstream>
#include <string>
#include <vector>
#include <cstdint>

namespace ember {

// Streams an int list the way torch prints sizes in errors: [2, 3].
struct IntList {
  const int64_t* data;
  size_t size;
};
inline std::ostream& operator<<(std::ostream& os, IntList l) {
  os << '[';
  for (size_t i = 0; i < l.size; ++i) os << (i ? ", " : "") << l.data[i];
  return os << ']';
}
// Any contiguous int64 range (IntArrayRef, DimVector, std::vector) as an IntList.
template <typename Range>
IntList int_list(const Range& r) { return {r.data(), size_t(r.size())}; }

template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
inline std::string str() { return {}; }

}  // namespace ember
