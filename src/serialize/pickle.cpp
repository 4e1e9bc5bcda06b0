// torch's checkpoint format: data.pkl (pickle protocol 2, storages as persistent ids) and one zip
// record per storage. The unpickler is restricted: it builds only the values serialize::Value holds.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "ember/parallel.h"
#include "ember/quantized.h"
#include "ember/sparse.h"
#include "zip.h"

namespace ember::serialize {
namespace {

using detail::ZipRecord;
using Kind = Value::Kind;

constexpr int kMaxDepth = 1000;

// torch's typed storage class for a dtype ("FloatStorage"); float8 tensors use UntypedStorage.
std::string storage_class(ScalarType t) { return std::string(legacy_name(t)) + "Storage"; }

// ---------------------------------------------------------------- writer

class Pickler {
 public:
  struct StorageRecord {
    Storage storage;
    ScalarType dtype;
  };
  std::string out;
  std::vector<StorageRecord> storages;

  void dump(const Value& v) {
    out += "\x80\x02";
    write(v, 0);
    out += '.';
  }

 private:
  void put_memo(const void* key) {
    uint32_t id = next_memo_++;
    memo_[key] = id;
    if (id < 256) { out += 'q'; out += char(id); }
    else { out += 'r'; put_u32(id); }
  }
  bool get_memo(const void* key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return false;
    if (it->second < 256) { out += 'h'; out += char(it->second); }
    else { out += 'j'; put_u32(it->second); }
    return true;
  }
  void put_u32(uint32_t v) { for (int i = 0; i < 4; ++i) out += char(v >> (8 * i) & 0xFF); }
  void global(const std::string& module, const std::string& name) {
    const std::string& key = *global_names_.insert(module + "\n" + name + "\n").first;
    if (get_memo(&key)) return;
    out += 'c';
    out += key;
    put_memo(&key);
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) { out += 'K'; out += char(v); }
    else if (v >= 0 && v < 65536) { out += 'M'; out += char(v & 0xFF); out += char(v >> 8); }
    else if (v >= INT32_MIN && v <= INT32_MAX) { out += 'J'; put_u32(uint32_t(int32_t(v))); }
    else {
      // LONG1: the shortest little-endian two's complement.
      std::string b;
      for (int i = 0; i < 8; ++i) b += char(uint64_t(v) >> (8 * i) & 0xFF);
      while (b.size() > 1 && ((b.back() == 0 && !(b[b.size() - 2] & 0x80)) ||
                              (b.back() == char(0xFF) && (b[b.size() - 2] & 0x80))))
        b.pop_back();
      out += '\x8a';
      out += char(b.size());
      out += b;
    }
  }
  void text(const std::string& s) {
    EMBER_CHECK(s.size() < 0xFFFFFFFFull, ValueError, "ember.save: a string of ", s.size(), " bytes is too long");
    out += 'X';
    put_u32(uint32_t(s.size()));
    out += s;
  }
  void empty_ordered_dict() {
    global("collections", "OrderedDict");
    out += ")R";
  }
  void tuple_of(IntArrayRef v) {
    if (v.empty()) { out += ')'; return; }
    if (v.size() > 3) out += '(';
    for (int64_t x : v) integer(x);
    out += v.size() <= 3 ? "\x85\x86\x87"[v.size() - 1] : 't';
  }
  // Python's protocol-2 bytes: _codecs.encode(<the bytes as latin-1 text>, "latin1") (also when empty:
  // torch's weights_only loader refuses builtins.bytes).
  void bytes(const std::string& b) {
    global("_codecs", "encode");
    std::string latin;
    for (unsigned char c : b) {
      if (c < 0x80) latin += char(c);
      else { latin += char(0xC0 | c >> 6); latin += char(0x80 | (c & 0x3F)); }
    }
    text(latin);
    text("latin1");
    out += "\x86R";
  }
  void real(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    out += 'G';
    for (int i = 7; i >= 0; --i) out += char(bits >> (8 * i) & 0xFF);
  }
  void storage_id(const Tensor& t, bool untyped) {
    text("storage");
    if (untyped) global("torch.storage", "UntypedStorage");
    else global("torch", storage_class(t.dtype()));
    auto [key, numel] = storage_key(t, untyped);
    text(key);
    text(t.device().str());
    integer(numel);
    out += "tQ";
  }
  // torch's record of a quantized tensor: _rebuild_qtensor(storage, offset, size, stride, (scheme, params...),
  // requires_grad, hooks).
  void quantized_tensor(const Tensor& t) {
    const Quantizer& q = quantizer_of(t);
    global("torch._utils", "_rebuild_qtensor");
    out += "((";
    storage_id(t, false);
    integer(t.storage_offset());
    tuple_of(t.sizes());
    tuple_of(t.strides());
    out += '(';
    global("torch", std::string(qscheme_name(q.scheme)));
    if (q.per_channel()) {
      tensor(q.scales);
      tensor(q.zero_points);
      integer(q.axis);
    } else {
      real(q.scale);
      integer(q.zero_point);
    }
    out += "t\x89";
    empty_ordered_dict();
    out += "tR";
    put_memo(t.impl());
  }
  // torch's record of a sparse tensor: _rebuild_sparse_tensor(_get_layout("torch.sparse_coo"), (indices, values,
  // size, is_coalesced)), or (crow_indices, col_indices, values, size) for CSR; like torch, without requires_grad.
  void sparse_tensor(const Tensor& t) {
    const SparseParts& p = *t.impl()->sparse;
    global("torch._utils", "_rebuild_sparse_tensor");
    global("torch.serialization", "_get_layout");
    text("torch." + std::string(layout_name(p.layout)));
    out += "\x85R(";
    tensor(p.indices);
    if (p.layout == Layout::SparseCsr) tensor(p.col_indices);
    tensor(p.values);  // the parts themselves: the memo keys on live tensors
    write(Value::sequence(Kind::Size, size_items(t.sizes())), 0);
    if (p.layout == Layout::SparseCoo) out += p.coalesced ? '\x88' : '\x89';
    out += "t\x86R";
    put_memo(t.impl());
  }
  static Value::Items size_items(IntArrayRef sizes) {
    Value::Items items;
    for (int64_t s : sizes) items.push_back(Value(s));
    return items;
  }
  void tensor(const Tensor& t) {
    if (get_memo(t.impl())) return;
    if (t.has_sparse_layout()) return sparse_tensor(t);
    if (t.is_quantized()) return quantized_tensor(t);
    bool param = t.is_parameter();
    if (param) global("torch._utils", "_rebuild_parameter");
    bool v3 = is_float8(t.dtype());
    global("torch._utils", v3 ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2");
    out += "((";
    storage_id(t, v3);
    integer(t.storage_offset());
    tuple_of(t.sizes());
    tuple_of(t.strides());
    out += !param && t.requires_grad() ? '\x88' : '\x89';
    empty_ordered_dict();
    if (v3) global("torch", std::string(dtype_name(t.dtype())));
    out += "tR";
    if (param) {
      out += t.requires_grad() ? '\x88' : '\x89';
      empty_ordered_dict();
      out += "\x87R";
    }
    put_memo(t.impl());
  }
  // The key of t's storage ("0", "1", ... in order of first use) and its size in elements (bytes when untyped).
  std::pair<std::string, int64_t> storage_key(const Tensor& t, bool untyped) {
    const StorageImpl* impl = t.storage().impl();
    auto [it, fresh] = storage_index_.emplace(impl, storages.size());
    if (fresh) storages.push_back({t.storage(), t.dtype()});
    ScalarType saved = storages[it->second].dtype;
    EMBER_CHECK(saved == t.dtype(), Error,
                "Cannot save multiple tensors or storages that view the same data as different types");
    size_t item = untyped ? 1 : element_size(t.dtype());
    return {std::to_string(it->second), int64_t(t.storage().nbytes() / item)};
  }
  void write(const Value& v, int depth) {
    EMBER_CHECK(depth < kMaxDepth, ValueError, "ember.save: containers nested more than ", kMaxDepth, " deep");
    switch (v.kind()) {
      case Kind::None: out += 'N'; break;
      case Kind::Bool: out += v.to_bool() ? '\x88' : '\x89'; break;
      case Kind::Int: integer(v.to_int()); break;
      case Kind::Double: real(v.to_double()); break;
      case Kind::String: text(v.to_string()); break;
      case Kind::Bytes: bytes(v.to_string()); break;
      case Kind::Dtype: global("torch", std::string(dtype_name(v.to_dtype()))); break;
      case Kind::Tensor: tensor(v.to_tensor()); break;
      case Kind::List: {
        out += ']';
        const auto& items = v.items();
        for (size_t i = 0; i < items.size(); i += 1000) {
          out += '(';
          for (size_t j = i; j < std::min(items.size(), i + 1000); ++j) write(items[j], depth + 1);
          out += 'e';
        }
        break;
      }
      case Kind::Tuple:
      case Kind::Size: {
        if (v.is(Kind::Size)) global("torch", "Size");
        const auto& items = v.items();
        if (items.empty()) out += ')';
        else {
          if (items.size() > 3) out += '(';
          for (const Value& x : items) write(x, depth + 1);
          out += items.size() <= 3 ? "\x85\x86\x87"[items.size() - 1] : 't';
        }
        if (v.is(Kind::Size)) out += "\x85R";
        break;
      }
      case Kind::Dict:
      case Kind::OrderedDict: {
        if (v.is(Kind::Dict)) out += '}';
        else empty_ordered_dict();
        const auto& entries = v.entries();
        for (size_t i = 0; i < entries.size(); i += 1000) {
          out += '(';
          for (size_t j = i; j < std::min(entries.size(), i + 1000); ++j) {
            write(entries[j].first, depth + 1);
            write(entries[j].second, depth + 1);
          }
          out += 'u';
        }
        break;
      }
    }
  }

  std::unordered_map<const void*, uint32_t> memo_;
  std::unordered_set<std::string> global_names_;
  std::unordered_map<const StorageImpl*, size_t> storage_index_;
  uint32_t next_memo_ = 0;
};

std::string random_digits(int n) {
  std::random_device rd;
  std::string s;
  for (int i = 0; i < n; ++i) s += char('0' + rd() % 10);
  return s;
}

// ---------------------------------------------------------------- reader

[[noreturn]] void refuse(const std::string& what) { throw UnpicklingError("ember.load: " + what); }

class Unpickler {
 public:
  using PersistentLoad = std::function<Value(const Value& pid)>;
  Unpickler(std::string_view data, PersistentLoad persistent_load)
      : data_(data), persistent_load_(std::move(persistent_load)) {}

