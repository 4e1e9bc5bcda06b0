# The PyTorch program that prints what indexing.cpp must print (expected/indexing.txt).
import torch

x = torch.arange(12).reshape(3, 4)
print(f"x:\n{x}")
print(f"x[1]: {x[1]}")
print(f"x[:, 1]: {x[:, 1]}")
print(f"x[1:, ::2]:\n{x[1:, ::2]}")
print(f"x[..., -1]: {x[..., -1]}")
print(f"x[None].shape: {list(x[None].shape)}")
view = x[:, 1:3]
print(f"basic indexing gives views: offset {view.storage_offset()}, strides {list(view.stride())}")

print(f"x[x > 6]: {x[x > 6]}")
print(f"x[[0, 2], [1, 3]]: {x[[0, 2], [1, 3]]}")
print(f"x[[2, 0]]:\n{x[[2, 0]]}")

y = x.clone()
y[y % 2 == 0] = 0
print(f"even entries zeroed:\n{y}")
y[:, 0] = torch.tensor([-1, -2, -3])
y[2] += 100
print(f"first column set, last row shifted:\n{y}")

print(f"where(x > 5, x, -1):\n{torch.where(x > 5, x, torch.full((), -1))}")
print(f"nonzero of x[0] > 1: {(x[0] > 1).nonzero()}")
print(f"gather:\n{x.gather(1, torch.tensor([3, 0, 1]).unsqueeze(1))}")
try:
    x[0, 0, 0]
except IndexError as e:
    print(f"error: {e}")
