// safetensors: an 8-byte little-endian header length, a JSON header (per tensor: dtype, shape, data_offsets
// relative to the data; "__metadata__": str -> str), space-padded to 8 bytes, then the tensors' bytes.
#include <algorithm>
#include <cstring>

#include "zip.h"

namespace ember::serialize {
namespace {

constexpr uint64_t kMaxHeader = 100'000'000;

[[noreturn]] void bad_header(const std::string& why) { throw Error("Error while deserializing header: " + why); }

// A JSON reader for the header: objects, arrays, strings, non-negative integers.
struct Json {
  enum Type { Object, Array, String, Number, Other } type = Other;
  std::vector<std::pair<std::string, Json>> members;
  std::vector<Json> elements;
  std::string text;
  uint64_t number = 0;
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}
  Json document() {
    Json j = value(0);
    ws();
    if (p_ != s_.size()) bad_header("trailing characters after the JSON header");
    return j;
  }

 private:
  void ws() { while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t')) ++p_; }
  char peek() { ws(); if (p_ >= s_.size()) bad_header("unexpected end of the JSON header"); return s_[p_]; }
  void expect(char c) {
    if (peek() != c) bad_header(str("expected '", c, "' at byte ", p_, " of the JSON header"));
    ++p_;
  }
  Json value(int depth) {
    if (depth > 64) bad_header("JSON nested too deep");
    Json j;
    char c = peek();
    if (c == '{') {
      j.type = Json::Object;
      ++p_;
      if (peek() == '}') { ++p_; return j; }
      while (true) {
        std::string k = string();
        expect(':');
        j.members.emplace_back(std::move(k), value(depth + 1));
        if (peek() == ',') { ++p_; continue; }
        expect('}');
        return j;
      }
    }
    if (c == '[') {
      j.type = Json::Array;
      ++p_;
      if (peek() == ']') { ++p_; return j; }
      while (true) {
        j.elements.push_back(value(depth + 1));
        if (peek() == ',') { ++p_; continue; }
        expect(']');
        return j;
      }
    }
    if (c == '"') { j.type = Json::String; j.text = string(); return j; }
    if (c >= '0' && c <= '9') {
      j.type = Json::Number;
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
        if (j.number > (UINT64_MAX - 9) / 10) bad_header("a number in the JSON header is too large");
        j.number = j.number * 10 + uint64_t(s_[p_++] - '0');
      }
      if (p_ < s_.size() && (s_[p_] == '.' || s_[p_] == 'e' || s_[p_] == 'E')) bad_header("non-integer number in the header");
      return j;
    }
    for (std::string_view word : {"true", "false", "null"})
      if (s_.substr(p_, word.size()) == word) { p_ += word.size(); return j; }
    bad_header(str("unexpected character at byte ", p_, " of the JSON header"));
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (p_ >= s_.size()) bad_header("unterminated string in the JSON header");
      char c = s_[p_++];
      if (c == '"') return out;
      if (c != '\\') { out += c; continue; }
      if (p_ >= s_.size()) bad_header("unterminated string in the JSON header");
      char e = s_[p_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(p_, 2) == "\\u") {
            p_ += 2;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: out += e;  // \" \\ \/
      }
    }
  }
  uint32_t hex4() {
    if (s_.size() - p_ < 4) bad_header("bad \\u escape in the JSON header");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char h = s_[p_++];
      int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) bad_header("bad \\u escape in the JSON header");
      v = v << 4 | uint32_t(d);
    }
    return v;
  }
  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) out += char(cp);
    else if (cp < 0x800) { out += char(0xC0 | cp >> 6); out += char(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) { out += char(0xE0 | cp >> 12); out += char(0x80 | (cp >> 6 & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
    else { out += char(0xF0 | cp >> 18); out += char(0x80 | (cp >> 12 & 0x3F)); out += char(0x80 | (cp >> 6 & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
  }
  std::string_view s_;
  size_t p_ = 0;
};

void json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    const char* short_escape = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t"
                             : c == '\r' ? "\\r" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : nullptr;
    if (short_escape) out += short_escape;
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); out += b; }
    else out += char(c);
  }
  out += '"';
}

}  // namespace