  std::vector<Tensor> sparse_to_check;  // sparse tensors whose indices are checked once the storages are read

  // A value of the wrong kind where the format needs another (a persistent id that is not a tuple ...) is a
  // malformed pickle.
  Value run() {
    try {
      return run_ops();
    } catch (const TypeError& e) {
      refuse(str("malformed pickle: ", e.what()));
    }
  }

 private:
  Value run_ops() {
    while (true) {
      size_t at = pos_;
      unsigned char op = u8();
      switch (op) {
        case 0x80: if (u8() > 5) refuse("unsupported pickle protocol"); break;  // PROTO
        case 0x95: bytes_view(8); break;                                         // FRAME
        case '.': {                                                              // STOP
          if (stack_.size() != 1) refuse("malformed pickle: STOP with " + std::to_string(stack_.size()) + " objects on the stack");
          return value_of(stack_.back());
        }
        case '(': stack_.push_back(Obj{Value(), Callable::None, "", true}); break;
        case ')': push(Value::tuple()); break;
        case 't': { Value::Items items = pop_to_mark(); push(make(Value::tuple(items), items)); break; }
        case 0x85: case 0x86: case 0x87: {
          Value::Items items(size_t(op - 0x84));
          for (size_t i = items.size(); i-- > 0;) items[i] = pop_value();
          push(make(Value::tuple(items), items));
          break;
        }
        case ']': push(Value::list()); break;
        case 'l': { Value::Items items = pop_to_mark(); push(make(Value::list(items), items)); break; }
        case 'a': { Value v = pop_value(); append(top_value(), {std::move(v)}); break; }
        case 'e': { Value::Items items = pop_to_mark(); append(top_value(), std::move(items)); break; }
        case '}': push(Value::dict()); break;
        case 'd': { Value d = Value::dict(); set_items(d, pop_to_mark()); push(std::move(d)); break; }
        case 's': { Value v = pop_value(); Value k = pop_value(); set_items(top_value(), {std::move(k), std::move(v)}); break; }
        case 'u': { Value::Items kv = pop_to_mark(); set_items(top_value(), std::move(kv)); break; }
        case 'N': push(Value()); break;
        case 0x88: push(Value(true)); break;
        case 0x89: push(Value(false)); break;
        case 'K': push(Value(int64_t(u8()))); break;
        case 'M': push(Value(int64_t(le(2)))); break;
        case 'J': push(Value(int64_t(int32_t(uint32_t(le(4)))))); break;
        case 0x8a: {  // LONG1
          size_t n = u8();
          if (n > 8) refuse("an integer in the checkpoint does not fit in 64 bits");
          uint64_t v = n ? le(n) : 0;
          if (n && n < 8 && (v >> (8 * n - 1) & 1)) v |= ~uint64_t(0) << (8 * n);  // sign-extend
          push(Value(int64_t(v)));
          break;
        }
        case 'G': {
          uint64_t bits = 0;
          for (unsigned char c : bytes_view(8)) bits = bits << 8 | c;
          double d;
          std::memcpy(&d, &bits, 8);
          push(Value(d));
          break;
        }
        case 'X': push(Value(std::string(bytes_view(le(4))))); break;
        case 0x8c: push(Value(std::string(bytes_view(u8())))); break;
        case 0x8d: push(Value(std::string(bytes_view(le(8))))); break;
        case 'C': push(Value::bytes(std::string(bytes_view(u8())))); break;
        case 'B': push(Value::bytes(std::string(bytes_view(le(4))))); break;
        case 0x8e: push(Value::bytes(std::string(bytes_view(le(8))))); break;
        case 'q': memo_[uint32_t(u8())] = top(); break;
        case 'r': memo_[uint32_t(le(4))] = top(); break;
        case 0x94: memo_[uint32_t(memo_.size())] = top(); break;  // MEMOIZE
        case 'h': case 'j': {
          uint32_t id = op == 'h' ? u8() : uint32_t(le(4));
          auto it = memo_.find(id);
          if (it == memo_.end()) refuse("malformed pickle: memo entry " + std::to_string(id) + " is missing");
          stack_.push_back(it->second);
          break;
        }
        case 'c': {
          std::string module = line(), name = line();
          stack_.push_back(resolve(module, name));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          std::string name = pop_value().to_string(), module = pop_value().to_string();
          stack_.push_back(resolve(module, name));
          break;
        }
        case 'Q': { Value pid = pop_value(); push(persistent_load_(pid)); break; }
        case 'R': {
          Value args = pop_value();
          Obj fn = pop();
          if (!args.is(Kind::Tuple)) refuse("malformed pickle: REDUCE arguments are not a tuple");
          if (fn.callable == Callable::None) refuse("malformed pickle: REDUCE of an object that is not a callable global");
          push(call(fn, args.items()));
          break;
        }
        case 'b': {  // BUILD: only an OrderedDict's attributes (torch's state_dict _metadata), which are dropped
          Value state = pop_value();
          Value& target = top_value();
          if (!target.is(Kind::OrderedDict) || !(state.is_none() || state.is(Kind::Dict)))
            refuse(str("BUILD (setting the state of an object) is allowed only for an OrderedDict, not a ",
                       Value::kind_name(target.kind())));
          break;
        }
        case '0': pop(); break;
        case '1': pop_to_mark(); break;
        case '2': stack_.push_back(top()); break;
        default: {
          bool makes_objects = std::string_view("io\x81\x92\x82\x83\x84").find(char(op)) != std::string_view::npos;
          refuse(str("unsupported pickle opcode 0x", "0123456789abcdef"[op >> 4], "0123456789abcdef"[op & 15],
                     " at byte ", at, makes_objects ? " (it would build arbitrary objects)" : ""));
        }
      }
    }
  }

