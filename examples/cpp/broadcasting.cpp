// Broadcasting: shapes line up from the right, and size-1 or missing dims stretch without a copy (stride 0).
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  Tensor a = arange(3).reshape({3, 1});
  Tensor b = arange(4);
  Tensor c = a + b;
  std::cout << "a " << a.sizes() << " + b " << b.sizes() << " -> " << c.sizes() << "\n" << c << "\n";
  std::cout << "b expanded to [3, 4]: strides " << b.expand({3, 4}).strides() << "\n";

  Tensor x = arange(6, kFloat).reshape({2, 3});
  std::cout << "columns centered:\n" << x - x.mean(0) << "\n";
  std::cout << "rows scaled:\n" << x * tensor<float>({1, 10}).unsqueeze(1) << "\n";
  std::cout << "2 ** x:\n" << (2 + 0 * x).pow(x) << "\n";
  std::cout << "int + float promotes: " << (arange(3) + 0.5) << "\n";

  // A numerically stable log-softmax by hand, and the built-in one.
  Tensor logits = tensor<float>({1000, 1001, 1002});
  Tensor m = logits.amax();
  Tensor lse = m + (logits - m).exp().sum().log();
  std::cout << "by hand:  " << logits - lse << "\nbuilt in: " << logits.log_softmax(0) << "\n";

  try {
    arange(3) + arange(4);
  } catch (const Error& e) {
    std::cout << "error: " << e.what() << "\n";
  }
  return 0;
}
