// serialize::Value and the sources load reads from.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/serialize.h"

namespace ember::serialize {

Value Value::sequence(Kind kind, Items items) {
  Value v;
  v.kind_ = kind;
  v.items_ = std::make_shared<Items>(std::move(items));
  return v;
}

Value Value::mapping(Kind kind, Entries entries) {
  Value v;
  v.kind_ = kind;
  v.entries_ = std::make_shared<Entries>(std::move(entries));
  return v;
}

const void* Value::identity() const {
  if (items_) return items_.get();
  if (entries_) return entries_.get();
  if (str_) return str_.get();
  return tensor_.defined() ? tensor_.impl() : nullptr;
}

const char* Value::kind_name(Kind k) {
  static const char* names[] = {"None", "bool", "int", "float", "str", "bytes", "dtype",
                                "Tensor", "list", "tuple", "Size", "dict", "OrderedDict"};
  return names[int(k)];
}

namespace {
[[noreturn]] void wrong_kind(Value::Kind have, const char* want) {
  throw TypeError(str("expected a ", want, " in the checkpoint but found a ", Value::kind_name(have)));
}
}  // namespace

bool Value::to_bool() const {
  if (kind_ != Kind::Bool) wrong_kind(kind_, "bool");
  return int_ != 0;
}
int64_t Value::to_int() const {
  if (kind_ != Kind::Int) wrong_kind(kind_, "int");
  return int_;
}
double Value::to_double() const {
  if (kind_ == Kind::Int) return double(int_);
  if (kind_ != Kind::Double) wrong_kind(kind_, "float");
  return double_;
}
const std::string& Value::to_string() const {
  if (kind_ != Kind::String && kind_ != Kind::Bytes) wrong_kind(kind_, "str");
  return *str_;
}
ScalarType Value::to_dtype() const {
  if (kind_ != Kind::Dtype) wrong_kind(kind_, "dtype");
  return ScalarType(int_);
}
const Tensor& Value::to_tensor() const {
  if (kind_ != Kind::Tensor) wrong_kind(kind_, "Tensor");
  return tensor_;
}
const Value::Items& Value::items() const {
  if (!is_sequence()) wrong_kind(kind_, "list or tuple");
  return *items_;
}
Value::Items& Value::items() {
  if (!is_sequence()) wrong_kind(kind_, "list or tuple");
  return *items_;
}
const Value::Entries& Value::entries() const {
  if (!is_mapping()) wrong_kind(kind_, "dict");
  return *entries_;
}
Value::Entries& Value::entries() {
  if (!is_mapping()) wrong_kind(kind_, "dict");
  return *entries_;
}
const Value* Value::find(const std::string& key) const {
  for (const auto& [k, v] : entries())
    if (k.is(Kind::String) && *k.str_ == key) return &v;
  return nullptr;
}

// ---- sources

Storage Source::storage(uint64_t offset, size_t n) const {
  if (Storage v = view(offset, n); v.defined()) return v;
  Storage s = Storage::allocate(n, kCPU);
  if (n) read(offset, s.data(), n);
  return s;
}

namespace {

[[noreturn]] void truncated() { throw Error("PytorchStreamReader failed reading file: unexpected end of file"); }

class MemorySource : public Source {
 public:
  MemorySource(const void* data, size_t n) : data_(static_cast<const char*>(data)), n_(n) {}
  uint64_t size() const override { return n_; }
  void read(uint64_t offset, void* dst, size_t n) const override {
    if (offset > n_ || n > n_ - offset) truncated();
    if (n) std::memcpy(dst, data_ + offset, n);
  }

 private:
  const char* data_;
  size_t n_;
};

// A file read with pread; mapped once (copy-on-write) when storages are to view it.
class FileSource : public Source {
 public:
  FileSource(const std::string& path, bool map) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail("open");
    try {
      init(map);
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  ~FileSource() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, size_t n) const override {
    if (offset > size_ || n > size_ - offset) truncated();
    for (size_t done = 0; done < n;) {
      ssize_t r = ::pread(fd_, static_cast<char*>(dst) + done, n - done, off_t(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) r < 0 ? fail("read") : truncated();
      done += size_t(r);
    }
  }
  Storage view(uint64_t offset, size_t n) const override {
    if (!mapping_ || n == 0) return {};
    if (offset > size_ || n > size_ - offset) truncated();
    auto* keep = new std::shared_ptr<void>(mapping_);
    char* p = static_cast<char*>(mapping_.get()) + offset;
    return Storage::borrow(DataPtr(p, keep, [](void* k) { delete static_cast<std::shared_ptr<void>*>(k); }, kCPU), n);
  }

 private:
  // Size, and the mapping when asked for.
  void init(bool map) {
    struct stat st;
    if (::fstat(fd_, &st) != 0) fail("stat");
    if (S_ISDIR(st.st_mode)) { errno = EISDIR; fail("open"); }
    size_ = uint64_t(st.st_size);
    if (map && size_) {
      void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) fail("mmap");
      mapping_ = std::shared_ptr<void>(p, [n = size_](void* q) { ::munmap(q, n); });
    }
  }
  [[noreturn]] void fail(const char* what) const {
    int e = errno;
    throw Error(str("[Errno ", e, "] ", std::strerror(e), ": '", path_, "' (", what, ")"));
  }
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::shared_ptr<void> mapping_;
};

}  // namespace

std::unique_ptr<Source> Source::from_memory(const void* data, size_t n) {
  return std::make_unique<MemorySource>(data, n);
}
std::unique_ptr<Source> Source::from_file(const std::string& path, bool mmap) {
  return std::make_unique<FileSource>(path, mmap);
}

}  // namespace ember::serialize
