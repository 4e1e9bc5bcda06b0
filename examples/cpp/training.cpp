// A tiny training loop by hand: linear regression y = 3x + 2 fitted by gradient descent on plain tensors.
#include <ember/ember.h>

#include <cstdio>
#include <iostream>

int main() {
  using namespace ember;
  manual_seed(0);
  Tensor x = randn({64, 1});
  Tensor y = 3 * x + 2 + 0.1 * randn({64, 1});

  Tensor w = zeros({1, 1}, requires_grad());
  Tensor b = zeros({1}, requires_grad());
  const double lr = 0.05;
  for (int step = 1; step <= 100; ++step) {
    Tensor loss = (x.mm(w) + b - y).pow(2).mean();
    loss.backward();
    {
      NoGradGuard no_grad;  // the update is not part of the graph
      w -= lr * w.grad();
      b -= lr * b.grad();
    }
    w.grad().zero_();
    b.grad().zero_();
    if (step == 1 || step % 20 == 0) std::printf("step %3d  loss %.4f\n", step, loss.item<double>());
  }
  std::cout << "w " << w.detach() << "\nb " << b.detach() << "\n";
  Tensor test = tensor<float>({-1, 0, 1}).unsqueeze(1);
  std::cout << "predictions at -1, 0, 1:\n" << (test.mm(w) + b).detach() << "\n";
  return 0;
}
