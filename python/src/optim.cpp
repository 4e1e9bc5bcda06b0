// ember._C._optim: the C++ optimizers (ember/optim/optimizer.h) as torch.optim's classes. Param
// groups and per-parameter state are views over the C++ dicts (edits reach the C++ optimizer);
// ember.optim re-exports the classes, and a Python subclass of Optimizer defines its own step().
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include "bindings.h"

namespace ember::py {

using optim::Dict;
using optim::Optimizer;
using optim::Value;

namespace {

// A Python object a dict holds as is (a value no C++ alternative fits).
struct PyValue : optim::Opaque {
  nb::object obj;
  explicit PyValue(nb::object o) : obj(std::move(o)) {}
  ~PyValue() override {
    nb::gil_scoped_acquire gil;
    obj.reset();
  }
};

Value to_value(nb::handle h) {
  if (h.is_none()) return std::monostate();
  if (nb::isinstance<nb::bool_>(h)) return nb::cast<bool>(h);
  if (PyLong_CheckExact(h.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (!overflow) return int64_t(v);
  }
  if (PyFloat_CheckExact(h.ptr())) return nb::cast<double>(h);
  if (PyUnicode_CheckExact(h.ptr())) return nb::cast<std::string>(h);
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  if (PyTuple_CheckExact(h.ptr())) {  // a tuple of floats (betas): a C++ vector
    std::vector<double> v;
    for (nb::handle x : nb::borrow<nb::tuple>(h))
      if (PyFloat_CheckExact(x.ptr())) v.push_back(nb::cast<double>(x));
    if (v.size() == nb::len(h)) return v;
  }
  if (PyList_CheckExact(h.ptr()) && nb::len(h) > 0) {  // a list of tensors
    std::vector<Tensor> v;
    for (nb::handle x : nb::borrow<nb::list>(h))
      if (nb::isinstance<Tensor>(x)) v.push_back(nb::cast<Tensor>(x));
    if (v.size() == nb::len(h)) return v;
  }
  return std::make_shared<PyValue>(nb::borrow(h));
}

nb::object from_value(const Value& v) {
  return std::visit(
      [](const auto& x) -> nb::object {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) return nb::none();
        else if constexpr (std::is_same_v<X, std::vector<double>>) {
          nb::list l;
          for (double d : x) l.append(d);
          return nb::tuple(l);
        } else if constexpr (std::is_same_v<X, std::vector<Tensor>>) {
          nb::list l;
          for (const Tensor& t : x) l.append(nb::cast(t));
          return l;
        } else if constexpr (std::is_same_v<X, std::shared_ptr<optim::Opaque>>) {
          return static_cast<const PyValue&>(*x).obj;
        } else return nb::cast(x);
      },
      v);
}

nb::dict to_pydict(const Dict& d) {
  nb::dict out;
  for (const auto& [k, v] : d) out[k.c_str()] = from_value(v);
  return out;
}

// dict(h): any mapping or sequence of pairs as a Python dict.
nb::dict as_dict(nb::handle h) { return nb::borrow<nb::dict>(nb::handle((PyObject*)&PyDict_Type)(h)); }

std::string py_type_name(nb::handle h) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<std::string>(h.attr("type")());
  nb::handle t = h.type();
  std::string mod = nb::cast<std::string>(t.attr("__module__"));
  std::string name = nb::cast<std::string>(t.attr("__qualname__"));
  return mod == "builtins" ? name : mod + "." + name;
}

// "params" of a group given from Python: a tensor or an ordered iterable of tensors (torch's errors).
std::vector<Tensor> params_list(nb::handle params) {
  if (nb::isinstance<Tensor>(params)) return {nb::cast<Tensor>(params)};
  if (PySet_Check(params.ptr()) || PyFrozenSet_Check(params.ptr()))
    throw nb::type_error("optimizer parameters need to be organized in ordered collections, but the ordering of "
                         "tensors in sets will change between runs. Please use a list instead.");
  std::vector<Tensor> out;
  for (nb::handle p : nb::iter(params)) {
    if (!nb::isinstance<Tensor>(p))
      throw nb::type_error(("optimizer can only optimize Tensors, but one of the params is " + py_type_name(p)).c_str());
    out.push_back(nb::cast<Tensor>(p));
  }
  return out;
}

optim::ParamGroup group_from(nb::handle h) {
  if (!nb::isinstance<nb::dict>(h))
    throw nb::type_error(("param_group must be a dict, but got " + nb::cast<std::string>(nb::repr(h.type()))).c_str());
  optim::ParamGroup g;
  for (auto [k, v] : nb::borrow<nb::dict>(h)) {
    std::string key = nb::cast<std::string>(k);
    g[key] = key == "params" ? Value(params_list(v)) : to_value(v);
  }
  if (!g.contains("params")) throw nb::key_error("'params'");
  return g;
}

// An optimizer's params argument: tensors, or dicts (groups).
optim::Params params_from(nb::handle params) {
  if (nb::isinstance<Tensor>(params))
    throw nb::type_error(("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                          "got " + py_type_name(params)).c_str());
  nb::list items = nb::list(params);
  if (nb::len(items) == 0) throw nb::value_error("optimizer got an empty parameter list");
  if (!nb::isinstance<nb::dict>(items[0])) return params_list(items);
  std::vector<optim::ParamGroup> groups;
  for (nb::handle g : items) groups.push_back(group_from(g));
  return groups;
}

// A C++ dict seen from Python as a mutable mapping (a param group, one parameter's state).
struct DictView {
  std::shared_ptr<Dict> d;
  nb::object get(const std::string& k) const {
    const Value* v = d->find(k);
    if (!v) throw nb::key_error(("'" + k + "'").c_str());
    return from_value(*v);
  }
  void set(const std::string& k, nb::handle v) { (*d)[k] = k == "params" ? Value(params_list(v)) : to_value(v); }
  nb::list keys() const {
    nb::list l;
    for (const auto& kv : *d) l.append(kv.first);
    return l;
  }
};

// optimizer.state: parameter -> its state dict (made empty on first access, as torch's defaultdict).
struct StateView {
  Optimizer* opt;
  nb::object owner;
};

// A step through Python's interface: the closure (a Python callable) runs with grad enabled.
nb::object python_step(Optimizer& o, nb::handle closure) {
  nb::object loss = nb::none();
  if (!closure.is_none()) {
    autograd::GradModeGuard enable(true);
    loss = closure();
  }
  o.step();
  return loss;
}

nb::dict state_dict(const Optimizer& o) {
  optim::StateDict sd = o.state_dict();
  nb::dict state;
  for (const auto& [i, s] : sd.state) state[nb::int_(i)] = to_pydict(s);
  nb::list groups;
  for (const auto& [options, ids] : sd.param_groups) {
    nb::dict g = to_pydict(options);
    nb::list l;
    for (int64_t i : ids) l.append(i);
    g["params"] = l;
    groups.append(g);
  }
  nb::dict out;
  out["state"] = state;
  out["param_groups"] = groups;
  return out;
}

void load_state_dict(Optimizer& o, nb::handle sd) {
  optim::StateDict in;
  for (nb::handle g : nb::iter(sd["param_groups"])) {
    Dict options;
    std::vector<int64_t> ids;
    for (auto [k, v] : nb::borrow<nb::dict>(g)) {
      std::string key = nb::cast<std::string>(k);
      if (key == "params")
        for (nb::handle i : nb::iter(v)) ids.push_back(nb::cast<int64_t>(i));
      else options[key] = to_value(v);
    }
    in.param_groups.emplace_back(std::move(options), std::move(ids));
  }
  for (auto [k, v] : nb::borrow<nb::dict>(sd["state"])) {
    if (!nb::isinstance<nb::int_>(k)) continue;
    Dict s;
    for (auto [sk, sv] : nb::borrow<nb::dict>(v)) s[nb::cast<std::string>(sk)] = to_value(sv);
    in.state.emplace_back(nb::cast<int64_t>(k), std::move(s));
  }
  o.load_state_dict(in);
}

// torch's signature for optimizer T: params, its positional options, then keyword-only ones.
template <typename T>
void bind_optimizer(nb::module_& m, nb::class_<Optimizer>& base, const char* name) {
  nb::class_<T, Optimizer>(m, name)
      .def("__init__", [name](T* self, nb::handle params, nb::args args, nb::kwargs kwargs) {
        const std::vector<std::string>& pos = T::positional();
        if (nb::len(args) > pos.size())
          throw nb::type_error((std::string(name) + ".__init__() takes from 2 to " + std::to_string(pos.size() + 2) +
                                " positional arguments but " + std::to_string(nb::len(args) + 2) + " were given")
                                   .c_str());
        Dict options;
        for (size_t i = 0; i < nb::len(args); ++i) options[pos[i]] = to_value(args[i]);
        for (auto [k, v] : kwargs) {
          std::string key = nb::cast<std::string>(k);
          if (!T::default_options().contains(key))
            throw nb::type_error((std::string(name) + ".__init__() got an unexpected keyword argument '" + key + "'").c_str());
          if (options.contains(key))
            throw nb::type_error((std::string(name) + ".__init__() got multiple values for argument '" + key + "'").c_str());
          options[key] = to_value(v);
        }
        new (self) T(params_from(params), options);
      });
  (void)base;
}

}  // namespace

void init_optim(nb::module_& m) {
  nb::module_ o = m.def_submodule("_optim", "ember.optim's optimizers (C++)");

  nb::class_<DictView>(o, "ParamDict", "A param group or a parameter's state: a view of the optimizer's C++ dict")
      .def("__getitem__", &DictView::get)
      .def("__setitem__", &DictView::set)
      .def("__delitem__", [](DictView& v, const std::string& k) {
        if (!v.d->erase(k)) throw nb::key_error(("'" + k + "'").c_str());
      })
      .def("__contains__", [](const DictView& v, nb::handle k) {
        return nb::isinstance<nb::str>(k) && v.d->contains(nb::cast<std::string>(k));
      })
      .def("__len__", [](const DictView& v) { return v.d->size(); })
      .def("__iter__", [](const DictView& v) { return nb::iter(v.keys()); })
      .def("keys", &DictView::keys)
      .def("values", [](const DictView& v) {
        nb::list l;
        for (const auto& kv : *v.d) l.append(from_value(kv.second));
        return l;
      })
      .def("items", [](const DictView& v) {
        nb::list l;
        for (const auto& [k, x] : *v.d) l.append(nb::make_tuple(k, from_value(x)));
        return l;
      })
      .def("get", [](const DictView& v, const std::string& k, nb::object dflt) {
        const Value* x = v.d->find(k);
        return x ? from_value(*x) : dflt;
      }, nb::arg("key"), nb::arg("default") = nb::none())
      .def("setdefault", [](DictView& v, const std::string& k, nb::object dflt) {
        if (!v.d->contains(k)) v.set(k, dflt);
        return v.get(k);
      }, nb::arg("key"), nb::arg("default") = nb::none())
      .def("pop", [](DictView& v, const std::string& k, nb::args dflt) {
        const Value* x = v.d->find(k);
        if (!x) {
          if (nb::len(dflt)) return nb::object(dflt[0]);
          throw nb::key_error(("'" + k + "'").c_str());
        }
        nb::object r = from_value(*x);
        v.d->erase(k);
        return r;
      })
      .def("update", [](DictView& v, nb::handle other) {
        for (auto [k, x] : as_dict(other)) v.set(nb::cast<std::string>(k), x);
      })
      .def("clear", [](DictView& v) { *v.d = Dict(); })
      .def("copy", [](const DictView& v) { return to_pydict(*v.d); })
      .def("__eq__", [](const DictView& v, nb::handle other) {
        nb::object o = nb::isinstance<DictView>(other) ? nb::object(to_pydict(*nb::cast<DictView&>(other).d))
                                                       : nb::borrow(other);
        return to_pydict(*v.d).equal(o);
      })
      .def("__repr__", [](const DictView& v) { return nb::repr(to_pydict(*v.d)); });
  nb::module_::import_("collections.abc").attr("MutableMapping").attr("register")(o.attr("ParamDict"));

  nb::class_<StateView>(o, "OptimizerState", "optimizer.state: each parameter's state dict")
      .def("__getitem__", [](StateView& s, const Tensor& p) { return DictView{s.opt->state_ptr(p)}; })
      .def("__setitem__", [](StateView& s, const Tensor& p, nb::handle d) {
        Dict& st = s.opt->state(p);
        st = Dict();
        for (auto [k, v] : as_dict(d)) st[nb::cast<std::string>(k)] = to_value(v);
      })
      .def("__contains__", [](const StateView& s, nb::handle p) {
        return nb::isinstance<Tensor>(p) && s.opt->has_state(nb::cast<Tensor>(p));
      })
      .def("__len__", [](const StateView& s) { return s.opt->state_params().size(); })
      .def("__iter__", [](const StateView& s) { return nb::iter(nb::cast(s.opt->state_params())); })
      .def("keys", [](const StateView& s) { return nb::cast(s.opt->state_params()); })
      .def("values", [](StateView& s) {
        nb::list l;
        for (const Tensor& p : s.opt->state_params()) l.append(DictView{s.opt->state_ptr(p)});
        return l;
      })
      .def("items", [](StateView& s) {
        nb::list l;
        for (const Tensor& p : s.opt->state_params()) l.append(nb::make_tuple(p, DictView{s.opt->state_ptr(p)}));
        return l;
      })
      .def("__repr__", [](StateView& s) {
        nb::dict d;
        for (const Tensor& p : s.opt->state_params()) d[nb::cast(p)] = to_pydict(s.opt->state(p));
        return nb::repr(d);
      });

  auto base = nb::class_<Optimizer>(o, "Optimizer", nb::dynamic_attr(), "torch.optim.Optimizer (C++)");
  base.def("__init__",
           [](Optimizer* self, nb::handle params, nb::handle defaults) {
             Dict d;
             for (auto [k, v] : as_dict(defaults)) d[nb::cast<std::string>(k)] = to_value(v);
             new (self) Optimizer(params_from(params), std::move(d));
           },
           nb::arg("params"), nb::arg("defaults"))
      .def_prop_ro("param_groups", [](Optimizer& opt) {
        nb::list l;
        for (const auto& g : opt.param_groups()) l.append(DictView{g});
        return l;
      })
      .def_prop_ro("state", [](nb::handle self) { return StateView{&nb::cast<Optimizer&>(self), nb::borrow(self)}; })
      .def_prop_ro("defaults", [](Optimizer& opt) { return DictView{std::shared_ptr<Dict>(std::shared_ptr<Dict>(), &opt.defaults())}; },
                   nb::keep_alive<0, 1>())
      .def("add_param_group", [](Optimizer& opt, nb::handle g) { opt.add_param_group(group_from(g)); })
      .def("zero_grad", &Optimizer::zero_grad, nb::arg("set_to_none") = true)
      .def("step", &python_step, nb::arg("closure") = nb::none())
      .def("state_dict", &state_dict)
      .def("load_state_dict", &load_state_dict, nb::arg("state_dict"))
      .def("__repr__", [](nb::handle self) {
        Optimizer& opt = nb::cast<Optimizer&>(self);
        std::string s = nb::cast<std::string>(self.type().attr("__name__")) + " (";
        for (size_t i = 0; i < opt.param_groups().size(); ++i) {
          s += "\nParameter Group " + std::to_string(i);
          nb::list keys = nb::list(DictView{opt.param_groups()[i]}.keys());
          keys.sort();
          for (nb::handle k : keys)
            if (nb::cast<std::string>(k) != "params")
              s += "\n    " + nb::cast<std::string>(k) + ": " +
                   nb::cast<std::string>(nb::str(DictView{opt.param_groups()[i]}.get(nb::cast<std::string>(k))));
        }
        return s + "\n)";
      });

  bind_optimizer<optim::SGD>(o, base, "SGD");
  bind_optimizer<optim::Adam>(o, base, "Adam");
  bind_optimizer<optim::AdamW>(o, base, "AdamW");
  bind_optimizer<optim::Adagrad>(o, base, "Adagrad");
  bind_optimizer<optim::RMSprop>(o, base, "RMSprop");
  bind_optimizer<optim::Adamax>(o, base, "Adamax");
  bind_optimizer<optim::NAdam>(o, base, "NAdam");
  bind_optimizer<optim::RAdam>(o, base, "RAdam");
  bind_optimizer<optim::Adadelta>(o, base, "Adadelta");
}

}  // namespace ember::py
