// ember._C._optim: the C++ optimizers (ember/optim/optimizer.h) as torch.optim's classes. Param
// groups and per-parameter state are views over the C++ dicts (edits reach the C++ optimizer);
// ember.optim re-exports the classes, and a Python subclass of Optimizer defines its own step().
#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include "bindings.h"

namespace ember::py {

using optim::Dict;
using optim::Optimizer;

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

optim::Value option_value(nb::handle h) {
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
  if (PyTuple_CheckExact(h.ptr())) {  // numbers (betas, Rprop's (1e-6, 50)): a C++ vector of floats, None as NaN
    std::vector<double> v;                // (Adafactor's eps=(None, 1e-3))
    for (nb::handle x : nb::borrow<nb::tuple>(h))
      if (PyFloat_CheckExact(x.ptr()) || PyLong_CheckExact(x.ptr())) v.push_back(nb::cast<double>(x));
      else if (x.is_none()) v.push_back(NAN);
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

nb::object from_value(const optim::Value& v) {
  return std::visit(
      [](const auto& x) -> nb::object {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) return nb::none();
        else if constexpr (std::is_same_v<X, std::vector<double>>) {
          nb::list l;
          for (double d : x) l.append(std::isnan(d) ? nb::none() : nb::cast(d));  // NaN: None (see option_value)
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
    g[key] = key == "params" ? optim::Value(params_list(v)) : option_value(v);
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
    const optim::Value* v = d->find(k);
    if (!v) throw nb::key_error(("'" + k + "'").c_str());
    return from_value(*v);
  }
  void set(const std::string& k, nb::handle v) {
    (*d)[k] = k == "params" ? optim::Value(params_list(v)) : option_value(v);
  }
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

// register_step_pre_hook / post_hook: the hooks live in the optimizer's attribute `table` (a dict by id).
struct StepHookHandle {
  nb::object table;
  int64_t id;
  void remove() { table.attr("pop")(id, nb::none()); }
};

StepHookHandle add_hook(nb::handle self, const char* table, nb::handle hook) {
  static int64_t next_id = 0;
  if (!nb::hasattr(self, table)) nb::setattr(self, table, nb::dict());
  nb::object t = self.attr(table);
  t[nb::int_(next_id)] = hook;
  return {t, next_id++};
}

// Runs `step(*args, **kwargs)` between the optimizer's pre-hooks (which may replace args and kwargs)
// and post-hooks, as torch: the hooks see args with the optimizer first.
nb::object hooked_step(nb::handle self, nb::handle step, nb::args args, nb::kwargs kwargs) {
  nb::list all;
  all.append(self);
  for (nb::handle x : args) all.append(x);
  nb::object a = nb::tuple(all), k = kwargs;
  if (nb::hasattr(self, "_optimizer_step_pre_hooks"))
    for (nb::handle h : nb::list(self.attr("_optimizer_step_pre_hooks").attr("values")())) {
      nb::object r = h(self, a, k);
      if (r.is_none()) continue;
      if (!nb::isinstance<nb::tuple>(r) || nb::len(r) != 2)
        throw std::runtime_error("hook " + nb::cast<std::string>(nb::repr(h)) +
                                 " must return None or a tuple of (new_args, new_kwargs), but got " +
                                 nb::cast<std::string>(nb::repr(r)) + ".");
      a = r[0];
      k = r[1];
    }
  nb::object rest = nb::steal(PySequence_GetSlice(a.ptr(), 1, PY_SSIZE_T_MAX));
  if (!rest.is_valid()) throw nb::python_error();
  nb::object out = step(*rest, **k);
  if (nb::hasattr(self, "_optimizer_step_post_hooks"))
    for (nb::handle h : nb::list(self.attr("_optimizer_step_post_hooks").attr("values")())) h(self, a, k);
  return out;
}

// A step through Python's interface: the closure (a Python callable) runs with grad enabled.
nb::object python_step(Optimizer& o, nb::handle closure) {
  if (auto* lbfgs = dynamic_cast<optim::LBFGS*>(&o)) {  // re-evaluates the closure: C++ calls it
    if (closure.is_none()) throw nb::type_error("LBFGS.step() missing 1 required positional argument: 'closure'");
    nb::object first;
    lbfgs->step([&] {
      nb::object r = closure();
      if (!first.is_valid()) first = r;
      return nb::isinstance<Tensor>(r) ? nb::cast<Tensor>(r) : scalar_tensor(nb::cast<double>(r), kFloat64);
    });
    return first;
  }
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
      else options[key] = option_value(v);
    }
    in.param_groups.emplace_back(std::move(options), std::move(ids));
  }
  for (auto [k, v] : nb::borrow<nb::dict>(sd["state"])) {
    if (!nb::isinstance<nb::int_>(k)) continue;
    Dict s;
    for (auto [sk, sv] : nb::borrow<nb::dict>(v)) s[nb::cast<std::string>(sk)] = option_value(sv);
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
        auto option = [](const std::string& key, nb::handle v) {
          // torch's Adam and AdamW take betas of two floats or two tensors (the others take ints too)
          constexpr bool adam = std::is_same_v<T, optim::Adam> || std::is_same_v<T, optim::AdamW>;
          if (adam && key == "betas" && PyTuple_Check(v.ptr()) && nb::len(v) == 2) {
            auto is = [&](auto check) { return check(v[0].ptr()) && check(v[1].ptr()); };
            if (!is([](PyObject* x) { return PyFloat_Check(x); }) &&
                !is([](PyObject* x) { return nb::isinstance<Tensor>(nb::handle(x)); }))
              throw nb::value_error("betas must be either both floats or both Tensors");
          }
          return option_value(v);
        };
        Dict options;
        for (size_t i = 0; i < nb::len(args); ++i) options[pos[i]] = option(pos[i], args[i]);
        for (auto [k, v] : kwargs) {
          std::string key = nb::cast<std::string>(k);
          if (!T::default_options().contains(key))
            throw nb::type_error((std::string(name) + ".__init__() got an unexpected keyword argument '" + key + "'").c_str());
          if (options.contains(key))
            throw nb::type_error((std::string(name) + ".__init__() got multiple values for argument '" + key + "'").c_str());
          options[key] = option(key, v);
        }
        new (self) T(params_from(params), options);
      });
  (void)base;
}

namespace S = optim::lr_scheduler;

// A float or a sequence of floats (one per group).
std::vector<double> floats(nb::handle h) {
  if (PySequence_Check(h.ptr()) && !nb::isinstance<Tensor>(h)) {
    std::vector<double> v;
    for (nb::handle x : nb::iter(h)) v.push_back(nb::cast<double>(x));
    return v;
  }
  return {nb::cast<double>(h)};
}

// lr_lambda: one callable or a list of them.
std::vector<S::LrLambda> lambdas(nb::handle h) {
  auto one = [](nb::handle f) -> S::LrLambda {
    nb::object fn = nb::borrow(f);
    return [fn](int64_t e) {
      nb::gil_scoped_acquire gil;
      return nb::cast<double>(fn(e));
    };
  };
  if (PyCallable_Check(h.ptr())) return {one(h)};
  std::vector<S::LrLambda> out;
  for (nb::handle f : nb::iter(h)) out.push_back(one(f));
  return out;
}

std::optional<int64_t> opt_int(nb::handle h) {
  return h.is_none() ? std::nullopt : std::optional<int64_t>(nb::cast<int64_t>(h));
}

// A scheduler's per-group numbers (base_lrs, _last_lr, max_lrs, ...): lists in torch's state_dicts.
nb::dict scheduler_state(const S::LRScheduler& s) {
  nb::dict d = to_pydict(s.state_dict());
  for (nb::handle k : nb::list(d.keys()))
    if (PyTuple_CheckExact(d[k].ptr())) d[k] = nb::steal(PySequence_List(d[k].ptr()));
  if (dynamic_cast<const S::LambdaLR*>(&s)) {  // torch saves no functions: None for each
    nb::list l;
    for (size_t i = 0; i < s.base_lrs().size(); ++i) l.append(nb::none());
    d["lr_lambdas"] = l;
  }
  const std::vector<std::shared_ptr<S::LRScheduler>>* subs = nullptr;
  if (auto* q = dynamic_cast<const S::SequentialLR*>(&s)) subs = &q->schedulers();
  if (auto* c = dynamic_cast<const S::ChainedScheduler*>(&s)) subs = &c->schedulers();
  if (subs) {
    nb::list l;
    for (const auto& x : *subs) l.append(scheduler_state(*x));
    d["_schedulers"] = l;
  }
  return d;
}

void load_scheduler_state(S::LRScheduler& s, nb::handle sd) {
  Dict d;
  for (auto [k, v] : as_dict(sd)) {
    if (nb::cast<std::string>(k) == "_schedulers") continue;
    bool numbers = PyList_CheckExact(v.ptr()) && nb::len(v) > 0;  // per-group numbers, as torch saves them
    if (numbers)
      for (nb::handle x : nb::borrow<nb::list>(v))
        numbers = numbers && (PyFloat_Check(x.ptr()) || (PyLong_Check(x.ptr()) && !PyBool_Check(x.ptr())));
    d[nb::cast<std::string>(k)] = numbers ? optim::Value(nb::cast<std::vector<double>>(v)) : option_value(v);
  }
  s.load_state_dict(d);
  const std::vector<std::shared_ptr<S::LRScheduler>>* subs = nullptr;
  if (auto* q = dynamic_cast<S::SequentialLR*>(&s)) subs = &q->schedulers();
  if (auto* c = dynamic_cast<S::ChainedScheduler*>(&s)) subs = &c->schedulers();
  if (subs && nb::isinstance<nb::dict>(sd) && nb::borrow<nb::dict>(sd).contains("_schedulers")) {
    nb::list l = nb::borrow<nb::list>(sd["_schedulers"]);
    for (size_t i = 0; i < subs->size() && i < nb::len(l); ++i) load_scheduler_state(*(*subs)[i], l[i]);
  }
}

void init_lr_scheduler(nb::module_& o) {
  nb::module_ m = o.def_submodule("lr_scheduler", "torch.optim.lr_scheduler (C++)");
  auto base = nb::class_<S::LRScheduler>(m, "LRScheduler", nb::dynamic_attr());
  base.def("step", [](S::LRScheduler& s, nb::handle epoch) {
        if (epoch.is_none()) s.step();
        else s.step(nb::cast<int64_t>(epoch));
      }, nb::arg("epoch") = nb::none())
      .def("get_last_lr", [](const S::LRScheduler& s) { return nb::cast(s.get_last_lr()); })
      .def_prop_ro("last_epoch", &S::LRScheduler::last_epoch)
      .def_prop_ro("base_lrs", [](const S::LRScheduler& s) { return nb::cast(s.base_lrs()); })
      .def_prop_ro("optimizer", [](const S::LRScheduler& s) { return nb::find(&s.optimizer()); })
      .def("state_dict", &scheduler_state)
      .def("load_state_dict", &load_scheduler_state, nb::arg("state_dict"));
  auto keep = nb::keep_alive<1, 2>();
  nb::class_<S::LambdaLR, S::LRScheduler>(m, "LambdaLR")
      .def("__init__", [](S::LambdaLR* s, Optimizer& o, nb::handle f, int64_t e) { new (s) S::LambdaLR(o, lambdas(f), e); },
           nb::arg("optimizer"), nb::arg("lr_lambda"), nb::arg("last_epoch") = -1, keep);
  nb::class_<S::MultiplicativeLR, S::LambdaLR>(m, "MultiplicativeLR")
      .def("__init__", [](S::MultiplicativeLR* s, Optimizer& o, nb::handle f, int64_t e) {
        new (s) S::MultiplicativeLR(o, lambdas(f), e);
      }, nb::arg("optimizer"), nb::arg("lr_lambda"), nb::arg("last_epoch") = -1, keep);
  nb::class_<S::StepLR, S::LRScheduler>(m, "StepLR")
      .def(nb::init<Optimizer&, int64_t, double, int64_t>(), nb::arg("optimizer"), nb::arg("step_size"),
           nb::arg("gamma") = 0.1, nb::arg("last_epoch") = -1, keep);
  nb::class_<S::MultiStepLR, S::LRScheduler>(m, "MultiStepLR")
      .def("__init__", [](S::MultiStepLR* s, Optimizer& o, nb::handle milestones, double gamma, int64_t e) {
        std::vector<int64_t> ms;
        for (nb::handle x : nb::iter(milestones)) ms.push_back(nb::cast<int64_t>(x));
        new (s) S::MultiStepLR(o, ms, gamma, e);
      }, nb::arg("optimizer"), nb::arg("milestones"), nb::arg("gamma") = 0.1, nb::arg("last_epoch") = -1, keep);
  nb::class_<S::ConstantLR, S::LRScheduler>(m, "ConstantLR")
      .def(nb::init<Optimizer&, double, int64_t, int64_t>(), nb::arg("optimizer"), nb::arg("factor") = 1.0 / 3,
           nb::arg("total_iters") = 5, nb::arg("last_epoch") = -1, keep);
  nb::class_<S::LinearLR, S::LRScheduler>(m, "LinearLR")
      .def(nb::init<Optimizer&, double, double, int64_t, int64_t>(), nb::arg("optimizer"),
           nb::arg("start_factor") = 1.0 / 3, nb::arg("end_factor") = 1.0, nb::arg("total_iters") = 5,
           nb::arg("last_epoch") = -1, keep);
  nb::class_<S::ExponentialLR, S::LRScheduler>(m, "ExponentialLR")
      .def(nb::init<Optimizer&, double, int64_t>(), nb::arg("optimizer"), nb::arg("gamma"), nb::arg("last_epoch") = -1,
           keep);
  nb::class_<S::PolynomialLR, S::LRScheduler>(m, "PolynomialLR")
      .def(nb::init<Optimizer&, int64_t, double, int64_t>(), nb::arg("optimizer"), nb::arg("total_iters") = 5,
           nb::arg("power") = 1.0, nb::arg("last_epoch") = -1, keep);
  nb::class_<S::CosineAnnealingLR, S::LRScheduler>(m, "CosineAnnealingLR")
      .def(nb::init<Optimizer&, int64_t, double, int64_t>(), nb::arg("optimizer"), nb::arg("T_max"),
           nb::arg("eta_min") = 0.0, nb::arg("last_epoch") = -1, keep);
  nb::class_<S::CosineAnnealingWarmRestarts, S::LRScheduler>(m, "CosineAnnealingWarmRestarts")
      .def(nb::init<Optimizer&, int64_t, int64_t, double, int64_t>(), nb::arg("optimizer"), nb::arg("T_0"),
           nb::arg("T_mult") = 1, nb::arg("eta_min") = 0.0, nb::arg("last_epoch") = -1, keep)
      .def("step", [](S::CosineAnnealingWarmRestarts& s, nb::handle epoch) {
        if (epoch.is_none()) s.step();
        else s.step_to(nb::cast<double>(epoch));
      }, nb::arg("epoch") = nb::none());
  nb::class_<S::CyclicLR, S::LRScheduler>(m, "CyclicLR")
      .def("__init__",
           [](S::CyclicLR* s, Optimizer& opt, nb::handle base_lr, nb::handle max_lr, int64_t up, nb::handle down,
              std::string mode, double gamma, nb::handle scale_fn, std::string scale_mode, bool cycle_momentum,
              nb::handle base_m, nb::handle max_m, int64_t e) {
             S::CyclicLR::Options o{up, opt_int(down), mode, gamma, {}, scale_mode, cycle_momentum, floats(base_m),
                                    floats(max_m)};
             if (!scale_fn.is_none()) {
               nb::object fn = nb::borrow(scale_fn);
               o.scale_fn = [fn](double x) {
                 nb::gil_scoped_acquire gil;
                 return nb::cast<double>(fn(x));
               };
             }
             new (s) S::CyclicLR(opt, floats(base_lr), floats(max_lr), o, e);
           },
           nb::arg("optimizer"), nb::arg("base_lr"), nb::arg("max_lr"), nb::arg("step_size_up") = 2000,
           nb::arg("step_size_down") = nb::none(), nb::arg("mode") = "triangular", nb::arg("gamma") = 1.0,
           nb::arg("scale_fn") = nb::none(), nb::arg("scale_mode") = "cycle", nb::arg("cycle_momentum") = true,
           nb::arg("base_momentum") = 0.8, nb::arg("max_momentum") = 0.9, nb::arg("last_epoch") = -1, keep);
  nb::class_<S::OneCycleLR, S::LRScheduler>(m, "OneCycleLR")
      .def("__init__",
           [](S::OneCycleLR* s, Optimizer& opt, nb::handle max_lr, nb::handle total, nb::handle epochs,
              nb::handle spe, double pct, std::string anneal, bool cycle_momentum, nb::handle base_m, nb::handle max_m,
              double div, double final_div, bool three_phase, int64_t e) {
             S::OneCycleLR::Options o{opt_int(total), opt_int(epochs), opt_int(spe), pct, anneal, cycle_momentum,
                                      floats(base_m), floats(max_m), div, final_div, three_phase};
             new (s) S::OneCycleLR(opt, floats(max_lr), o, e);
           },
           nb::arg("optimizer"), nb::arg("max_lr"), nb::arg("total_steps") = nb::none(),
           nb::arg("epochs") = nb::none(), nb::arg("steps_per_epoch") = nb::none(), nb::arg("pct_start") = 0.3,
           nb::arg("anneal_strategy") = "cos", nb::arg("cycle_momentum") = true, nb::arg("base_momentum") = 0.85,
           nb::arg("max_momentum") = 0.95, nb::arg("div_factor") = 25.0, nb::arg("final_div_factor") = 1e4,
           nb::arg("three_phase") = false, nb::arg("last_epoch") = -1, keep);
  nb::class_<S::SequentialLR, S::LRScheduler>(m, "SequentialLR")
      .def(nb::init<Optimizer&, std::vector<std::shared_ptr<S::LRScheduler>>, std::vector<int64_t>, int64_t>(),
           nb::arg("optimizer"), nb::arg("schedulers"), nb::arg("milestones"), nb::arg("last_epoch") = -1, keep);
  nb::class_<S::ChainedScheduler, S::LRScheduler>(m, "ChainedScheduler")
      .def(nb::init<std::vector<std::shared_ptr<S::LRScheduler>>, Optimizer*>(), nb::arg("schedulers"),
           nb::arg("optimizer") = nb::none());
  nb::class_<S::ReduceLROnPlateau, S::LRScheduler>(m, "ReduceLROnPlateau")
      .def("__init__",
           [](S::ReduceLROnPlateau* s, Optimizer& opt, std::string mode, double factor, int64_t patience,
              double threshold, std::string threshold_mode, int64_t cooldown, nb::handle min_lr, double eps) {
             new (s) S::ReduceLROnPlateau(opt, {mode, factor, patience, threshold, threshold_mode, cooldown,
                                                floats(min_lr), eps});
           },
           nb::arg("optimizer"), nb::arg("mode") = "min", nb::arg("factor") = 0.1, nb::arg("patience") = 10,
           nb::arg("threshold") = 1e-4, nb::arg("threshold_mode") = "rel", nb::arg("cooldown") = 0,
           nb::arg("min_lr") = 0.0, nb::arg("eps") = 1e-8, keep)
      .def("step", [](S::ReduceLROnPlateau& s, nb::handle metrics) { s.step(nb::cast<double>(metrics.attr("__float__")())); },
           nb::arg("metrics"));
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
        const optim::Value* x = v.d->find(k);
        return x ? from_value(*x) : dflt;
      }, nb::arg("key"), nb::arg("default") = nb::none())
      .def("setdefault", [](DictView& v, const std::string& k, nb::object dflt) {
        if (!v.d->contains(k)) v.set(k, dflt);
        return v.get(k);
      }, nb::arg("key"), nb::arg("default") = nb::none())
      .def("pop", [](DictView& v, const std::string& k, nb::args dflt) {
        const optim::Value* x = v.d->find(k);
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
        for (auto [k, v] : as_dict(d)) st[nb::cast<std::string>(k)] = option_value(v);
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

  nb::class_<StepHookHandle>(o, "_StepHookHandle").def("remove", &StepHookHandle::remove);

  auto base = nb::class_<Optimizer>(o, "Optimizer", nb::dynamic_attr(), "torch.optim.Optimizer (C++)");
  base.def("__init__",
           [](Optimizer* self, nb::handle params, nb::handle defaults) {
             Dict d;
             for (auto [k, v] : as_dict(defaults)) d[nb::cast<std::string>(k)] = option_value(v);
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
      .def("step", [](nb::handle self, nb::args a, nb::kwargs k) {
        nb::object plain = nb::cpp_function([self](nb::handle closure) {
          return python_step(nb::cast<Optimizer&>(self), closure);
        }, nb::arg("closure") = nb::none());
        return hooked_step(self, plain, a, k);
      })
      .def("_hooked_step", [](nb::handle self, nb::handle step, nb::args a, nb::kwargs k) {
        nb::object out = hooked_step(self, step, a, k);  // a subclass's own step(): hooked and counted
        nb::cast<Optimizer&>(self).count_step();
        return out;
      })
      .def("register_step_pre_hook", [](nb::handle self, nb::handle hook) {
        return add_hook(self, "_optimizer_step_pre_hooks", hook);
      }, nb::arg("hook"))
      .def("register_step_post_hook", [](nb::handle self, nb::handle hook) {
        return add_hook(self, "_optimizer_step_post_hooks", hook);
      }, nb::arg("hook"))
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
  bind_optimizer<optim::SparseAdam>(o, base, "SparseAdam");
  bind_optimizer<optim::RMSprop>(o, base, "RMSprop");
  bind_optimizer<optim::Adamax>(o, base, "Adamax");
  bind_optimizer<optim::NAdam>(o, base, "NAdam");
  bind_optimizer<optim::RAdam>(o, base, "RAdam");
  bind_optimizer<optim::Adadelta>(o, base, "Adadelta");
  bind_optimizer<optim::ASGD>(o, base, "ASGD");
  bind_optimizer<optim::Rprop>(o, base, "Rprop");
  bind_optimizer<optim::Adafactor>(o, base, "Adafactor");
  bind_optimizer<optim::Muon>(o, base, "Muon");
  bind_optimizer<optim::LBFGS>(o, base, "LBFGS");
  init_lr_scheduler(o);
}

}  // namespace ember::py
