// DimVector: sizes/strides with inline room for 6 dims, so most tensors need no heap allocation.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace ember {

// A non-owning view of int64 values: sizes, strides, dims. Built from a brace list
// ({2, 3}, valid for the call it is passed to), a vector, a DimVector or a pointer and length.
class IntArrayRef {
 public:
  constexpr IntArrayRef() = default;
  constexpr IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
  // Views the list's array, which lives until the end of the call it is written in.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr IntArrayRef(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}
#pragma GCC diagnostic pop
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  // One value (x.sum(1)), as c10::ArrayRef: valid for the call it is passed to.
  constexpr IntArrayRef(const int64_t& one) : data_(&one), size_(1) {}
  constexpr IntArrayRef(std::span<const int64_t> s) : data_(s.data()), size_(s.size()) {}

  constexpr const int64_t* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const int64_t* begin() const { return data_; }
  constexpr const int64_t* end() const { return data_ + size_; }
  constexpr int64_t operator[](size_t i) const { return data_[i]; }
  constexpr int64_t front() const { return data_[0]; }
  constexpr int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

class DimVector {
 public:
  static constexpr size_t kInline = 6;

  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { resize(n, value); }
  DimVector(std::initializer_list<int64_t> l) { assign(l.begin(), l.size()); }
  DimVector(IntArrayRef r) { assign(r.data(), r.size()); }
  DimVector(const DimVector& o) { assign(o.data(), o.size()); }
  DimVector(DimVector&& o) noexcept { steal(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) { heap_.reset(); steal(o); }
    return *this;
  }

  int64_t* data() { return heap_ ? heap_.get() : inline_; }
  const int64_t* data() const { return heap_ ? heap_.get() : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t& back() { return data()[size_ - 1]; }
  operator IntArrayRef() const { return {data(), size_}; }

  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data()[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    int64_t* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - pos) * sizeof(int64_t));
    d[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    int64_t* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(int64_t));
    --size_;
  }
  bool operator==(const DimVector& o) const {
    return size_ == o.size_ && (size_ == 0 || std::memcmp(data(), o.data(), size_t(size_) * sizeof(int64_t)) == 0);
  }

 private:
  void reserve(size_t n) {
    if (n <= capacity_) return;
    size_t cap = std::max(n, capacity_ * 2);
    std::unique_ptr<int64_t[]> h(new int64_t[cap]);
    std::memcpy(h.get(), data(), size_ * sizeof(int64_t));
    heap_ = std::move(h);
    capacity_ = cap;
  }
  void assign(const int64_t* p, size_t n) {
    if (n > capacity_) { heap_.reset(); capacity_ = kInline; reserve(n); }
    if (n != 0) std::memmove(data(), p, n * sizeof(int64_t));  // p may be null when n is 0
    size_ = n;
  }
  void steal(DimVector& o) {
    size_ = o.size_;
    capacity_ = o.capacity_;
    if (o.heap_) heap_ = std::move(o.heap_);
    else std::memcpy(inline_, o.inline_, size_ * sizeof(int64_t));
    o.size_ = 0;
    o.capacity_ = kInline;
  }

  int64_t inline_[kInline];
  std::unique_ptr<int64_t[]> heap_;
  size_t size_ = 0;
  size_t capacity_ = kInline;
};

// An optional dim list, as torch's `int[]? dim`: none (every dim), or a list, which may be empty.
class OptionalIntArrayRef {
 public:
  constexpr OptionalIntArrayRef() = default;
  constexpr OptionalIntArrayRef(std::nullopt_t) {}
  constexpr OptionalIntArrayRef(IntArrayRef r) : value_(r), has_value_(true) {}
  constexpr OptionalIntArrayRef(const int64_t& one) : OptionalIntArrayRef(IntArrayRef(one)) {}
  OptionalIntArrayRef(const DimVector& v) : OptionalIntArrayRef(IntArrayRef(v)) {}
  OptionalIntArrayRef(const std::vector<int64_t>& v) : OptionalIntArrayRef(IntArrayRef(v)) {}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr OptionalIntArrayRef(std::initializer_list<int64_t> l) : OptionalIntArrayRef(IntArrayRef(l)) {}
#pragma GCC diagnostic pop

  constexpr bool has_value() const { return has_value_; }
  constexpr IntArrayRef operator*() const { return value_; }

 private:
  IntArrayRef value_;
  bool has_value_ = false;
};

}  // namespace ember