// The safetensors package's dtype ranking, by ScalarType (quantized dtypes, the last three, have no name there).
constexpr int kSafetensorsRank[] = {0, 1, 2, 5, 8, 11, 6, 7, 9, 10, 4, 3};

const char* safetensors_dtype(ScalarType t) {
  static const char* names[] = {"BOOL", "U8", "I8", "I16", "I32", "I64", "F16", "BF16", "F32", "F64", "F8_E4M3", "F8_E5M2"};
  return names[int(t)];
}

void save_safetensors(const TensorMap& tensors, const Sink& sink, const Metadata& metadata) {
  // The safetensors package's order: by its dtype ranking (kSafetensorsRank), highest first, then by name.
  // Shared or strided tensors are refused.
  std::vector<const std::pair<std::string, Tensor>*> order;
  for (const auto& e : tensors) {
    const Tensor& t = e.second;
    EMBER_CHECK(!t.is_quantized(), ValueError, "safetensors has no quantized dtypes: `", e.first, "` is torch.",
                dtype_name(t.dtype()), "; save its int_repr() and its scale and zero point");
    EMBER_CHECK(t.is_contiguous(), ValueError, "You are trying to save a non contiguous tensor: `", e.first,
                "` which is not allowed. Call `.contiguous()` on it before saving.");
    for (const auto* o : order)
      if (o->first == e.first) throw ValueError(str("the tensor name `", e.first, "` appears twice"));
    order.push_back(&e);
  }
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const Tensor &a = order[i]->second, &b = order[j]->second;
      if (a.nbytes() && b.nbytes() && a.storage().is_alias_of(b.storage()))
        throw Error(str("Some tensors share memory, this will lead to duplicate memory on disk and potential differences "
                        "when loading them again: [{'", order[j]->first, "', '", order[i]->first, "'}]. Save clones."));
    }
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    int ra = kSafetensorsRank[int(a->second.dtype())], rb = kSafetensorsRank[int(b->second.dtype())];
    return ra != rb ? ra > rb : a->first < b->first;
  });
  std::string h = "{";
  if (!metadata.empty()) {
    h += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      if (i) h += ',';
      json_string(h, metadata[i].first);
      h += ':';
      json_string(h, metadata[i].second);
    }
    h += "},";
  }
  uint64_t offset = 0;
  for (const auto* e : order) {
    const Tensor& t = e->second;
    json_string(h, e->first);
    h += str(":{\"dtype\":\"", safetensors_dtype(t.dtype()), "\",\"shape\":[");
    for (int64_t d = 0; d < t.dim(); ++d) h += str(d ? "," : "", t.size(d));
    h += str("],\"data_offsets\":[", offset, ",", offset + t.nbytes(), "]},");
    offset += t.nbytes();
  }
  if (h.size() > 1) h.pop_back();
  h += '}';
  h.append((8 - h.size() % 8) % 8, ' ');
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = char(uint64_t(h.size()) >> (8 * i) & 0xFF);
  sink(len, 8);
  sink(h.data(), h.size());
  for (const auto* e : order) {
    Tensor t = e->second.device() == kCPU ? e->second : e->second.to(kCPU);
    if (t.nbytes()) sink(t.data_ptr(), t.nbytes());
  }
}

void save_safetensors(const TensorMap& tensors, const std::string& path, const Metadata& metadata) {
  detail::write_atomically(path, [&](const Sink& sink) { save_safetensors(tensors, sink, metadata); });
}

