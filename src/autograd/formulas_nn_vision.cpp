// PixelShuffleBackward0 / PixelUnshuffleBackward0 (the inverse rearrangement of the gradient), and the adjoint of a
// linear map (unfold / fold).
#include "ember/nn/vision.h"
#include "formulas.h"

namespace ember::autograd {

void record_pixel_shuffle(const Tensor& result, const Tensor& self, int64_t r, bool shuffle) {
  record(shuffle ? "PixelShuffleBackward0" : "PixelUnshuffleBackward0", result, {&self}, {},
         [r, shuffle](const BackwardContext& c) {
    return TensorList{shuffle ? nn::functional::pixel_unshuffle(c.grads[0], r)
                              : nn::functional::pixel_shuffle(c.grads[0], r)};
  });
}

}  // namespace ember::autograd

namespace ember::autograd {

void record_adjoint(const char* name, const Tensor& result, const Tensor& self,
                    std::function<Tensor(const Tensor&)> adjoint) {
  record(name, result, {&self}, {}, [adjoint](const BackwardContext& c) { return TensorList{adjoint(c.grads[0])}; });
}

}  // namespace ember::autograd