  enum class Callable : uint8_t {
    None, OrderedDict, RebuildV2, RebuildV3, RebuildQuantized, RebuildParameter, RebuildSparse, Layout, Size, Encode,
    Bytes,
  };
  struct Obj {
    Value value;
    Callable callable = Callable::None;
    std::string name;  // the global's, for errors
    bool mark = false;
  };

  // ---- input
  unsigned char u8() { return static_cast<unsigned char>(bytes_view(1)[0]); }
  uint64_t le(size_t n) {
    uint64_t v = 0;
    std::string_view b = bytes_view(n);
    for (size_t i = 0; i < n; ++i) v |= uint64_t(static_cast<unsigned char>(b[i])) << (8 * i);
    return v;
  }
  std::string_view bytes_view(uint64_t n) {
    if (n > data_.size() - pos_) refuse("pickle data was truncated");
    std::string_view s = data_.substr(pos_, size_t(n));
    pos_ += size_t(n);
    return s;
  }
  std::string line() {
    size_t nl = data_.find('\n', pos_);
    if (nl == std::string_view::npos || nl - pos_ > 256) refuse("malformed pickle: bad GLOBAL name");
    std::string s(data_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return s;
  }

  // ---- stack
  void push(Value v) { stack_.push_back(Obj{std::move(v), Callable::None, "", false}); }
  Obj pop() {
    if (stack_.empty() || stack_.back().mark) refuse("malformed pickle: stack underflow");
    Obj o = std::move(stack_.back());
    stack_.pop_back();
    return o;
  }
  const Obj& top() {
    if (stack_.empty() || stack_.back().mark) refuse("malformed pickle: stack underflow");
    return stack_.back();
  }
  Value value_of(const Obj& o) {
    if (o.mark) refuse("malformed pickle: unexpected MARK");
    if (o.callable != Callable::None) refuse("the global '" + o.name + "' may only be called, not stored");
    return o.value;
  }
  Value pop_value() { return value_of(pop()); }
  Value& top_value() {
    value_of(top());
    return stack_.back().value;
  }
  Value::Items pop_to_mark() {
    size_t m = stack_.size();
    while (m > 0 && !stack_[m - 1].mark) --m;
    if (m == 0) refuse("malformed pickle: no MARK");
    Value::Items items;
    items.reserve(stack_.size() - m);
    for (size_t i = m; i < stack_.size(); ++i) items.push_back(value_of(stack_[i]));
    stack_.resize(m - 1);
    return items;
  }

  // ---- containers. Python's pickler fills a container before storing it in another; a stored container is
  // sealed, so no container comes to contain itself, and heights (bounded by kMaxDepth) are final.
  int height(const Value& v) const {
    if (!v.is_sequence() && !v.is_mapping()) return 0;
    auto it = height_.find(v.identity());
    return it == height_.end() ? 1 : it->second;
  }
  // Records that `child` is stored in the container `parent` (sealing the child).
  void store(const Value& parent, const Value& child) {
    if (sealed_.count(parent.identity())) refuse("malformed pickle: a container is changed after it was stored");
    if (child.identity() && child.identity() == parent.identity()) refuse("malformed pickle: a container would contain itself");
    int h = height(child) + 1;
    if (h > kMaxDepth) refuse(str("containers nested more than ", kMaxDepth, " deep"));
    // Both stay alive until the load ends: their addresses key the tables.
    if ((child.is_sequence() || child.is_mapping()) && sealed_.insert(child.identity()).second) alive_.push_back(child);
    auto [it, fresh] = height_.emplace(parent.identity(), 1);
    if (fresh) alive_.push_back(parent);
    it->second = std::max(it->second, h);
  }
  Value make(Value container, const Value::Items& contents) {
    for (const Value& x : contents) store(container, x);
    return container;
  }
  void append(Value& list, Value::Items items) {
    if (!list.is(Kind::List)) refuse(str("malformed pickle: APPEND to a ", Value::kind_name(list.kind())));
    for (Value& v : items) {
      store(list, v);
      list.items().push_back(std::move(v));
    }
  }
  void set_items(Value& dict, Value::Items kv) {
    if (!dict.is_mapping()) refuse(str("malformed pickle: SETITEM on a ", Value::kind_name(dict.kind())));
    if (kv.size() % 2) refuse("malformed pickle: SETITEMS with an odd number of items");
    auto& entries = dict.entries();
    for (size_t i = 0; i < kv.size(); i += 2) {
      if (kv[i].is(Kind::List) || kv[i].is_mapping()) refuse(str("a dict key may not be a ", Value::kind_name(kv[i].kind())));
      store(dict, kv[i]);
      store(dict, kv[i + 1]);
      entries.emplace_back(std::move(kv[i]), std::move(kv[i + 1]));  // a repeated key: the last wins in Python
    }
  }

  // ---- globals: the only names a checkpoint may use
  Obj resolve(const std::string& module, const std::string& name) {
    const std::string full = module + "." + name;
    auto callable = [&](Callable c) { return Obj{Value(), c, full, false}; };
    if (module == "collections" && name == "OrderedDict") return callable(Callable::OrderedDict);
    if (module == "torch._utils" && name == "_rebuild_tensor_v2") return callable(Callable::RebuildV2);
    if (module == "torch._utils" && name == "_rebuild_tensor_v3") return callable(Callable::RebuildV3);
    if (module == "torch._utils" && name == "_rebuild_parameter") return callable(Callable::RebuildParameter);
    if (module == "torch._utils" && name == "_rebuild_qtensor") return callable(Callable::RebuildQuantized);
    if (module == "torch" && (name == "per_tensor_affine" || name == "per_channel_affine"))
      return Obj{Value(name), Callable::None, "", false};  // a qscheme, read by _rebuild_qtensor
    if (module == "torch" && name == "Size") return callable(Callable::Size);
    if (module == "torch._utils" && name == "_rebuild_sparse_tensor") return callable(Callable::RebuildSparse);
    if (module == "torch.serialization" && name == "_get_layout") return callable(Callable::Layout);
    if (module == "_codecs" && name == "encode") return callable(Callable::Encode);
    if ((module == "__builtin__" || module == "builtins") && name == "bytes") return callable(Callable::Bytes);
    if (module == "torch.storage" && name == "UntypedStorage") return Obj{Value(), Callable::None, full, false};
    if (module == "torch")
      for (int i = 0; i < kNumScalarTypes; ++i) {
        auto t = ScalarType(i);
        if (name == dtype_name(t) || (!is_float8(t) && name == storage_class(t))) return Obj{Value(t), Callable::None, "", false};
      }
    auto starts = [&](std::string_view p) { return std::string_view(name).substr(0, p.size()) == p; };
    if (module == "torch" && (name.ends_with("Storage") || starts("complex") || starts("uint") || starts("int") ||
                              starts("float") || starts("qint") || starts("quint") || starts("bits")))
      throw Error("ember.load: the checkpoint holds data of torch." + name + ", a dtype ember does not have");
    refuse("refused to load the global '" + full +
           "': a checkpoint may only name tensors, storages, dtypes and plain containers "
           "(ember.load never runs code from a file)");
  }

  Value call(const Obj& fn, const Value::Items& a) {
    auto want = [&](size_t lo, size_t hi) {
      if (a.size() < lo || a.size() > hi) refuse(str(fn.name, " called with ", a.size(), " arguments"));
    };
    switch (fn.callable) {
      case Callable::OrderedDict: want(0, 0); return Value::ordered_dict();
      case Callable::Size: {
        want(1, 1);
        for (const Value& x : a[0].items()) x.to_int();
        return Value::sequence(Kind::Size, a[0].items());
      }
      case Callable::Bytes: want(0, 0); return Value::bytes("");
      case Callable::Encode: {
        want(2, 2);
        if (a[1].to_string() != "latin1" && a[1].to_string() != "latin-1") refuse("_codecs.encode with an encoding other than latin1");
        return Value::bytes(latin1(a[0].to_string()));
      }
      case Callable::RebuildV2: want(6, 7); return rebuild(a[0], std::nullopt, a[1], a[2], a[3], a[4], a[5]);
      case Callable::RebuildV3: want(7, 8); return rebuild(a[0], a[6].to_dtype(), a[1], a[2], a[3], a[4], a[5]);
      case Callable::RebuildQuantized: {
        want(7, 7);
        if (a[5].to_bool()) refuse("a quantized tensor that requires grad");
        return rebuild_quantized(rebuild(a[0], std::nullopt, a[1], a[2], a[3], a[5], a[6]).to_tensor(), a[4]);
      }
      case Callable::Layout: want(1, 1); return Value(a[0].to_string());
      case Callable::RebuildSparse: want(2, 2); return rebuild_sparse(a[0].to_string(), a[1].items());
      case Callable::RebuildParameter: {
        want(3, 3);
        Tensor t = a[0].to_tensor();
        if (a[2].is_mapping() ? !a[2].entries().empty() : !a[2].is_none()) refuse("parameters with backward hooks");
        t.impl()->is_parameter = true;
        t.requires_grad_(a[1].to_bool());
        return Value(t);
      }
      case Callable::None: break;
    }
    refuse("malformed pickle");
  }

  static std::string latin1(const std::string& utf8) {
    std::string out;
    for (size_t i = 0; i < utf8.size(); ++i) {
      auto c = static_cast<unsigned char>(utf8[i]);
      if (c < 0x80) out += char(c);
      else if ((c == 0xC2 || c == 0xC3) && i + 1 < utf8.size()) out += char((c & 0x1F) << 6 | (utf8[++i] & 0x3F));
      else refuse("_codecs.encode of text outside latin1");
    }
    return out;
  }

  // A view of a loaded storage (a flat tensor of its dtype, uint8 when untyped), with checked geometry.
  static Value rebuild(const Value& storage, std::optional<ScalarType> dtype, const Value& offset_v, const Value& size_v,
                       const Value& stride_v, const Value& requires_grad, const Value& hooks) {
    const Tensor& flat = storage.to_tensor();
    ScalarType t = dtype.value_or(flat.dtype());
    if (dtype && flat.dtype() != kUInt8 && flat.dtype() != t) refuse("a tensor's dtype differs from its storage's");
    DimVector sizes, strides;
    for (const Value& x : size_v.items()) sizes.push_back(x.to_int());
    for (const Value& x : stride_v.items()) strides.push_back(x.to_int());
    int64_t offset = offset_v.to_int();
    if (sizes.size() != strides.size()) refuse("a tensor's size and stride have different lengths");
    // The last element's index must lie inside the storage; partial products and sums stay within int64, so
    // none overflows.
    const __int128 capacity = __int128(flat.storage().nbytes() / element_size(t));
    __int128 last = offset, numel = 1;
    bool valid = offset >= 0;
    for (size_t i = 0; i < sizes.size() && valid; ++i) {
      valid = sizes[i] >= 0 && strides[i] >= 0;
      numel *= sizes[i];
      valid = valid && numel <= INT64_MAX;
      if (sizes[i] > 0) last += __int128(sizes[i] - 1) * strides[i];
      valid = valid && last <= INT64_MAX;
    }
    if (!valid || (numel > 0 && last >= capacity))
      refuse(str("a tensor of size ", IntArrayRef(sizes), ", stride ", IntArrayRef(strides), " and offset ", offset,
                 " does not fit in its storage of ", flat.storage().nbytes(), " bytes"));
    if (!(hooks.is_none() || (hooks.is_mapping() && hooks.entries().empty()))) refuse("tensors with backward hooks");
    Tensor out = Tensor::make(flat.storage(), sizes, strides, offset, t);
    if (requires_grad.to_bool()) out.requires_grad_(true);
    return Value(out);
  }

  // A sparse tensor from its parts; its indices are checked once the storages are read (sparse_to_check).
  Value rebuild_sparse(const std::string& layout, const Value::Items& d) {
    auto sizes = [](const Value& v) {
      DimVector s;
      for (const Value& x : v.items()) s.push_back(x.to_int());
      return s;
    };
    if (layout == "torch.sparse_coo" && (d.size() == 3 || d.size() == 4)) {
      if (d[0].to_tensor().dtype() != kInt64) refuse("a sparse tensor whose indices are not int64");
      DimVector size = sizes(d[2]);
      std::optional<bool> coalesced = d.size() == 4 ? std::optional<bool>(d[3].to_bool()) : std::nullopt;
      sparse_to_check.push_back(sparse_coo_tensor(d[0].to_tensor(), d[1].to_tensor(), IntArrayRef(size), {},
                                                  coalesced, false));
      return Value(sparse_to_check.back());
    }
    if (layout == "torch.sparse_csr" && d.size() == 4) {
      DimVector size = sizes(d[3]);
      sparse_to_check.push_back(sparse_csr_tensor(d[0].to_tensor(), d[1].to_tensor(), d[2].to_tensor(),
                                                  IntArrayRef(size), {}, false));
      return Value(sparse_to_check.back());
    }
    refuse("a sparse tensor of layout " + layout + " with " + std::to_string(d.size()) + " parts");
  }

  // The integers of a quantized storage (QUInt8Storage loads as uint8, ...) with the record's quantizer.
  static Value rebuild_quantized(const Tensor& raw, const Value& params) {
    ScalarType dtype = raw.dtype() == kUInt8 ? kQUInt8 : raw.dtype() == kInt8 ? kQInt8 : kQInt32;
    if (raw.dtype() != kUInt8 && raw.dtype() != kInt8 && raw.dtype() != kInt32) refuse("a quantized tensor's storage");
    const auto& p = params.items();
    Quantizer q;
    if (p.size() == 3 && p[0].to_string() == "per_tensor_affine") {
      q.scale = p[1].to_double();
      q.zero_point = p[2].to_int();
    } else if (p.size() == 4 && p[0].to_string() == "per_channel_affine") {
      q.scheme = QScheme::PerChannelAffine;
      q.scales = p[1].to_tensor();
      q.zero_points = p[2].to_tensor();
      q.axis = p[3].to_int();
    } else {
      refuse("a quantized tensor's parameters (per_tensor_affine or per_channel_affine)");
    }
    return Value(make_quantized(raw, dtype, q));
  }

  std::string_view data_;
  size_t pos_ = 0;
  PersistentLoad persistent_load_;
  std::unordered_set<const void*> sealed_;
  std::unordered_map<const void*, int> height_;
  std::vector<Value> alive_;
  std::vector<Obj> stack_;
  std::unordered_map<uint32_t, Obj> memo_;
};

std::string archive_name(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base.empty() ? "archive" : base;
}

}  // namespace

void detail::write_atomically(const std::string& path, const std::function<void(const Sink&)>& produce) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = str(path, ".tmp", ::getpid(), "_", counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(str("[Errno ", errno, "] ", std::strerror(errno), ": '", path, "'"));
  try {
    // Blocks are reserved ahead of the writes (doubling): ext4 then skips its per-page delayed allocation
    // and the flush it starts when a rename replaces a file. The reserve past the end is freed after.
    uint64_t pos = 0, reserved = 0;
    bool reserving = true;
    produce([&](const void* data, size_t n) {
      if (reserving && pos + n > reserved) {
        uint64_t want = std::max<uint64_t>({pos + n, 2 * reserved, uint64_t(1) << 20});
        reserving = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, off_t(reserved), off_t(want - reserved)) == 0;
        if (reserving) reserved = want;
      }
      for (size_t done = 0; done < n;) {
        ssize_t w = ::write(fd, static_cast<const char*>(data) + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) throw Error(str("writing '", path, "' failed: ", std::strerror(errno)));
        done += size_t(w);
      }
      pos += n;
    });
    if (reserved > pos && ::ftruncate(fd, off_t(pos)) != 0)
      throw Error(str("writing '", path, "' failed: ", std::strerror(errno)));
    int rc = ::close(fd);
    fd = -1;
    if (rc != 0) throw Error(str("closing '", path, "' failed: ", std::strerror(errno)));
    if (::rename(tmp.c_str(), path.c_str()) != 0) throw Error(str("renaming onto '", path, "' failed: ", std::strerror(errno)));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
}

void save(const Value& value, const Sink& sink, const std::string& archive) {
  Pickler p;
  p.dump(value);
  detail::ZipWriter zip(sink);
  const std::string dir = archive + "/";
  zip.add(dir + "data.pkl", p.out.data(), p.out.size());
  zip.add(dir + ".format_version", "1", 1);
  zip.add(dir + ".storage_alignment", "64", 2);
  zip.add(dir + "byteorder", "little", 6);
  for (size_t i = 0; i < p.storages.size(); ++i) {
    Storage s = p.storages[i].storage;
    size_t item = is_float8(p.storages[i].dtype) ? 1 : element_size(p.storages[i].dtype);
    size_t n = s.nbytes() / item * item;
    if (s.device() != kCPU)  // the bytes of a device storage, copied to the host
      s = Tensor::make(s, {int64_t(s.nbytes())}, {1}, 0, kUInt8).to(kCPU).storage();
    zip.add(dir + "data/" + std::to_string(i), s.data(), n);
  }
  zip.add(dir + "version", "3\n", 2);
  std::string id = random_digits(40);
  zip.add(dir + ".data/serialization_id", id.data(), id.size());
  zip.finish();
}

void save(const Value& value, const std::string& path) {
  detail::write_atomically(path, [&](const Sink& sink) { save(value, sink, archive_name(path)); });
}

namespace {

// A storage still to be filled from the source's bytes at `offset`.
struct Unread {
  Storage storage;
  uint64_t offset;
};

// Fills the storages in slices of at most 4 MiB, in parallel over the thread pool from 1 MiB in all
// (page-cache copies and first touches of fresh memory are CPU work).
void read_storages(const Source& source, const std::vector<Unread>& unread) {
  constexpr size_t kSlice = size_t(4) << 20, kParallel = size_t(1) << 20;
  struct Slice { const Unread* u; size_t begin, end; };
  std::vector<Slice> slices;
  size_t total = 0;
  for (const Unread& u : unread) {
    for (size_t b = 0; b < u.storage.nbytes(); b += kSlice) slices.push_back({&u, b, std::min(b + kSlice, u.storage.nbytes())});
    total += u.storage.nbytes();
  }
  const int64_t n = int64_t(slices.size());
  parallel_for(0, n, total >= kParallel ? 1 : n + 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const Slice& s = slices[size_t(i)];
      source.read(s.u->offset + s.begin, static_cast<char*>(s.u->storage.data()) + s.begin, s.end - s.begin);
    }
  });
}

}  // namespace

