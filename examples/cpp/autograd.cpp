// Autograd: gradients of scalar results, accumulation, no_grad and detach, autograd::grad and second derivatives.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  Tensor x = scalar_tensor(2.0, TensorOptions().dtype(kDouble).requires_grad(true));
  Tensor y = x.pow(2) + 3 * x + 1;
  std::cout << "y = " << y.detach() << ", from " << y.grad_fn()->short_name() << "\n";
  y.backward();
  std::cout << "dy/dx at 2: " << x.grad() << "\n";

  manual_seed(0);
  Tensor a = randn({3}, requires_grad());
  Tensor w = randn({3}, requires_grad());
  Tensor z = a.dot(w).pow(2);
  z.backward();
  std::cout << "dz/da = 2 (a.w) w: " << a.grad() << "\nby hand:          " << 2 * a.dot(w).detach() * w.detach()
            << "\n";

  a.grad().zero_();
  for (int i = 0; i < 3; ++i) (a * 2).sum().backward();
  std::cout << "three backward calls accumulate: " << a.grad() << "\n";
  {
    NoGradGuard no_grad;
    Tensor t = a * 2;
    std::cout << "under NoGradGuard requires_grad = " << std::boolalpha << t.requires_grad() << "\n";
  }
  std::cout << "detach: requires_grad = " << (a * 2).detach().requires_grad() << "\n";

  // d/dx sin(x) and d2/dx2 through create_graph
  Tensor u = tensor<double>({0.0, 1.0}, requires_grad());
  Tensor first = autograd::grad({u.sin().sum()}, {u}, {}, std::nullopt, true)[0];
  Tensor second = autograd::grad({first.sum()}, {u})[0];
  std::cout << "cos(u): " << first.detach() << "\n-sin(u): " << second << "\n";

  Tensor leaf = ones({2, 2}, requires_grad());
  Tensor out = (leaf * leaf).mean();
  std::cout << "is_leaf " << leaf.is_leaf() << " / " << out.is_leaf() << ", grad of mean(leaf^2): ";
  out.backward();
  std::cout << leaf.grad() << "\n";
  return 0;
}
