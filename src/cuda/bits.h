// Unsigned integers by element size: kernels that only move elements (copies, gathers, plain scatters) work on
// their bits, so one instantiation per size serves every dtype.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember::cuda_backend {

template <size_t Size> struct Bits;
template <> struct Bits<1> { using type = uint8_t; };
template <> struct Bits<2> { using type = uint16_t; };
template <> struct Bits<4> { using type = uint32_t; };
template <> struct Bits<8> { using type = uint64_t; };

// Calls fn(U{}) with the unsigned type of `element_size` bytes (1, 2, 4 or 8).
template <typename Fn>
void visit_bits(size_t element_size, Fn&& fn) {
  switch (element_size) {
    case 1: return fn(uint8_t{});
    case 2: return fn(uint16_t{});
    case 4: return fn(uint32_t{});
    default: return fn(uint64_t{});
  }
}

}  // namespace ember::cuda_backend
