// ember.nn's modules: the C++ ember::nn::Module and its layers and containers, subclassable from Python (a
// trampoline sends forward/extra_repr to Python overrides), plus nn.init, nn.utils and F.linear / F.bilinear.
// python/ember/nn/modules/module.py adds what must be Python: attribute routing, __call__ with hooks.
#include <algorithm>

#include <nanobind/stl/function.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/trampoline.h>

#include "bindings.h"
#include "nn_module_py.h"

namespace ember::py {

namespace {

using namespace nb::literals;
using nn::Module;
using nn::ModulePtr;

// A C++ caller reaching a module with Python hooks goes through its Python __call__.
Tensor call_python(Module& m, const Tensor& input) {
  nb::gil_scoped_acquire gil;
  nb::object self = nb::find(&m);
  EMBER_CHECK(self.is_valid(), Error, "module with Python hooks has no Python object");
  return nb::cast<Tensor>(self(input));
}

nb::object parameter_class() {
  static nb::object cls = nb::module_::import_("ember.nn.parameter").attr("Parameter");
  return cls;
}

// A ParameterList/ParameterDict entry: a Parameter as is, another tensor made one (torch's Parameter(t)).
Tensor as_parameter(nb::handle value) {
  const Tensor& t = nb::cast<const Tensor&>(value);
  return nb::isinstance(value, parameter_class()) ? t : nn::make_parameter(t, true);
}

std::string class_name(nb::handle self) { return nb::cast<std::string>(self.type().attr("__name__")); }
std::string typename_of(nb::handle o) { return nb::cast<std::string>(nb::module_::import_("ember.nn.modules.module").attr("_typename")(o)); }

nb::object module_or_none(const ModulePtr& m) { return m ? nb::cast(m) : nb::none(); }

template <typename Pairs>
nb::object iter_pairs(const Pairs& pairs) {
  nb::list out;
  for (auto& [name, v] : pairs) out.append(nb::make_tuple(name, v));
  return nb::iter(out);
}

template <typename Items>
nb::object iter_items(const Items& items) {
  nb::list out;
  for (auto& v : items) out.append(v);
  return nb::iter(out);
}

// torch's checks on a registration name, before the registry's own.
std::string checked_name(nb::handle self, nb::handle name, const char* what, bool registered) {
  if (!nb::isinstance<nb::str>(name))
    throw TypeError(str(what, " name should be a string. Got ", typename_of(name)));
  std::string n = nb::cast<std::string>(name);
  if (!registered && n.find('.') == std::string::npos && !n.empty() && nb::hasattr(self, name))
    throw nn::KeyError(str("attribute '", n, "' already exists"));
  return n;
}

ModulePtr module_arg(nb::handle m) {
  if (m.is_none()) return nullptr;
  if (!nb::isinstance<Module>(m)) throw TypeError(str(typename_of(m), " is not a Module subclass"));
  return nb::cast<ModulePtr>(m);
}

std::vector<ModulePtr> module_list(nb::handle seq) {
  std::vector<ModulePtr> out;
  for (nb::handle m : nb::iter(seq)) out.push_back(module_arg(m));
  return out;
}

// (name, module) pairs from a mapping or an iterable of pairs (torch's ModuleDict.update).
std::vector<std::pair<std::string, ModulePtr>> named_module_list(nb::handle src) {
  std::vector<std::pair<std::string, ModulePtr>> out;
  nb::object items = nb::hasattr(src, "items") ? src.attr("items")() : nb::borrow(src);
  for (nb::handle kv : nb::iter(items)) {
    nb::sequence pair = nb::borrow<nb::sequence>(kv);
    out.emplace_back(nb::cast<std::string>(pair[0]), module_arg(pair[1]));
  }
  return out;
}

// A Python index into n items: an int (negative from the end) as torch's _get_abs_string_index.
int64_t list_index(nb::handle idx, int64_t n) {
  nb::object index = nb::steal(PyNumber_Index(idx.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  int64_t i = nb::cast<int64_t>(index);
  EMBER_CHECK(-n <= i && i < n, IndexError, "index ", i, " is out of range");
  return i < 0 ? i + n : i;
}

// The positions a slice selects out of n.
std::vector<int64_t> slice_positions(nb::handle s, int64_t n) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(s.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
  Py_ssize_t len = PySlice_AdjustIndices(Py_ssize_t(n), &start, &stop, step);
  std::vector<int64_t> out;
  for (Py_ssize_t i = 0; i < len; ++i) out.push_back(int64_t(start + i * step));
  return out;
}

std::optional<Tensor> optional_tensor(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<Tensor>(h);
}

Generator* gen(std::optional<Generator*> g) { return g ? *g : nullptr; }

std::vector<Tensor> parameter_iterable(nb::handle params) {
  std::vector<Tensor> out;
  for (nb::handle p : nb::iter(params)) out.push_back(as_parameter(p));
  return out;
}

std::vector<Tensor> tensor_iterable(nb::handle params) {
  std::vector<Tensor> out;
  if (nb::isinstance<Tensor>(params)) return {nb::cast<Tensor>(params)};
  for (nb::handle p : nb::iter(params)) out.push_back(nb::cast<Tensor>(p));
  return out;
}

void init_module_class(nb::module_& m) {
  nb::class_<Module, PyModule<Module>>(m, "Module", nb::dynamic_attr(), nb::is_weak_referenceable())
      .def("__init__", [](nb::pointer_and_handle<Module> v, nb::args, nb::kwargs) { construct(v); })
      .def("forward", &Module::forward)
      .def("extra_repr", &Module::extra_repr)
      .def("_get_name", &Module::name)
      .def("__repr__", &Module::repr)
      .def("__getattr__", [](nb::handle self, const std::string& name) -> nb::object {
        auto& mod = nb::cast<Module&>(self);
        if (Tensor* p = mod.parameter_slots().find(name)) return tensor_or_none(*p);
        if (Tensor* b = mod.buffer_slots().find(name)) return tensor_or_none(*b);
        if (ModulePtr* c = mod.module_slots().find(name)) return module_or_none(*c);
        throw nn::AttributeError(str("'", class_name(self), "' object has no attribute '", name, "'"));
      })
      // 1 parameter, 2 buffer, 3 module, 0 none, -1 before Module.__init__: __setattr__'s routing
      .def("_slot_kind", [](nb::handle self, const std::string& name) {
        if (!nb::inst_ready(self)) return -1;
        auto& mod = nb::cast<const Module&>(self);
        return mod.parameter_slots().find(name) ? 1 : mod.buffer_slots().find(name) ? 2 : mod.module_slots().find(name) ? 3 : 0;
      })
      .def("_unregister", [](Module& mod, const std::string& name) { return mod.unregister(name); })
      .def("_set_py_call", &Module::set_uses_call_override)
      .def("register_parameter", [](nb::handle self, nb::handle name, nb::handle param) {
        auto& mod = nb::cast<Module&>(self);
        bool registered = nb::isinstance<nb::str>(name) && mod.parameter_slots().find(nb::cast<std::string>(name));
        std::string n = checked_name(self, name, "parameter", registered);
        if (param.is_none()) {
          mod.register_parameter(n, Tensor());
          return;
        }
        if (!nb::isinstance(param, parameter_class()))
          throw TypeError(str("cannot assign '", typename_of(param), "' object to parameter '", n,
                              "' (torch.nn.Parameter or None required)"));
        const Tensor& t = nb::cast<const Tensor&>(param);
        mod.register_parameter(n, t, t.requires_grad());
      }, "name"_a, "param"_a.none())
      .def("register_buffer", [](nb::handle self, nb::handle name, nb::handle tensor, bool persistent) {
        auto& mod = nb::cast<Module&>(self);
        bool registered = nb::isinstance<nb::str>(name) && mod.buffer_slots().find(nb::cast<std::string>(name));
        std::string n = checked_name(self, name, "buffer", registered);
        if (!tensor.is_none() && !nb::isinstance<Tensor>(tensor))
          throw TypeError(str("cannot assign '", typename_of(tensor), "' object to buffer '", n,
                              "' (torch Tensor or None required)"));
        mod.register_buffer(n, tensor.is_none() ? Tensor() : nb::cast<Tensor>(tensor), persistent);
      }, "name"_a, "tensor"_a.none(), "persistent"_a = true)
      .def("add_module", [](nb::handle self, nb::handle name, nb::handle module) {
        ModulePtr child = module_arg(module);
        auto& mod = nb::cast<Module&>(self);
        bool registered = nb::isinstance<nb::str>(name) && mod.module_slots().find(nb::cast<std::string>(name));
        mod.add_module(checked_name(self, name, "module", registered), child);
      }, "name"_a, "module"_a.none())
      .def("parameters", [](const Module& mod, bool recurse) { return iter_items(mod.parameters(recurse)); },
           "recurse"_a = true)
      .def("named_parameters", [](const Module& mod, const std::string& prefix, bool recurse, bool remove_duplicate) {
        return iter_pairs(mod.named_parameters(prefix, recurse, remove_duplicate));
      }, "prefix"_a = "", "recurse"_a = true, "remove_duplicate"_a = true)
      .def("buffers", [](const Module& mod, bool recurse) { return iter_items(mod.buffers(recurse)); },
           "recurse"_a = true)
      .def("named_buffers", [](const Module& mod, const std::string& prefix, bool recurse, bool remove_duplicate) {
        return iter_pairs(mod.named_buffers(prefix, recurse, remove_duplicate));
      }, "prefix"_a = "", "recurse"_a = true, "remove_duplicate"_a = true)
      .def("children", [](const Module& mod) { return iter_items(mod.children()); })
      .def("named_children", [](const Module& mod) { return iter_pairs(mod.named_children()); })
      .def("modules", [](ModulePtr self) { return iter_items(self->modules()); })
      .def("named_modules", [](ModulePtr self, nb::handle, const std::string& prefix, bool remove_duplicate) {
        return iter_pairs(self->named_modules(prefix, remove_duplicate));
      }, "memo"_a = nb::none(), "prefix"_a = "", "remove_duplicate"_a = true)
      .def("_state_dict", &Module::state_dict, "prefix"_a, "keep_vars"_a)
      .def("_load_state_dict", [](Module& mod, const nn::StateDict& state, bool strict) {
        nn::IncompatibleKeys keys = mod.load_state_dict(state, strict);
        return std::make_pair(keys.missing_keys, keys.unexpected_keys);
      })
      .def_prop_rw("training", &Module::is_training, &Module::set_training)
      .def("_to_dtype", [](Module& mod, ScalarType dtype) { mod.to(dtype); })
      .def("_to_device", [](Module& mod, nb::handle device) { mod.to(*device_from_object(device)); })
      .def("zero_grad", &Module::zero_grad, "set_to_none"_a = true)
      .def("requires_grad_", [](nb::handle self, bool requires_grad) {
        nb::cast<Module&>(self).requires_grad_(requires_grad);
        return nb::borrow(self);
      }, "requires_grad"_a = true)
      .def_prop_ro("_parameters", [](const Module& mod) {
        nb::dict d;
        for (auto& item : mod.parameter_slots().items()) d[item->name.c_str()] = tensor_or_none(item->value);
        return d;
      })
      .def_prop_ro("_buffers", [](const Module& mod) {
        nb::dict d;
        for (auto& item : mod.buffer_slots().items()) d[item->name.c_str()] = tensor_or_none(item->value);
        return d;
      })
      .def_prop_ro("_modules", [](const Module& mod) {
        nb::dict d;
        for (auto& item : mod.module_slots().items()) d[item->name.c_str()] = module_or_none(item->value);
        return d;
      })
      .def_prop_ro("_non_persistent_buffers_set", [](const Module& mod) {
        nb::set s;
        for (auto& item : mod.buffer_slots().items())
          if (!mod.is_persistent(item->name)) s.add(nb::str(item->name.c_str()));
        return s;
      });
}

// Module.__getitem__ for a Sequential slice keeps the names; ModuleList's renumbers (torch's rules).
void init_containers(nb::module_& m) {
  nb::class_<nn::ModuleSequence, Module>(m, "_ModuleSequence")
      .def("__len__", &nn::ModuleSequence::size)
      .def("__iter__", [](const nn::ModuleSequence& s) { return iter_items(s.items()); })
      .def("append", [](nb::handle self, nb::handle module) {
        nb::cast<nn::ModuleSequence&>(self).push_back(module_arg(module));
        return nb::borrow(self);
      }, "module"_a)
      .def("extend", [](nb::handle self, nb::handle modules) {
        nb::cast<nn::ModuleSequence&>(self).extend(module_list(modules));
        return nb::borrow(self);
      }, "modules"_a)
      .def("__iadd__", [](nb::handle self, nb::handle modules) {
        nb::cast<nn::ModuleSequence&>(self).extend(module_list(modules));
        return nb::borrow(self);
      })
      .def("insert", [](nn::ModuleSequence& s, int64_t index, nb::handle module) { s.insert(index, module_arg(module)); },
           "index"_a, "module"_a)
      .def("__setitem__", [](nn::ModuleSequence& s, nb::handle idx, nb::handle module) {
        s.set(list_index(idx, int64_t(s.size())), module_arg(module));
      })
      .def("__delitem__", [](nn::ModuleSequence& s, nb::handle idx) {
        if (!PySlice_Check(idx.ptr())) return s.erase(list_index(idx, int64_t(s.size())));
        std::vector<int64_t> pos = slice_positions(idx, int64_t(s.size()));
        std::sort(pos.rbegin(), pos.rend());
        for (int64_t i : pos) s.erase(i);
      })
      .def("pop", [](nn::ModuleSequence& s, nb::handle idx) {
        ModulePtr m = s.at(list_index(idx, int64_t(s.size())));
        s.erase(list_index(idx, int64_t(s.size())));
        return m;
      }, "key"_a = -1);

  nb::class_<nn::Sequential, nn::ModuleSequence, PyModule<nn::Sequential>>(m, "Sequential")
      .def("__init__", [](nb::pointer_and_handle<nn::Sequential> v, nb::args args) {
        nb::object ordered = nb::module_::import_("collections").attr("OrderedDict");
        if (args.size() == 1 && nb::isinstance(args[0], ordered)) construct(v, named_module_list(args[0]));
        else construct(v, module_list(args));
      })
      .def("forward", &base_forward<nn::Sequential>, "input"_a)
      .def("__getitem__", [](nb::handle self, nb::handle idx) -> nb::object {
        auto& s = nb::cast<nn::Sequential&>(self);
        if (!PySlice_Check(idx.ptr())) return nb::cast(s.at(list_index(idx, int64_t(s.size()))));
        std::vector<std::pair<std::string, ModulePtr>> picked;
        for (int64_t i : slice_positions(idx, int64_t(s.size())))
          picked.emplace_back(s.module_slots().items()[i]->name, s.module_slots().items()[i]->value);
        nb::object ordered = nb::module_::import_("collections").attr("OrderedDict");
        nb::list pairs;
        for (auto& [k, v] : picked) pairs.append(nb::make_tuple(k, module_or_none(v)));
        return self.type()(ordered(pairs));
      });

  nb::class_<nn::ModuleList, nn::ModuleSequence, PyModule<nn::ModuleList>>(m, "ModuleList")
      .def("__init__", [](nb::pointer_and_handle<nn::ModuleList> v, nb::handle modules) {
        construct(v, modules.is_none() ? std::vector<ModulePtr>() : module_list(modules));
      }, "modules"_a = nb::none())
      .def("__getitem__", [](nb::handle self, nb::handle idx) -> nb::object {
        auto& s = nb::cast<nn::ModuleList&>(self);
        if (!PySlice_Check(idx.ptr())) return nb::cast(s.at(list_index(idx, int64_t(s.size()))));
        nb::list picked;
        for (int64_t i : slice_positions(idx, int64_t(s.size()))) picked.append(module_or_none(s.at(i)));
        return self.type()(picked);
      })
      .def("__add__", [](nb::handle self, nb::handle other) {
        nb::list all;
        for (nb::handle x : nb::iter(self)) all.append(x);
        for (nb::handle x : nb::iter(other)) all.append(x);
        return self.type()(all);
      });

  nb::class_<nn::ModuleDict, Module, PyModule<nn::ModuleDict>>(m, "ModuleDict")
      .def("__init__", [](nb::pointer_and_handle<nn::ModuleDict> v, nb::handle modules) {
        construct(v, modules.is_none() ? std::vector<std::pair<std::string, ModulePtr>>() : named_module_list(modules));
      }, "modules"_a = nb::none())
      .def("__getitem__", &nn::ModuleDict::at)
      .def("__setitem__", [](nn::ModuleDict& d, const std::string& key, nb::handle module) {
        d.add_module(key, module_arg(module));
      })
      .def("__delitem__", [](nn::ModuleDict& d, const std::string& key) { d.pop(key); })
      .def("__len__", &nn::ModuleDict::size)
      .def("__iter__", [](const nn::ModuleDict& d) { return iter_items(d.keys()); })
      .def("__contains__", &nn::ModuleDict::contains)
      .def("keys", &nn::ModuleDict::keys)
      .def("values", [](const nn::ModuleDict& d) { return d.children(); })
      .def("items", [](const nn::ModuleDict& d) {
        nb::list out;
        for (auto& item : d.module_slots().items()) out.append(nb::make_tuple(item->name, module_or_none(item->value)));
        return out;
      })
      .def("update", [](nn::ModuleDict& d, nb::handle modules) { d.update(named_module_list(modules)); }, "modules"_a)
      .def("pop", &nn::ModuleDict::pop, "key"_a)
      .def("clear", &nn::ModuleDict::clear);

  nb::class_<nn::ParameterList, Module, PyModule<nn::ParameterList>>(m, "ParameterList")
      .def("__init__", [](nb::pointer_and_handle<nn::ParameterList> v, nb::handle values) {
        construct(v, values.is_none() ? std::vector<Tensor>() : parameter_iterable(values));
      }, "values"_a = nb::none())
      .def("__getitem__", [](nb::handle self, nb::handle idx) -> nb::object {
        auto& l = nb::cast<nn::ParameterList&>(self);
        if (!PySlice_Check(idx.ptr())) return nb::cast(l.at(list_index(idx, int64_t(l.size()))));
        nb::list picked;
        for (int64_t i : slice_positions(idx, int64_t(l.size()))) picked.append(l.at(i));
        return self.type()(picked);
      })
      .def("__setitem__", [](nn::ParameterList& l, nb::handle idx, nb::handle value) {
        Tensor p = as_parameter(value);
        l.register_parameter(std::to_string(list_index(idx, int64_t(l.size()))), p, p.requires_grad());
      })
      .def("__len__", &nn::ParameterList::size)
      .def("__iter__", [](const nn::ParameterList& l) { return iter_items(l.parameters(false)); })
      .def("append", [](nb::handle self, nb::handle value) {
        auto& l = nb::cast<nn::ParameterList&>(self);
        Tensor p = as_parameter(value);
        l.register_parameter(std::to_string(l.size()), p, p.requires_grad());
        return nb::borrow(self);
      }, "value"_a)
      .def("extend", [](nb::handle self, nb::handle values) {
        for (nb::handle v : nb::iter(values)) self.attr("append")(v);
        return nb::borrow(self);
      }, "values"_a)
      .def("__iadd__", [](nb::handle self, nb::handle values) { return self.attr("extend")(values); });

  nb::class_<nn::ParameterDict, Module, PyModule<nn::ParameterDict>>(m, "ParameterDict")
      .def("__init__", [](nb::pointer_and_handle<nn::ParameterDict> v, nb::handle params) {
        std::vector<std::pair<std::string, Tensor>> named;
        if (!params.is_none()) {
          nb::object items = nb::hasattr(params, "items") ? params.attr("items")() : nb::borrow(params);
          for (nb::handle kv : nb::iter(items)) {
            nb::sequence pair = nb::borrow<nb::sequence>(kv);
            named.emplace_back(nb::cast<std::string>(pair[0]), as_parameter(pair[1]));
          }
        }
        construct(v, named);
      }, "parameters"_a = nb::none())
      .def("__getitem__", &nn::ParameterDict::at)
      .def("__setitem__", [](nn::ParameterDict& d, const std::string& key, nb::handle value) {
        Tensor p = as_parameter(value);
        d.register_parameter(key, p, p.requires_grad());
      })
      .def("__delitem__", [](nn::ParameterDict& d, const std::string& key) { d.pop(key); })
      .def("__len__", &nn::ParameterDict::size)
      .def("__iter__", [](const nn::ParameterDict& d) { return iter_items(d.keys()); })
      .def("__contains__", &nn::ParameterDict::contains)
      .def("keys", &nn::ParameterDict::keys)
      .def("values", [](const nn::ParameterDict& d) { return d.parameters(false); })
      .def("items", [](const nn::ParameterDict& d) { return d.named_parameters("", false); })
      .def("get", [](const nn::ParameterDict& d, const std::string& key, nb::handle fallback) -> nb::object {
        return d.contains(key) ? nb::cast(d.at(key)) : nb::borrow(fallback);
      }, "key"_a, "default"_a = nb::none())
      .def("update", [](nb::handle self, nb::handle params) {
        nb::object items = nb::hasattr(params, "items") ? params.attr("items")() : nb::borrow(params);
        for (nb::handle kv : nb::iter(items)) {
          nb::sequence pair = nb::borrow<nb::sequence>(kv);
          self.attr("__setitem__")(pair[0], pair[1]);
        }
      }, "parameters"_a)
      .def("pop", &nn::ParameterDict::pop, "key"_a)
      .def("clear", &nn::ParameterDict::clear);
}

void init_layers(nb::module_& m) {
  nb::class_<nn::Linear, Module, PyModule<nn::Linear>>(m, "Linear")
      .def("__init__", [](nb::pointer_and_handle<nn::Linear> v, int64_t in, int64_t out, bool bias, nb::handle device,
                          std::optional<ScalarType> dtype) { construct(v, in, out, bias, layer_options(device, dtype)); },
           "in_features"_a, "out_features"_a, "bias"_a = true, "device"_a = nb::none(), "dtype"_a = nb::none())
      .def("forward", &base_forward<nn::Linear>, "input"_a)
      .def("reset_parameters", &nn::Linear::reset_parameters)
      .def_rw("in_features", &nn::Linear::in_features)
      .def_rw("out_features", &nn::Linear::out_features);

  nb::class_<nn::Bilinear, Module, PyModule<nn::Bilinear>>(m, "Bilinear")
      .def("__init__", [](nb::pointer_and_handle<nn::Bilinear> v, int64_t in1, int64_t in2, int64_t out, bool bias,
                          nb::handle device, std::optional<ScalarType> dtype) {
        construct(v, in1, in2, out, bias, layer_options(device, dtype));
      }, "in1_features"_a, "in2_features"_a, "out_features"_a, "bias"_a = true, "device"_a = nb::none(),
         "dtype"_a = nb::none())
      .def("forward", nb::overload_cast<const Tensor&, const Tensor&>(&nn::Bilinear::forward), "input1"_a, "input2"_a)
      .def("reset_parameters", &nn::Bilinear::reset_parameters)
      .def_rw("in1_features", &nn::Bilinear::in1_features)
      .def_rw("in2_features", &nn::Bilinear::in2_features)
      .def_rw("out_features", &nn::Bilinear::out_features);

  nb::class_<nn::Identity, Module, PyModule<nn::Identity>>(m, "Identity")
      .def("__init__", [](nb::pointer_and_handle<nn::Identity> v, nb::args, nb::kwargs) { construct(v); })
      .def("forward", [](nb::handle, nb::handle input) { return nb::borrow(input); }, "input"_a);

  nb::class_<nn::Flatten, Module, PyModule<nn::Flatten>>(m, "Flatten")
      .def("__init__", [](nb::pointer_and_handle<nn::Flatten> v, int64_t start_dim, int64_t end_dim) {
        construct(v, start_dim, end_dim);
      }, "start_dim"_a = 1, "end_dim"_a = -1)
      .def("forward", &base_forward<nn::Flatten>, "input"_a)
      .def_rw("start_dim", &nn::Flatten::start_dim)
      .def_rw("end_dim", &nn::Flatten::end_dim);

  nb::class_<nn::Unflatten, Module, PyModule<nn::Unflatten>>(m, "Unflatten")
      .def("__init__", [](nb::pointer_and_handle<nn::Unflatten> v, int64_t dim, nb::handle sizes) {
        construct(v, dim, IntArrayRef(int_list(sizes, "unflattened_size", false)));
      }, "dim"_a, "unflattened_size"_a)
      .def("forward", &base_forward<nn::Unflatten>, "input"_a)
      .def_rw("dim", &nn::Unflatten::dim)
      .def_prop_ro("unflattened_size", [](const nn::Unflatten& u) { return make_size(u.unflattened_size); });
}

void init_functions(nb::module_& nn_module) {
  nn_module.def("linear", [](const Tensor& input, const Tensor& weight, nb::handle bias, nb::handle out) -> nb::object {
    if (out.is_none()) return nb::cast(nn::functional::linear(input, weight, optional_tensor(bias)));
    nn::functional::linear_out(nb::cast<Tensor&>(out), input, weight, optional_tensor(bias));
    return nb::borrow(out);
  }, "input"_a, "weight"_a, "bias"_a = nb::none(), nb::kw_only(), "out"_a = nb::none());
  nn_module.def("bilinear", [](const Tensor& input1, const Tensor& input2, const Tensor& weight, nb::handle bias) {
    return nn::functional::bilinear(input1, input2, weight, optional_tensor(bias));
  }, "input1"_a, "input2"_a, "weight"_a, "bias"_a = nb::none());

  // nn.init: each returns its tensor argument (the same Python object)
  nb::module_ init = nn_module.def_submodule("_init", "ember.nn.init");
  using G = std::optional<Generator*>;
  auto def_unary = [&](const char* name, Tensor (*fn)(const Tensor&)) {
    init.def(name, [fn](nb::handle t) {
      fn(nb::cast<const Tensor&>(t));
      return nb::borrow(t);
    }, "tensor"_a);
  };
  init.def("calculate_gain", [](const std::string& nonlinearity, nb::handle param) {
    std::optional<double> p;
    if (!param.is_none()) {
      bool number = (PyLong_Check(param.ptr()) && !PyBool_Check(param.ptr())) || PyFloat_Check(param.ptr());
      EMBER_CHECK(number || nonlinearity != "leaky_relu", ValueError, "negative_slope ",
                  nb::cast<std::string>(nb::str(param)), " not a valid number");
      if (number) p = nb::cast<double>(param);
    }
    return nn::init::calculate_gain(nonlinearity, p);
  }, "nonlinearity"_a, "param"_a = nb::none());
  init.def("_calculate_fan_in_and_fan_out", &nn::init::calculate_fan_in_and_fan_out, "tensor"_a);
  init.def("uniform_", [](nb::handle t, double a, double b, G g) {
    nn::init::uniform_(nb::cast<const Tensor&>(t), a, b, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "a"_a = 0.0, "b"_a = 1.0, "generator"_a = nb::none());
  init.def("normal_", [](nb::handle t, double mean, double std, G g) {
    nn::init::normal_(nb::cast<const Tensor&>(t), mean, std, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "mean"_a = 0.0, "std"_a = 1.0, "generator"_a = nb::none());
  init.def("trunc_normal_", [](nb::handle t, double mean, double std, double a, double b, G g) {
    nn::init::trunc_normal_(nb::cast<const Tensor&>(t), mean, std, a, b, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "mean"_a = 0.0, "std"_a = 1.0, "a"_a = -2.0, "b"_a = 2.0, "generator"_a = nb::none());
  init.def("constant_", [](nb::handle t, const Scalar& val) {
    nn::init::constant_(nb::cast<const Tensor&>(t), val);
    return nb::borrow(t);
  }, "tensor"_a, "val"_a);
  def_unary("ones_", &nn::init::ones_);
  def_unary("zeros_", &nn::init::zeros_);
  def_unary("eye_", &nn::init::eye_);
  init.def("dirac_", [](nb::handle t, int64_t groups) {
    nn::init::dirac_(nb::cast<const Tensor&>(t), groups);
    return nb::borrow(t);
  }, "tensor"_a, "groups"_a = 1);
  init.def("xavier_uniform_", [](nb::handle t, double gain, G g) {
    nn::init::xavier_uniform_(nb::cast<const Tensor&>(t), gain, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "gain"_a = 1.0, "generator"_a = nb::none());
  init.def("xavier_normal_", [](nb::handle t, double gain, G g) {
    nn::init::xavier_normal_(nb::cast<const Tensor&>(t), gain, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "gain"_a = 1.0, "generator"_a = nb::none());
  init.def("kaiming_uniform_", [](nb::handle t, double a, const std::string& mode, const std::string& nonlinearity, G g) {
    nn::init::kaiming_uniform_(nb::cast<const Tensor&>(t), a, mode, nonlinearity, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "a"_a = 0.0, "mode"_a = "fan_in", "nonlinearity"_a = "leaky_relu", "generator"_a = nb::none());
  init.def("kaiming_normal_", [](nb::handle t, double a, const std::string& mode, const std::string& nonlinearity, G g) {
    nn::init::kaiming_normal_(nb::cast<const Tensor&>(t), a, mode, nonlinearity, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "a"_a = 0.0, "mode"_a = "fan_in", "nonlinearity"_a = "leaky_relu", "generator"_a = nb::none());
  init.def("orthogonal_", [](nb::handle t, double gain, G g) {
    nn::init::orthogonal_(nb::cast<const Tensor&>(t), gain, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "gain"_a = 1.0, "generator"_a = nb::none());
  init.def("sparse_", [](nb::handle t, double sparsity, double std, G g) {
    nn::init::sparse_(nb::cast<const Tensor&>(t), sparsity, std, gen(g));
    return nb::borrow(t);
  }, "tensor"_a, "sparsity"_a, "std"_a = 0.01, "generator"_a = nb::none());

  // nn.utils
  nb::module_ utils = nn_module.def_submodule("_utils", "ember.nn.utils");
  utils.def("clip_grad_norm_", [](nb::handle parameters, double max_norm, double norm_type, bool error_if_nonfinite,
                                  std::optional<bool>) {  // foreach: one loop either way
    return nn::utils::clip_grad_norm_(tensor_iterable(parameters), max_norm, norm_type, error_if_nonfinite);
  }, "parameters"_a, "max_norm"_a, "norm_type"_a = 2.0, "error_if_nonfinite"_a = false, "foreach"_a = nb::none());
  utils.def("clip_grad_value_", [](nb::handle parameters, double clip_value, std::optional<bool>) {
    nn::utils::clip_grad_value_(tensor_iterable(parameters), clip_value);
  }, "parameters"_a, "clip_value"_a, "foreach"_a = nb::none());
  utils.def("parameters_to_vector", [](nb::handle parameters) {
    return nn::utils::parameters_to_vector(tensor_iterable(parameters));
  }, "parameters"_a);
  utils.def("vector_to_parameters", [](nb::handle vec, nb::handle parameters) {
    if (!nb::isinstance<Tensor>(vec)) throw TypeError(str("expected torch.Tensor, but got: ", typename_of(vec)));
    nn::utils::vector_to_parameters(nb::cast<const Tensor&>(vec), tensor_iterable(parameters));
  }, "vec"_a, "parameters"_a);
}
}  // namespace

void init_nn_module(nb::module_& nn_module) {
  nn::Module::set_call_override(&call_python);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const nn::KeyError& e) {
      PyErr_SetString(PyExc_KeyError, e.what());
    } catch (const nn::AttributeError& e) {
      PyErr_SetString(PyExc_AttributeError, e.what());
    }
  });
  nb::module_ m = nn_module.def_submodule("_modules", "ember.nn's module classes");
  init_module_class(m);
  init_containers(m);
  init_layers(m);
  init_nn_modules_act(m, nn_module);
  init_functions(nn_module);
  init_nn_modules_layers(m);
  nn_module.def("_eval_fusion_enabled", &nn::eval_fusion_enabled);
  nn_module.def("_set_eval_fusion", &nn::set_eval_fusion);
  nn_module.def("_train_fusion_enabled", &nn::train_fusion_enabled);
  nn_module.def("_set_train_fusion", &nn::set_train_fusion);
  nn_module.def("_winograd_enabled", &nn::winograd_enabled);
  nn_module.def("_set_winograd", &nn::set_winograd);
}

}  // namespace ember::py
