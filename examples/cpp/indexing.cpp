// Indexing as in Python, spelled with libtorch's TensorIndex: x[1:, ::2] is x.index({Slice(1, None), Slice(None, None, 2)}).
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  using namespace ember::indexing;
  Tensor x = arange(12).reshape({3, 4});
  std::cout << "x:\n" << x << "\n";
  std::cout << "x[1]: " << x[1] << "\n";
  std::cout << "x[:, 1]: " << x.index({Slice(), 1}) << "\n";
  std::cout << "x[1:, ::2]:\n" << x.index({Slice(1, None), Slice(None, None, 2)}) << "\n";
  std::cout << "x[..., -1]: " << x.index({Ellipsis, -1}) << "\n";
  std::cout << "x[None].shape: " << x.index({None}).sizes() << "\n";
  Tensor view = x.index({Slice(), Slice(1, 3)});
  std::cout << "basic indexing gives views: offset " << view.storage_offset() << ", strides " << view.strides()
            << "\n";

  std::cout << "x[x > 6]: " << x.index({x > 6}) << "\n";
  std::cout << "x[[0, 2], [1, 3]]: " << x.index({tensor<int64_t>({0, 2}), tensor<int64_t>({1, 3})}) << "\n";
  std::cout << "x[[2, 0]]:\n" << x.index({tensor<int64_t>({2, 0})}) << "\n";

  Tensor y = x.clone();
  y.index_put_({y % 2 == 0}, 0);
  std::cout << "even entries zeroed:\n" << y << "\n";
  y.index_put_({Slice(), 0}, tensor<int64_t>({-1, -2, -3}));
  y[2] += 100;
  std::cout << "first column set, last row shifted:\n" << y << "\n";

  std::cout << "where(x > 5, x, -1):\n" << where(x > 5, x, full({}, -1)) << "\n";
  std::cout << "nonzero of x[0] > 1: " << (x[0] > 1).nonzero() << "\n";
  std::cout << "gather:\n" << x.gather(1, tensor<int64_t>({3, 0, 1}).unsqueeze(1)) << "\n";
  try {
    x.index({0, 0, 0});
  } catch (const IndexError& e) {
    std::cout << "error: " << e.what() << "\n";
  }
  return 0;
}
