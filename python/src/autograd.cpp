// Autograd in Python: Tensor.grad / grad_fn / backward / detach / hooks, graph nodes, grad mode,
// and the engine entry points ember.autograd builds on.
#include <unordered_map>

#include <nanobind/stl/function.h>
#include <nanobind/stl/shared_ptr.h>

#include "bindings.h"
#include "ember/autograd.h"

namespace ember::py {

namespace {

using autograd::Node;
using autograd::TensorList;

TensorList tensor_list(nb::handle h) {  // a tensor, or a sequence of tensors (None entries stay undefined)
  TensorList out;
  if (h.is_none()) return out;
  if (nb::isinstance<Tensor>(h)) return {nb::cast<Tensor>(h)};
  for (nb::handle item : h) {
    EMBER_CHECK(item.is_none() || nb::isinstance<Tensor>(item), TypeError,
                "gradients can be either Tensors or None, but got ", nb::inst_name(item).c_str());
    out.push_back(item.is_none() ? Tensor() : nb::cast<Tensor>(item));
  }
  return out;
}

// A Python callable as a hook: its return value (None or a tensor) replaces the gradient.
autograd::TensorHook python_hook(nb::object fn) {
  return [fn = std::move(fn)](const Tensor& grad) -> Tensor {
    nb::object r = fn(grad);
    EMBER_CHECK(r.is_none() || nb::isinstance<Tensor>(r), TypeError, "expected Variable, but hook returned '",
                nb::inst_name(r).c_str(), "'");
    return r.is_none() ? Tensor() : nb::cast<Tensor>(r);
  };
}

// A node as an instance of a _Node subclass named after it, so type(t.grad_fn).__name__ is "AddBackward0" as in
// torch (the class is made on first use). A node whose Python object is alive keeps it.
nb::object node_object(const std::shared_ptr<Node>& node) {
  if (!node) return nb::none();
  nb::object obj = nb::cast(node);
  nb::handle base = nb::type<Node>();
  if (!obj.type().is(base) || Py_REFCNT(obj.ptr()) > 1) return obj;
  static auto* classes = new std::unordered_map<std::string, nb::object>();  // never freed: outlives the interpreter
  std::string name = node->short_name();
  nb::object& cls = (*classes)[name];
  if (!cls.is_valid()) {
    nb::dict attrs;
    attrs["__slots__"] = nb::tuple();
    attrs["__module__"] = "builtins";
    cls = nb::borrow(reinterpret_cast<PyObject*>(&PyType_Type))(name, nb::make_tuple(base), attrs);
  }
  obj.reset();  // the unnamed instance, referenced nowhere else
  nb::object named = nb::inst_reference(cls, node.get());
  nb::detail::shared_from_cpp(std::static_pointer_cast<void>(node), named.ptr());
  return named;
}

nb::object next_functions(const Node& node) {
  nb::list items;
  for (const autograd::Edge& e : node.next_edges) items.append(nb::make_tuple(node_object(e.fn), e.input_nr));
  return nb::tuple(items);
}

}  // namespace

void init_autograd(nb::module_& m, nb::class_<Tensor>& cls) {
  nb::class_<autograd::HookHandle>(m, "_RemovableHandle").def("remove", &autograd::HookHandle::remove);
  nb::class_<Node>(m, "_Node")
      .def("name", &Node::name)
      .def_prop_ro("next_functions", &next_functions)
      .def_prop_ro("variable", [](const Node& n) -> nb::object {
        auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&n);
        EMBER_CHECK(acc, Error, "'", n.name(), "' object has no attribute 'variable'");
        auto impl = acc->leaf.lock();
        return impl ? nb::cast(Tensor(impl)) : nb::none();
      })
      .def("register_prehook", [](Node& n, nb::object fn) {
        static uint64_t next_id = uint64_t(1) << 62;  // apart from tensor hook ids
        uint64_t id = next_id++;
        n.pre_hooks.push_back({0, [fn = std::move(fn)](const Tensor& g) -> Tensor {
          nb::object r = fn(nb::make_tuple(g));
          return r.is_none() ? Tensor() : nb::cast<Tensor>(nb::tuple(r)[0]);
        }, id});
        return autograd::HookHandle(n.shared_from_this(), id);
      })
      .def("__repr__", [](nb::handle self) {
        return str("<", nb::cast<const Node&>(self).short_name(), " object at ", self.ptr(), ">");
      });

