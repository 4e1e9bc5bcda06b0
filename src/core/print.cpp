// Tensor printing that reproduces torch/_tensor_str.py character for character.
#include "ember/print.h"

#include "ember/autograd.h"
#include "ember/host.h"
#include "ember/nn/repr.h"
#include "ember/quantized.h"
#include "ember/sparse.h"

#include <cmath>
#include <cstdio>
#include <variant>
#include <vector>

namespace ember {

namespace {

using Value = std::variant<bool, int64_t, double>;

// Python's float formatting ("%.4f", "%.4e") except that NaN never carries a sign.
std::string format_float(double v, char conv, int precision, int width = 0) {
  char buf[512];
  if (std::isnan(v)) v = NAN;
  if (std::isnan(v) || std::isinf(v)) {
    std::snprintf(buf, sizeof buf, "%*s", width, std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"));
  } else {
    char fmt[16];
    std::snprintf(fmt, sizeof fmt, "%%%d.%d%c", width, precision, conv);
    std::snprintf(buf, sizeof buf, fmt, v);
  }
  return buf;
}

std::string value_str(const Value& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  return format_float(std::get<double>(v), 'g', 17);
}

// Reads elements of a strided tensor without making views.
struct Reader {
  const char* base;
  ScalarType dtype;
  int64_t itemsize;
  Value at(int64_t offset) const {
    const char* p = base + offset * itemsize;
    return visit_dtype(dtype, [&]<typename T>(T) -> Value {
      T v = *reinterpret_cast<const T*>(p);
      if constexpr (std::is_same_v<T, bool>) return v;
      else if constexpr (std::is_integral_v<T>) return int64_t(v);
      else return convert<double>(v);
    });
  }
};

class Formatter {
 public:
  Formatter(const std::vector<Value>& values, bool floating, const PrintOptions& opts)
      : floating_(floating), precision_(opts.precision) {
    if (!floating_) {
      for (const Value& v : values) max_width_ = std::max(max_width_, value_str(v).size());
    } else {
      std::vector<double> finite;
      for (const Value& v : values) {
        double d = std::get<double>(v);
        if (std::isfinite(d) && d != 0.0) finite.push_back(d);
      }
      if (!finite.empty()) measure(finite, opts.sci_mode);
    }
  }

  size_t width() const { return max_width_; }

  std::string format(const Value& v) const {
    std::string ret;
    if (floating_) {
      double d = std::get<double>(v);
      if (sci_mode_) {
        ret = format_float(d, 'e', precision_, int(max_width_));
      } else if (int_mode_) {
        ret = format_float(d, 'f', 0);
        if (std::isfinite(d)) ret += ".";
      } else {
        ret = format_float(d, 'f', precision_);
      }
    } else {
      ret = value_str(v);
    }
    if (ret.size() < max_width_) ret.insert(0, max_width_ - ret.size(), ' ');
    return ret;
  }

 private:
  // Chooses int/sci mode (unless sci_mode is forced) and the widest element's width.
  void measure(const std::vector<double>& vals, std::optional<bool> forced_sci) {
    double lo = std::fabs(vals[0]), hi = lo;
    for (double v : vals) {
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    sci_mode_ = forced_sci.value_or(hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4);
    for (double v : vals) {
      size_t len = sci_mode_ ? format_float(v, 'e', precision_).size()
                   : int_mode_ ? format_float(v, 'f', 0).size() + 1
                               : format_float(v, 'f', precision_).size();
      max_width_ = std::max(max_width_, len);
    }
  }

  bool floating_;
  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

class Printer {
 public:
  Printer(const Tensor& t, const PrintOptions& opts)
      : reader_{static_cast<const char*>(t.storage().data()), t.dtype(), int64_t(t.element_size())},
        sizes_(t.sizes()), strides_(t.strides()), opts_(opts), summarize_(t.numel() > opts.threshold) {}

  std::string run(int64_t offset, int64_t indent) {
    std::vector<Value> values;
    collect_summary(values, offset);
    Formatter formatter(values, is_floating_point(reader_.dtype), opts_);
    formatter_ = &formatter;
    return render(0, offset, indent);
  }

 private:
  int64_t edge() const { return opts_.edgeitems; }
  bool elide(int64_t size) const { return summarize_ && size > 2 * edge(); }

  // The values torch's get_summarized_data keeps (only their set matters to the formatter).
  void collect_summary(std::vector<Value>& out, int64_t offset) {
    int64_t ndim = int64_t(sizes_.size());
    if (ndim == 0) {
      out.push_back(reader_.at(offset));
      return;
    }
    if (ndim == 1) {  // a 1-D tensor keeps edge rows, or everything when edgeitems is 0
      bool cut = elide(sizes_[0]) && edge() > 0;
      for (int64_t i = 0; i < sizes_[0]; ++i) {
        if (!cut || i < edge() || i >= sizes_[0] - edge()) out.push_back(reader_.at(offset + i * strides_[0]));
      }
      return;
    }
    if (summarize_ && edge() == 0) return;
    collect_rows(out, 0, offset);
  }

  void collect_rows(std::vector<Value>& out, size_t dim, int64_t offset) {
    int64_t size = sizes_[dim];
    bool cut = elide(size);
    for (int64_t i = 0; i < size; ++i) {
      if (cut && i >= edge() && i < size - edge()) continue;
      int64_t off = offset + i * strides_[dim];
      if (dim + 1 == sizes_.size()) out.push_back(reader_.at(off));
      else collect_rows(out, dim + 1, off);
    }
  }

  std::string render(size_t dim, int64_t offset, int64_t indent) {
    size_t ndim = sizes_.size();
    if (dim == ndim) return formatter_->format(reader_.at(offset));
    int64_t size = sizes_[dim];
    if (dim + 1 == ndim) return render_vector(offset, size, strides_[dim], indent);
    std::vector<std::string> slices;
    for (int64_t i = 0; i < size; ++i) {
      if (elide(size) && i == edge()) {
        slices.push_back("...");
        i = size - edge() - 1;
        continue;
      }
      slices.push_back(render(dim + 1, offset + i * strides_[dim], indent + 1));
    }
    std::string sep = ",";
    sep.append(ndim - dim - 1, '\n');
    sep.append(size_t(indent + 1), ' ');
    std::string out = "[";
    out += join(slices, sep);
    out += "]";
    return out;
  }

  std::string render_vector(int64_t offset, int64_t size, int64_t stride, int64_t indent) {
    int64_t element_length = int64_t(formatter_->width()) + 2;
    int64_t per_line = std::max<int64_t>(1, (opts_.linewidth - indent) / element_length);
    if (opts_.linewidth - indent < 0) per_line = 1;
    std::vector<std::string> data;
    if (summarize_ && edge() == 0) {
      data.push_back("...");
    } else {
      for (int64_t i = 0; i < size; ++i) {
        if (elide(size) && i == edge()) {
          data.push_back(" ...");
          i = size - edge() - 1;
          continue;
        }
        data.push_back(formatter_->format(reader_.at(offset + i * stride)));
      }
    }
    std::vector<std::string> lines;
    for (size_t i = 0; i < data.size(); i += size_t(per_line)) {
      std::vector<std::string> line(data.begin() + i, data.begin() + std::min(data.size(), i + size_t(per_line)));
      lines.push_back(join(line, ", "));
    }
    std::string out = "[";
    std::string sep = ",\n";
    sep.append(size_t(indent + 1), ' ');
    out += join(lines, sep);
    out += "]";
    return out;
  }

  static std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) out += sep;
      out += parts[i];
    }
    return out;
  }

  Reader reader_;
  IntArrayRef sizes_, strides_;
  const PrintOptions& opts_;
  bool summarize_;
  const Formatter* formatter_ = nullptr;
};

std::string shape_tuple(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

// Appends ", suffix" or a new line when the suffix would pass the line width (torch's _add_suffixes); a sparse COO
// tensor starts its suffixes on a new line (`force_newline`).
std::string add_suffixes(const std::string& body, const std::vector<std::string>& suffixes, int64_t indent,
                         int64_t linewidth, bool force_newline = false) {
  std::string out = body;
  size_t nl = body.rfind('\n');
  int64_t last_line_len = int64_t(body.size()) - (nl == std::string::npos ? -1 : int64_t(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    int64_t len = int64_t(suffix.size());
    if (force_newline || last_line_len + len + 2 > linewidth) {
      force_newline = false;
      out += ",\n";
      out.append(size_t(indent), ' ');
      out += suffix;
      last_line_len = indent + len;
    } else {
      out += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

}  // namespace

PrintOptions& print_options() {
  static PrintOptions opts;
  return opts;
}

void set_printoptions(std::optional<int> precision, std::optional<int64_t> threshold,
                      std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                      std::optional<std::string_view> profile, std::optional<bool> sci_mode) {
  PrintOptions& o = print_options();
  if (profile) {
    if (*profile == "default") o = PrintOptions{};
    else if (*profile == "short") o = PrintOptions{2, 1000, 2, 80, std::nullopt};
    else if (*profile == "full") o = PrintOptions{4, INT64_MAX, 3, 80, std::nullopt};
    else throw ValueError(str("Unknown print profile: ", *profile));
  }
  if (precision) o.precision = *precision;
  if (threshold) o.threshold = *threshold;
  if (edgeitems) o.edgeitems = *edgeitems;
  if (linewidth) o.linewidth = *linewidth;
  o.sci_mode = sci_mode;
}

namespace {

// torch's suffixes of a quantized tensor: its size, dtype and quantizer.
void add_quantized_suffixes(const Tensor& t, std::vector<std::string>& suffixes) {
  const Quantizer& q = quantizer_of(t);
  suffixes.push_back("size=" + shape_tuple(t.sizes()));
  suffixes.push_back("dtype=torch." + std::string(dtype_name(t.dtype())));
  suffixes.push_back("quantization_scheme=torch." + std::string(qscheme_name(q.scheme)));
  if (q.per_channel()) {
    suffixes.push_back("scale=" + tensor_repr(q.scales));
    suffixes.push_back("zero_point=" + tensor_repr(q.zero_points));
    suffixes.push_back("axis=" + std::to_string(q.axis));
  } else {
    suffixes.push_back("scale=" + nn::repr_float(q.scale));  // Python's repr of the float
    suffixes.push_back("zero_point=" + std::to_string(q.zero_point));
  }
}

// One part of a sparse tensor (indices, values), printed after `name=tensor(` at `indent` as torch's _tensor_str.
std::string sparse_part(const char* name, const Tensor& part, int64_t indent) {
  std::string prefix = std::string(name) + "=tensor(";
  std::string body = "[]";
  if (part.numel() == 0) {
    body += ", size=" + shape_tuple(part.sizes());
  } else {
    Tensor host = host_copy(part.detach());
    body = Printer(host, print_options()).run(host.storage_offset(), indent + int64_t(prefix.size()));
  }
  return prefix + body + ")";
}

// torch's sparse repr: the parts one per line, then size, nnz, dtype and layout.
std::string sparse_body(const Tensor& t, int64_t indent, std::vector<std::string>& suffixes) {
  suffixes.push_back("size=" + shape_tuple(t.sizes()));
  suffixes.push_back("nnz=" + std::to_string(t._nnz()));
  if (t.dtype() != default_dtype() && t.dtype() != kInt64 && t.dtype() != kBool) {
    suffixes.push_back("dtype=torch." + std::string(dtype_name(t.dtype())));
  }
  const SparseParts& p = *t.impl()->sparse;
  std::string newline = ",\n" + std::string(size_t(indent), ' ');
  std::string body = p.layout == Layout::SparseCoo
      ? sparse_part("indices", p.indices, indent)
      : sparse_part("crow_indices", p.indices, indent) + newline + sparse_part("col_indices", p.col_indices, indent);
  body += newline + sparse_part("values", p.values, indent);
  suffixes.push_back("layout=torch." + std::string(layout_name(p.layout)));
  return body;
}

}  // namespace

std::string tensor_repr(const Tensor& t) {
  std::shared_ptr<autograd::Node> grad_fn = t.grad_fn();
  std::string grad_fn_name = grad_fn ? grad_fn->short_name() : std::string();
  const PrintOptions& opts = print_options();
  const std::string prefix = "tensor(";
  const int64_t indent = int64_t(prefix.size());
  std::vector<std::string> suffixes;
  if (!t.device().is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");
  std::string dtype_suffix = "dtype=torch." + std::string(dtype_name(t.dtype()));
  std::string body;
  if (t.has_sparse_layout()) {
    body = sparse_body(t, indent, suffixes);
  } else if (t.is_quantized()) {
    add_quantized_suffixes(t, suffixes);
    Tensor host = host_copy(dequantize(t));
    body = t.numel() == 0 ? "[]" : Printer(host, opts).run(host.storage_offset(), indent);
  } else if (t.numel() == 0) {
    if (t.dim() != 1) suffixes.push_back("size=" + shape_tuple(t.sizes()));
    if (t.dtype() != default_dtype()) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    if (opts.edgeitems == 0) suffixes.push_back("size=" + shape_tuple(t.sizes()));
    if (t.dtype() != default_dtype() && t.dtype() != kInt64 && t.dtype() != kBool) suffixes.push_back(dtype_suffix);
    Tensor host = host_copy(t);
    body = Printer(host, opts).run(host.storage_offset(), indent);
  }
  if (!grad_fn_name.empty()) suffixes.push_back("grad_fn=<" + std::string(grad_fn_name) + ">");
  else if (t.requires_grad()) suffixes.push_back("requires_grad=True");
  return add_suffixes(prefix + body, suffixes, indent, opts.linewidth, t.is_sparse());
}

}  // namespace ember
