// PixelShuffleBackward0 / PixelUnshuffleBackward0: the inverse rearrangement of the gradient.
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
