// The seed documents' tensor basics in C++: the same API and the same printed text as Python.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  Tensor x = zeros({4, 8});
  std::cout << "Tensor x:\n" << x << "\n";
  std::cout << "element size " << x.element_size() << ", elements " << x.numel() << ", bytes " << x.nbytes() << "\n";

  Tensor m = arange(12).reshape({3, 4});
  std::cout << m << "\nstrides (" << m.stride(0) << ", " << m.stride(1) << ")\n";
  Tensor t = m.t();
  std::cout << t << "\ncontiguous? " << std::boolalpha << t.is_contiguous()
            << ", shares storage? " << t.storage().is_alias_of(m.storage()) << "\n";
  Tensor c = t.contiguous();
  std::cout << "after contiguous(): strides (" << c.stride(0) << ", " << c.stride(1) << ")\n";

  Tensor col = tensor<int64_t>({1, 2, 3}).unsqueeze(1).expand({3, 4});
  std::cout << col << "\nexpanded strides (" << col.stride(0) << ", " << col.stride(1) << ")\n";

  std::cout << scalar_tensor(70000.0).to(kFloat16) << " " << scalar_tensor(70000.0).to(kBFloat16) << "\n";
  manual_seed(0);
  std::cout << randn({2, 3}) << "\n";
  try {
    m.t().view({12});
  } catch (const Error& e) {
    std::cout << "view of a transpose: " << e.what() << "\n";
  }
  return 0;
}