Value load(const Source& source, const LoadOptions& options) {
  unsigned char magic[4] = {0, 0, 0, 0};
  if (source.size() >= 4) source.read(0, magic, 4);
  if (!(magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4))
    throw UnpicklingError("ember.load: not a checkpoint in torch's zip format (the file does not start with a zip header)");
  auto records = detail::read_zip(source);
  // The records live under one folder, whatever its name: the one that holds data.pkl.
  std::string dir;
  for (const auto& [name, r] : records)
    if (name.size() >= 8 && name.compare(name.size() - 8, 8, "data.pkl") == 0 && name.find('/') == name.size() - 9) {
      dir = name.substr(0, name.size() - 8);
      break;
    }
  if (dir.empty()) throw Error("PytorchStreamReader failed locating file data.pkl: file not found");
  const ZipRecord& pkl = records.at(dir + "data.pkl");
  std::string pickle(size_t(pkl.size), '\0');
  source.read(pkl.offset, pickle.data(), pickle.size());
  if (detail::crc32(pickle.data(), pickle.size()) != pkl.crc)
    throw Error("PytorchStreamReader failed reading file data.pkl: the record is corrupted (CRC-32 mismatch)");

  std::unordered_map<std::string, Value> loaded;
  std::vector<Unread> unread;
  auto persistent_load = [&](const Value& pid) -> Value {
    const auto& f = pid.items();
    if (f.size() != 5 || f[0].to_string() != "storage") refuse("malformed persistent id (not a storage)");
    std::optional<ScalarType> dtype;
    if (!f[1].is_none()) dtype = f[1].to_dtype();
    const std::string& key = f[2].to_string();
    const std::string& location = f[3].to_string();
    int64_t numel = f[4].to_int();
    auto it = loaded.find(key);
    if (it != loaded.end()) return it->second;
    auto rec = records.find(dir + "data/" + key);
    if (rec == records.end()) throw Error("PytorchStreamReader failed locating file data/" + key + ": file not found");
    size_t item = dtype ? element_size(*dtype) : 1;
    if (numel < 0 || uint64_t(numel) > rec->second.size / item || uint64_t(numel) * item != rec->second.size)
      throw Error(str("ember.load: storage '", key, "' declares ", numel, " elements of ", item, " bytes but its record holds ",
                      rec->second.size, " bytes"));
    Device device = options.map_location ? options.map_location(location) : Device(location);
    const uint64_t offset = rec->second.offset;
    const size_t n = size_t(rec->second.size);
    Storage s = source.view(offset, n);
    if (!s.defined() && device == kCPU) {  // read after unpickling, with the others, in parallel
      s = Storage::allocate(n, kCPU);
      unread.push_back({s, offset});
    }
    ScalarType raw = storage_type(dtype.value_or(kUInt8));  // a quantized storage holds its integers
    Tensor flat = Tensor::make(s.defined() ? s : source.storage(offset, n), {numel}, {1}, 0, raw);
    if (device != kCPU) flat = flat.to(device);
    return loaded.emplace(key, Value(flat)).first->second;
  };
  Unpickler unpickler(pickle, persistent_load);
  Value out = unpickler.run();
  read_storages(source, unread);
  for (const Tensor& t : unpickler.sparse_to_check) check_sparse_invariants(t);
  return out;
}

Value load(const std::string& path, const LoadOptions& options) { return load(*Source::from_file(path), options); }

Value state_dict_value(const nn::StateDict& state) {
  Value::Entries entries;
  for (const auto& [name, t] : state) entries.emplace_back(Value(name), Value(t));
  return Value::ordered_dict(std::move(entries));
}

nn::StateDict state_dict_from_value(const Value& value) {
  nn::StateDict out;
  for (const auto& [k, v] : value.entries()) out.emplace_back(k.to_string(), v.to_tensor());
  return out;
}

void save(const nn::Module& module, const std::string& path) { save(state_dict_value(module.state_dict()), path); }

void load(nn::Module& module, const std::string& path, const LoadOptions& options) {
  module.load_state_dict(state_dict_from_value(load(path, options)));
}

}  // namespace ember::serialize