  cls.def_prop_rw("requires_grad", &Tensor::requires_grad, [](Tensor& t, bool r) { t.requires_grad_(r); })
      .def("requires_grad_", [](nb::handle self, bool r) {
        nb::cast<Tensor&>(self).requires_grad_(r);
        return nb::borrow(self);
      }, nb::arg("requires_grad") = true)
      .def_prop_ro("is_leaf", &Tensor::is_leaf)
      .def_prop_ro("_base", [](const Tensor& t) -> std::optional<Tensor> {
        return t.is_view() ? std::optional(t._base()) : std::nullopt;
      })
      .def("_is_view", &Tensor::is_view)
      .def_prop_rw("grad", [](const Tensor& t) -> nb::object {
        if (!t.is_leaf() && !t.retains_grad()) {
          warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
               "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
               "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
               "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
               "for more informations.");
        }
        Tensor g = t.grad();
        return g.defined() ? nb::cast(g) : nb::none();
      }, [](const Tensor& t, std::optional<Tensor> g) { t.set_grad(g ? *g : Tensor()); }, nb::arg("grad").none())
      .def_prop_ro("grad_fn", [](const Tensor& t) { return node_object(t.grad_fn()); })
      .def_prop_ro("output_nr", &Tensor::output_nr)
      .def_prop_ro("_version", &Tensor::version)
      .def_prop_ro("retains_grad", &Tensor::retains_grad)
      .def("retain_grad", &Tensor::retain_grad)
      .def("detach", &Tensor::detach)
      .def("detach_", [](nb::handle self) {
        nb::cast<Tensor&>(self).detach_();
        return nb::borrow(self);
      })
      .def_prop_rw("data", &Tensor::detach, [](Tensor& t, const Tensor& src) {
        // x.data = y: x takes y's storage and geometry, keeping its own autograd identity.
        TensorImpl& dst = *t.impl();
        dst.storage = src.impl()->storage;
        dst.sparse = src.impl()->sparse;
        dst.sizes = DimVector(src.sizes());
        dst.strides = DimVector(src.strides());
        dst.storage_offset = src.storage_offset();
        dst.dtype = src.dtype();
        dst.refresh_metadata();
      })
      .def("register_hook", [](const Tensor& t, nb::object fn) {
        EMBER_CHECK(t.requires_grad(), Error, "cannot register a hook on a tensor that doesn't require gradient");
        return autograd::register_hook(t, python_hook(std::move(fn)));
      })
      .def("backward", [](const Tensor& t, nb::handle gradient, std::optional<bool> retain_graph, bool create_graph,
                          nb::handle inputs) {
        autograd::backward({t}, tensor_list(gradient), retain_graph, create_graph, tensor_list(inputs));
      }, nb::arg("gradient") = nb::none(), nb::arg("retain_graph") = nb::none(), nb::arg("create_graph") = false,
         nb::arg("inputs") = nb::none());

  nb::class_<autograd::AutogradContext>(m, "_AutogradContext")
      .def("save_for_backward", [](autograd::AutogradContext& c, nb::handle tensors) {
        c.save_for_backward(tensor_list(tensors));
      })
      .def_prop_ro("saved_tensors", [](const autograd::AutogradContext& c) {
        nb::list out;
        for (const Tensor& t : c.get_saved_variables()) out.append(t.defined() ? nb::cast(t) : nb::none());
        return nb::tuple(out);
      })
      .def("mark_non_differentiable", [](autograd::AutogradContext& c, nb::handle tensors) {
        c.mark_non_differentiable(tensor_list(tensors));
      })
      .def("set_materialize_grads", &autograd::AutogradContext::set_materialize_grads);
  // Function.apply's core: forward(ctx) and backward(ctx, grads) are Python callables returning
  // sequences of tensors (None where there is no gradient).
  m.def("_run_function", [](const std::string& name, nb::handle inputs, nb::object forward, nb::object backward) {
    TensorList outs = autograd::run_function(
        name, tensor_list(inputs),
        [&](autograd::AutogradContext& ctx) { return tensor_list(forward(nb::cast(&ctx, nb::rv_policy::reference))); },
        [backward](autograd::AutogradContext& ctx, const TensorList& grads) {
          nb::list gs;
          for (const Tensor& g : grads) gs.append(g.defined() ? nb::cast(g) : nb::none());
          return tensor_list(backward(nb::cast(&ctx, nb::rv_policy::reference), nb::tuple(gs)));
        });
    nb::list out;
    for (const Tensor& t : outs) out.append(t.defined() ? nb::cast(t) : nb::none());
    return nb::tuple(out);
  });

  m.def("is_grad_enabled", &autograd::is_grad_enabled);
  m.def("_set_grad_enabled", &autograd::set_grad_enabled);
  m.def("is_inference_mode_enabled", &autograd::is_inference_mode_enabled);
  m.def("_set_inference_mode", &autograd::set_inference_mode_enabled);
  m.def("_backward", [](nb::handle tensors, nb::handle grads, std::optional<bool> retain_graph, bool create_graph,
                        nb::handle inputs) {
    autograd::backward(tensor_list(tensors), tensor_list(grads), retain_graph, create_graph, tensor_list(inputs));
  }, nb::arg("tensors"), nb::arg("grad_tensors").none(), nb::arg("retain_graph").none(), nb::arg("create_graph"),
     nb::arg("inputs").none());
  m.def("_grad", [](nb::handle outputs, nb::handle inputs, nb::handle grad_outputs, std::optional<bool> retain_graph,
                    bool create_graph, bool allow_unused) {
    TensorList result = autograd::grad(tensor_list(outputs), tensor_list(inputs), tensor_list(grad_outputs),
                                       retain_graph, create_graph, allow_unused);
    nb::list out;
    for (const Tensor& r : result) out.append(r.defined() ? nb::cast(r) : nb::none());
    return nb::tuple(out);
  }, nb::arg("outputs"), nb::arg("inputs"), nb::arg("grad_outputs").none(), nb::arg("retain_graph").none(),
     nb::arg("create_graph"), nb::arg("allow_unused"));
}

}  // namespace ember::py
