# The PyTorch program that prints what tensor_basics.cpp must print (expected/tensor_basics.txt).
import torch

x = torch.zeros(4, 8)
print(f"Tensor x:\n{x}")
print(f"element size {x.element_size()}, elements {x.numel()}, bytes {x.nbytes}")

m = torch.arange(12).reshape(3, 4)
print(f"{m}\nstrides ({m.stride(0)}, {m.stride(1)})")
t = m.t()
print(f"{t}\ncontiguous? {str(t.is_contiguous()).lower()}, "
      f"shares storage? {str(t.untyped_storage().data_ptr() == m.untyped_storage().data_ptr()).lower()}")
c = t.contiguous()
print(f"after contiguous(): strides ({c.stride(0)}, {c.stride(1)})")

col = torch.tensor([1, 2, 3]).unsqueeze(1).expand(3, 4)
print(f"{col}\nexpanded strides ({col.stride(0)}, {col.stride(1)})")

print(f"{torch.scalar_tensor(70000.0).to(torch.float16)!s} {torch.scalar_tensor(70000.0).to(torch.bfloat16)!s}")
torch.manual_seed(0)
print(torch.randn(2, 3))
try:
    m.t().view(12)
except RuntimeError as e:
    print(f"view of a transpose: {e}")
