// Capturable Adam on CUDA: one multi-tensor pass over a group's parameters, each element taking the bias
// corrections from its tensor's step counter plus one (torch's capturable math: float32 corrections, lr / bc1 as
// lr * (1 / bc1), the denominator and eps scaled by the negated step size), then one kernel incrementing the counters.
#include "../../dispatch/adam_capturable.h"
#include "../../functors/optim.h"
#include "adam_capturable.h"
#include "multi_tensor.cuh"

namespace ember::cuda_backend {
namespace {

template <typename T>
struct AdamCapturableUpdate {
  using Elem = T;
  float* step;  // read here, moved by increment_steps after the pass
  AdamCapturableArgs a;
  __device__ void operator()(int64_t k, T* p, const T* g, T* m, T* v, T* vmax) const {
    const float t = *step + 1.0f;
    const float bc1 = 1.0f - powf(float(a.beta1), t), bc2 = 1.0f - powf(float(a.beta2), t);
    const float neg_step = (1.0f / bc1) * float(-a.lr);
    const T scale = T(sqrtf(bc2) * neg_step), shift = T((1.0f / neg_step) * float(a.eps));
    T d = a.maximize ? -g[k] : g[k];
    T x = p[k];
    if (a.decoupled) x = x * T(1 - a.lr * a.weight_decay);
    else if (a.weight_decay != 0) d = d + T(a.weight_decay) * x;
    const T mk = functors::lerp(m[k], d, T(1 - a.beta1));
    T vk = v[k] * T(a.beta2) + T(1 - a.beta2) * d * d;
    m[k] = mk;
    v[k] = vk;
    if (a.amsgrad) vk = vmax[k] = vmax[k] < vk ? vk : vmax[k];
    p[k] = x + mk / (sqrt(vk) / scale + shift);
  }
};

template <typename T>
__global__ void increment_steps(const TensorEntry<AdamCapturableUpdate<T>>* tensors, int64_t n) {
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) *tensors[i].f.step += 1.0f;
}

void adam_capturable(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                     const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                     const std::vector<Tensor>& max_exp_avg_sqs, const std::vector<Tensor>& steps,
                     const AdamCapturableArgs& args) {
  if (params.empty()) return;
  const Device device = params.front().device();
  DeviceGuard guard(device_index(device));
  auto launch = [&]<typename T>(T) {
    using F = AdamCapturableUpdate<T>;
    std::vector<TensorEntry<F>> tensors;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor* streams[5] = {&params[i], &grads[i], &exp_avgs[i], &exp_avg_sqs[i],
                                  args.amsgrad ? &max_exp_avg_sqs[i] : nullptr};
      TensorEntry<F> e{{}, params[i].numel(), F{steps[i].data_ptr<float>(), args}};
      for (size_t j = 0; j < 5; ++j) e.data[j] = streams[j] ? static_cast<T*>(streams[j]->data_ptr()) : nullptr;
      tensors.push_back(e);  // an empty tensor has no chunk, but its counter still counts
    }
    Tensor keep;
    const TensorEntry<F>* table = launch_entries(tensors, device, keep);
    if (!table) {  // no element anywhere: the counters alone
      for (const Tensor& s : steps) Tensor(s).add_(1);
      return;
    }
    increment_steps<T><<<1, kBlockThreads, 0, current_stream()>>>(table, int64_t(tensors.size()));
    EMBER_CUDA_LAUNCH();
  };
  if (params.front().dtype() == kFloat64) launch(double{});
  else launch(float{});
}

}  // namespace

void register_adam_capturable() { kernels::adam_capturable.set(DeviceType::CUDA, adam_capturable); }

}  // namespace ember::cuda_backend