SafetensorsFile::SafetensorsFile(std::unique_ptr<Source> source) : source_(std::move(source)) {
  const uint64_t size = source_->size();
  if (size < 8) bad_header("header too small");
  unsigned char len[8];
  source_->read(0, len, 8);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(len[i]) << (8 * i);
  if (n > kMaxHeader) bad_header(str("header too large (", n, " bytes)"));
  if (n > size - 8) bad_header(str("invalid header length (", n, " bytes in a file of ", size, ")"));
  std::string text(size_t(n), '\0');
  source_->read(8, text.data(), text.size());
  if (text.empty() || text[0] != '{') bad_header("the header is not a JSON object");
  Json doc = JsonParser(text).document();
  const uint64_t data_start = 8 + n, data_size = size - data_start;
  for (auto& [name, j] : doc.members) {
    if (name == "__metadata__") {
      if (j.type != Json::Object) bad_header("__metadata__ is not an object");
      for (auto& [k, v] : j.members) {
        if (v.type != Json::String) bad_header("__metadata__ values must be strings");
        metadata_.emplace_back(k, v.text);
      }
      continue;
    }
    const Json *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
    for (auto& [k, v] : j.members) {
      if (k == "dtype") dtype = &v;
      else if (k == "shape") shape = &v;
      else if (k == "data_offsets") offsets = &v;
    }
    if (j.type != Json::Object || !dtype || !shape || !offsets || dtype->type != Json::String ||
        shape->type != Json::Array || offsets->type != Json::Array || offsets->elements.size() != 2)
      bad_header("tensor '" + name + "' needs a dtype, a shape and two data_offsets");
    Entry e{name, kFloat32, {}, offsets->elements[0].number, offsets->elements[1].number};
    int t = 0;
    while (t < int(kQInt8) && dtype->text != safetensors_dtype(ScalarType(t))) ++t;
    if (t == int(kQInt8)) {
      bad_header("tensor '" + name + "' has dtype " + dtype->text + ", which ember does not support");
    }
    e.dtype = ScalarType(t);
    // Its size in bytes; the product of its non-zero dims must fit in int64 (so its strides do).
    __int128 bytes = element_size(e.dtype), span = 1;
    for (const Json& d : shape->elements) {
      if (d.type != Json::Number || d.number > uint64_t(INT64_MAX)) bad_header("tensor '" + name + "' has a bad shape");
      e.shape.push_back(int64_t(d.number));
      bytes = d.number ? bytes : 0;
      span *= d.number ? d.number : 1;
      if (span > INT64_MAX) bad_header("tensor '" + name + "' has a shape too large");
    }
    bytes *= span;
    if (offsets->elements[0].type != Json::Number || offsets->elements[1].type != Json::Number || e.end < e.begin ||
        __int128(e.end - e.begin) != bytes)
      bad_header(str("tensor '", name, "': its data_offsets [", e.begin, ", ", e.end, "] do not hold its shape and dtype"));
    entries_.push_back(std::move(e));
  }
  // The tensors must tile the data exactly, without gaps or overlaps.
  std::vector<const Entry*> by_offset;
  for (const Entry& e : entries_) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  uint64_t at = 0;
  for (const Entry* e : by_offset) {
    if (e->begin != at) bad_header(str("tensor '", e->name, "' starts at ", e->begin, ", not at ", at, " (gap or overlap)"));
    at = e->end;
  }
  if (at != data_size) bad_header(str("the tensors cover ", at, " bytes but the file holds ", data_size, " bytes of data"));
  for (Entry& e : entries_) { e.begin += data_start; e.end += data_start; }
}

const SafetensorsFile::Entry& SafetensorsFile::entry(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e;
  throw Error("File does not contain tensor " + name);
}

Tensor SafetensorsFile::tensor(const std::string& name) const {
  const Entry& e = entry(name);
  DimVector strides(e.shape.size());
  int64_t s = 1;
  for (size_t i = e.shape.size(); i-- > 0;) { strides[i] = s; s *= e.shape[i]; }
  return Tensor::make(source_->storage(e.begin, size_t(e.end - e.begin)), e.shape, strides, 0, e.dtype);
}

TensorMap SafetensorsFile::tensors() const {
  TensorMap out;
  for (const Entry& e : entries_) out.emplace_back(e.name, tensor(e.name));
  return out;
}

TensorMap load_safetensors(const std::string& path) { return SafetensorsFile(Source::from_file(path)).tensors(); }

}  // namespace ember::serialize
