// Saving and loading: torch's checkpoint format (a zip of a pickle plus raw storages) and safetensors.
// Loading never runs code: the unpickler admits only tensors, storages, dtypes and plain containers.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"
#include "ember/tensor.h"

namespace ember {

// A pickle the restricted unpickler refuses (Python's pickle.UnpicklingError).
struct UnpicklingError : Error { using Error::Error; };

namespace serialize {

// What a checkpoint holds: None, bool, int, float, str, bytes, dtype, tensor, and list / tuple / Size /
// dict / OrderedDict of these (dict keys are any of the scalars). Containers are shared on copy, as
// Python's objects are (the unpickler's memo refers to the same list the stack holds).
class Value {
 public:
  enum class Kind : uint8_t { None, Bool, Int, Double, String, Bytes, Dtype, Tensor, List, Tuple, Size, Dict, OrderedDict };
  using Items = std::vector<Value>;
  using Entries = std::vector<std::pair<Value, Value>>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : kind_(Kind::Bool), int_(b) {}
  Value(int v) : kind_(Kind::Int), int_(v) {}
  Value(int64_t v) : kind_(Kind::Int), int_(v) {}
  Value(double v) : kind_(Kind::Double), double_(v) {}
  Value(std::string s) : kind_(Kind::String), str_(std::make_shared<const std::string>(std::move(s))) {}
  Value(const char* s) : Value(std::string(s)) {}
  Value(ScalarType t) : kind_(Kind::Dtype), int_(int64_t(t)) {}
  Value(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}
  static Value bytes(std::string b) { Value v(std::move(b)); v.kind_ = Kind::Bytes; return v; }
  // A list, tuple or Size (a tuple of ints) of `items`.
  static Value sequence(Kind kind, Items items = {});
  // A dict or OrderedDict of `entries`, in order.
  static Value mapping(Kind kind, Entries entries = {});
  static Value list(Items items = {}) { return sequence(Kind::List, std::move(items)); }
  static Value tuple(Items items = {}) { return sequence(Kind::Tuple, std::move(items)); }
  static Value dict(Entries entries = {}) { return mapping(Kind::Dict, std::move(entries)); }
  static Value ordered_dict(Entries entries = {}) { return mapping(Kind::OrderedDict, std::move(entries)); }

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_sequence() const { return kind_ == Kind::List || kind_ == Kind::Tuple || kind_ == Kind::Size; }
  bool is_mapping() const { return kind_ == Kind::Dict || kind_ == Kind::OrderedDict; }
  // Accessors raise a TypeError naming the kind held when it is another.
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;  // an int converts
  const std::string& to_string() const;  // str or bytes
  ScalarType to_dtype() const;
  const Tensor& to_tensor() const;
  const Items& items() const;
  Items& items();
  const Entries& entries() const;
  Entries& entries();
  // The value of a mapping's str key; nullptr when absent.
  const Value* find(const std::string& key) const;
  // What copies of this value share (a container, string or tensor); null for the other scalars.
  const void* identity() const;
  // Python's name of the kind ("int", "OrderedDict").
  static const char* kind_name(Kind k);

 private:
  Kind kind_ = Kind::None;
  int64_t int_ = 0;
  double double_ = 0;
  std::shared_ptr<const std::string> str_;
  Tensor tensor_;
  std::shared_ptr<Items> items_;
  std::shared_ptr<Entries> entries_;
};

// Where save writes: called with consecutive pieces of the file (it may keep no pointer past the call),
// one call at a time but not always on the calling thread (a pool thread writes while another computes CRCs).
using Sink = std::function<void(const void* data, size_t n)>;
// Where load reads: a file, or bytes in memory.
class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  // Copies [offset, offset + n) into dst; raises when the source is shorter.
  virtual void read(uint64_t offset, void* dst, size_t n) const = 0;
  // A storage viewing bytes [offset, offset + n) (a mapped file's, kept alive by it), or an undefined one
  // when the source cannot be viewed.
  virtual Storage view(uint64_t offset, size_t n) const { return {}; }
  // A storage of bytes [offset, offset + n): the view, else a copy.
  Storage storage(uint64_t offset, size_t n) const;
  static std::unique_ptr<Source> from_memory(const void* data, size_t n);  // borrowed: must outlive the load
  // A file; with `mmap`, storages view a private copy-on-write mapping of it (torch.load(mmap=True)).
  static std::unique_ptr<Source> from_file(const std::string& path, bool mmap = false);
};

struct LoadOptions {
  // Maps a saved location ("cpu", "cuda:0") to the device its storages load onto; unset keeps the
  // saved location (a device this build lacks raises).
  std::function<Device(const std::string& location)> map_location;
};

// torch.save's format: `archive` names the record folder (torch uses the file's stem, "archive" for streams).
void save(const Value& value, const Sink& sink, const std::string& archive = "archive");
// Writes `path` atomically: a temporary file in the same folder, renamed over `path` once complete.
void save(const Value& value, const std::string& path);
Value load(const Source& source, const LoadOptions& options = {});
Value load(const std::string& path, const LoadOptions& options = {});

// safetensors: a JSON header (names, dtypes, shapes, offsets, string metadata) and the raw tensors.
using TensorMap = std::vector<std::pair<std::string, Tensor>>;
using Metadata = std::vector<std::pair<std::string, std::string>>;
void save_safetensors(const TensorMap& tensors, const Sink& sink, const Metadata& metadata = {});
void save_safetensors(const TensorMap& tensors, const std::string& path, const Metadata& metadata = {});
// A parsed safetensors file: entries in file order, each read (or viewed, for a mapped file) on demand.
class SafetensorsFile {
 public:
  struct Entry {
    std::string name;
    ScalarType dtype;
    DimVector shape;
    uint64_t begin, end;  // byte range in the file
  };
  explicit SafetensorsFile(std::unique_ptr<Source> source);
  const std::vector<Entry>& entries() const { return entries_; }
  const Metadata& metadata() const { return metadata_; }
  const Entry& entry(const std::string& name) const;  // raises for an unknown name
  Tensor tensor(const std::string& name) const;
  TensorMap tensors() const;

 private:
  std::unique_ptr<Source> source_;
  std::vector<Entry> entries_;
  Metadata metadata_;
};
TensorMap load_safetensors(const std::string& path);
// safetensors' name of a dtype ("F32", "BF16").
const char* safetensors_dtype(ScalarType t);

// A module's state dict as torch saves it (an OrderedDict of name -> tensor), and back.
Value state_dict_value(const nn::StateDict& state);
nn::StateDict state_dict_from_value(const Value& value);
// libtorch's torch::save(module, path) / torch::load(module, path), in the format Python's
// torch.save(module.state_dict(), path) writes: the state dict to `path`, and loaded back into `module` (strict).
void save(const nn::Module& module, const std::string& path);
void load(nn::Module& module, const std::string& path, const LoadOptions& options = {});

}  // namespace serialize

using serialize::load;
using serialize::save;

}  // namespace ember
