// Capturable Adam on CUDA: one pass per parameter, each thread taking the bias corrections from the device step
// counter (torch's capturable math: float32 corrections, lr / bc1 as lr * (1 / bc1), eps and the denominator scaled
// by the negated step size), then the update in the parameter's dtype.
#include "../../dispatch/adam_capturable.h"
#include "../../functors/optim.h"
#include "../runtime.h"

namespace ember::cuda_backend {
namespace {

template <typename T>
__global__ void adam_capturable_kernel(T* p, const T* g, T* m, T* v, T* vmax, const float* step, int64_t n,
                                       AdamCapturableArgs a) {
  const float t = *step;
  const float bc1 = 1.0f - powf(float(a.beta1), t), bc2 = 1.0f - powf(float(a.beta2), t);
  const float neg_step = (1.0f / bc1) * float(-a.lr);
  const T scale = T(sqrtf(bc2) * neg_step), shift = T((1.0f / neg_step) * float(a.eps));
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
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
}

void adam_capturable(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor& max_exp_avg_sq, const Tensor& step, const AdamCapturableArgs& args) {
  const int64_t n = param.numel();
  if (n == 0) return;
  DeviceGuard guard(device_index(param.device()));
  auto launch = [&]<typename T>(T) {
    adam_capturable_kernel<T><<<grid_for(n, 1), kBlockThreads, 0, current_stream()>>>(
        static_cast<T*>(param.data_ptr()), static_cast<const T*>(grad.data_ptr()), static_cast<T*>(exp_avg.data_ptr()),
        static_cast<T*>(exp_avg_sq.data_ptr()),
        args.amsgrad ? static_cast<T*>(max_exp_avg_sq.data_ptr()) : nullptr, step.data_ptr<float>(), n, args);
    EMBER_CUDA_LAUNCH();
  };
  if (param.dtype() == kFloat64) launch(double{});
  else launch(float{});
}

}  // namespace

void register_adam_capturable() { kernels::adam_capturable.set(DeviceType::CUDA, adam_capturable); }

}  // namespace ember::cuda_backend
