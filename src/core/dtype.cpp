#include "ember/dtype.h"

#include <atomic>

#include "ember/str.h"

namespace ember {

const DTypeInfo& dtype_info(ScalarType t) {
  static const DTypeInfo table[kNumScalarTypes] = {
      {"bool", "Bool", "bool", 1, false, false},
      {"uint8", "Byte", "unsigned char", 1, false, false},
      {"int8", "Char", "signed char", 1, false, true},
      {"int16", "Short", "short int", 2, false, true},
      {"int32", "Int", "int", 4, false, true},
      {"int64", "Long", "long int", 8, false, true},
      {"float16", "Half", "c10::Half", 2, true, true},
      {"bfloat16", "BFloat16", "c10::BFloat16", 2, true, true},
      {"float32", "Float", "float", 4, true, true},
      {"float64", "Double", "double", 8, true, true},
      {"float8_e4m3fn", "Float8_e4m3fn", "c10::Float8_e4m3fn", 1, true, true},
      {"float8_e5m2", "Float8_e5m2", "c10::Float8_e5m2", 1, true, true},
      {"qint8", "QInt8", "c10::qint8", 1, false, true},
      {"quint8", "QUInt8", "c10::quint8", 1, false, false},
      {"qint32", "QInt32", "c10::qint32", 4, false, true},
  };
  return table[int(t)];
}

void throw_quantized_unsupported(ScalarType t) {
  throw NotImplementedError(str("this operation does not support quantized tensors (dtype torch.", dtype_name(t),
                                "): dequantize() the tensor first"));
}

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat32};
}

ScalarType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  EMBER_CHECK(t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBFloat16, TypeError,
              "only floating-point types are supported as the default type");
  g_default_dtype.store(t);
}

}  // namespace ember
