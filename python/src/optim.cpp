// ember._C._optim: the fused multi-tensor steps (ember/optim/functional.h) that ember.optim's
// optimizers call once per param group.
#include "bindings.h"

namespace ember::py {

namespace F = optim::functional;

void init_optim(nb::module_& m) {
  nb::module_ o = m.def_submodule("_optim", "ember.optim's fused steps");
  o.def(
      "_sgd",
      [](const std::vector<Tensor>& params, const std::vector<Tensor>& grads, std::vector<std::optional<Tensor>> bufs,
         double lr, double momentum, double dampening, double weight_decay, bool nesterov, bool maximize) {
        std::vector<Tensor> b;
        for (auto& t : bufs) b.push_back(t ? *t : Tensor());
        F::sgd(params, grads, b, {lr, momentum, dampening, weight_decay, nesterov, maximize});
        return b;  // the momentum buffers, made on the first step
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("momentum_buffers"), nb::arg("lr"), nb::arg("momentum"),
      nb::arg("dampening"), nb::arg("weight_decay"), nb::arg("nesterov"), nb::arg("maximize"));
  o.def(
      "_adam",
      [](const std::vector<Tensor>& params, const std::vector<Tensor>& grads, const std::vector<Tensor>& exp_avgs,
         const std::vector<Tensor>& exp_avg_sqs, const std::vector<Tensor>& max_exp_avg_sqs,
         const std::vector<Tensor>& steps, double lr, double beta1, double beta2, double eps, double weight_decay,
         bool amsgrad, bool maximize, bool decoupled_weight_decay) {
        F::adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps,
                {lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay});
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"), nb::arg("exp_avg_sqs"), nb::arg("max_exp_avg_sqs"),
      nb::arg("steps"), nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"),
      nb::arg("amsgrad"), nb::arg("maximize"), nb::arg("decoupled_weight_decay"));
}

}  // namespace ember::py
