"""The seed documents' tensor basics, run with Ember.

    python examples/python/tensor_basics.py            # import ember as torch
    python examples/python/tensor_basics.py --torch    # the same program on PyTorch, for comparison

Walks through creation, dtypes and memory accounting, strides, views vs copies, contiguity,
indexing and printing. The output is identical with either library.
"""
import sys

import numpy as np

if "--torch" in sys.argv:
    import torch
else:
    import ember as torch


def section(title):
    print(f"\n== {title} ==")


section("Tensors and NumPy")
np_array = np.array([[1., 2.], [3., 4.]])
torch_tensor_from_np = torch.from_numpy(np_array)
print(f"PyTorch tensor from NumPy:\n{torch_tensor_from_np}")
np_array_from_torch = torch_tensor_from_np.numpy()
print(f"NumPy array from PyTorch:\n{np_array_from_torch}")
arr = np.array([1.0, 2.0, 3.0])
t = torch.from_numpy(arr)
arr[0] = 100.0
print("from_numpy shares memory:", t)

section("Creating tensors")
x = torch.zeros(4, 8)
print(f"Tensor x:\n{x}")
print(f"Data type of x: {x.dtype}")
print(f"Shape of x: {x.shape}")
torch.manual_seed(0)
for name, made in [("zeros", torch.zeros(3, 4)), ("ones", torch.ones(3, 4)), ("randn", torch.randn(3, 4)),
                   ("rand", torch.rand(3, 4)), ("arange", torch.arange(0, 12)), ("tensor", torch.tensor([[1, 2], [3, 4]])),
                   ("arange step", torch.arange(0, 10, 2)), ("linspace", torch.linspace(0, 1, 5)), ("eye", torch.eye(4))]:
    print(f"{name}: {made}")
print(torch.tensor([[1, 2], [3, 4], [5, 6]]))
print(torch.arange(5), torch.arange(2, 8), torch.arange(2, 8, 2))
print(torch.ones(2, 3, dtype=torch.float32))
print(torch.zeros(32, dtype=torch.long))

section("Memory accounting")
rows, cols = 4, 8
for dtype in [torch.float32, torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.int8, torch.int64, torch.bool]:
    x = torch.zeros(rows, cols, dtype=dtype)
    print(f"{dtype}: {x.element_size()} bytes/element, {x.nelement()} elements, "
          f"{x.element_size() * x.nelement()} bytes")
x = torch.zeros(2, 3)
print(x.shape, x.dtype, x.device, x.element_size(), x.nelement(), x.element_size() * x.nelement())
images = torch.empty(32, 3, 224, 224)
print("batch of images:", images.nelement(), "elements,", images.nelement() * images.element_size(), "bytes")

section("Dtypes and precision")
big = torch.tensor(70000.0)
print(big.half(), big.bfloat16())
print(torch.finfo(torch.float16))
print(torch.finfo(torch.bfloat16))
print(torch.iinfo(torch.int8))
x = torch.randn(3, 3)
print(x.half().dtype, x.bfloat16().dtype, x.to(torch.int8).dtype)
print(torch.tensor([3.7, -3.7, 300.0]).to(torch.int8))
print(torch.tensor([1.0, 1.0009765625, 1.00048828125]).half())
print(torch.tensor([448.0, 500.0, 0.3]).to(torch.float8_e4m3fn))

section("Strides")
x = torch.tensor([[1, 2, 3], [4, 5, 6]])
print(f"Tensor x:\n{x}")
print(f"Shape of x: {x.shape}")
print(f"Strides of x: {x.stride()}")
print(f"Is x contiguous? {x.is_contiguous()}")
y = x.T
print(f"Transposed view y:\n{y}")
print(f"Strides of y: {y.stride()}")
print(f"Is y contiguous? {y.is_contiguous()}")
print(f"Do x and y share storage? {x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()}")
x = torch.arange(12).reshape(3, 4)
print(x)
print(x.stride(), x[2, 1], 2 * x.stride()[0] + 1 * x.stride()[1])
y = x.t()
print(y.shape, y.stride(), y.is_contiguous(), x.data_ptr() == y.data_ptr())

section("Views vs copies")
x = torch.arange(12).reshape(3, 4)
a = x.view(6, 2)
b = x.reshape(6, 2)
c = x.t()
d = x[0]
e = x[:, 1]
f = x.expand(5, 3, 4)
g = x.permute(1, 0)
h = x.unsqueeze(0)
for name, v in zip("abcdefgh", [a, b, c, d, e, f, g, h]):
    print(name, tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(),
          v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
a[0, 0] = 999
print(x[0, 0])
z = y.contiguous()
print(z.stride(), z.data_ptr() == x.data_ptr())
copy = x.clone()
print(copy.data_ptr() == x.data_ptr(), x.to(torch.float16).dtype)
try:
    x.t().view(12)
except RuntimeError as err:
    print("view of a transpose:", err)
print(x.t().reshape(12))

section("Broadcasting with stride 0")
x = torch.tensor([[1], [2], [3]])
y = x.expand(3, 4)
print(y.stride())
print(y)

section("Indexing")
x = torch.arange(24).reshape(2, 3, 4)
print(x[0].shape, x[0, 1].shape, x[0, 1, 2], x[:, :2, :].shape, x[..., -1].shape)
print(x[..., -1])
print(x[:, None, 1, ::2])
x[0, 1:] = 5
x[:, 0] = torch.tensor([-1, -2, -3, -4])
print(x)

section("Playground")
t = torch.randn(4, 4)
for step, t in [("start", t), ("transpose", t.t()), ("contiguous", t.t().contiguous()),
                ("reshape", t.t().contiguous().reshape(2, 8))]:
    print(f"{step:10s} shape={tuple(t.shape)} strides={t.stride()} contiguous={t.is_contiguous()} "
          f"bytes={t.nelement() * t.element_size()}")
t = torch.zeros(3, 1, 4)
e = t.expand(3, 5, 4)
print("expand", e.stride(), "clone", e.clone().stride())
for dtype in [torch.float32, torch.float16, torch.int8]:
    print(dtype, torch.zeros(6, 8, dtype=dtype).nbytes)

section("Printing")
print(torch.arange(2000.0))
print(torch.linspace(-1e-5, 1e6, 7))
print(torch.tensor([[1e-8, 1.0], [float("inf"), float("nan")]]))
print(torch.tensor([], dtype=torch.int32), torch.empty(2, 0))
print(torch.ones(2, 2, requires_grad=True))
torch.set_printoptions(precision=2)
print(torch.tensor([3.14159, 2.71828]))
torch.set_printoptions(profile="default")
