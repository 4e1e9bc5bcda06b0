# The PyTorch program that prints what broadcasting.cpp must print (expected/broadcasting.txt).
import torch

a = torch.arange(3).reshape(3, 1)
b = torch.arange(4)
c = a + b
print(f"a {list(a.shape)} + b {list(b.shape)} -> {list(c.shape)}\n{c}")
print(f"b expanded to [3, 4]: strides {list(b.expand(3, 4).stride())}")

x = torch.arange(6, dtype=torch.float).reshape(2, 3)
print(f"columns centered:\n{x - x.mean(0)}")
print(f"rows scaled:\n{x * torch.tensor([1.0, 10.0]).unsqueeze(1)}")
print(f"2 ** x:\n{(2 + 0 * x).pow(x)}")
print(f"int + float promotes: {torch.arange(3) + 0.5}")

logits = torch.tensor([1000.0, 1001.0, 1002.0])
m = logits.amax()
lse = m + (logits - m).exp().sum().log()
print(f"by hand:  {logits - lse}\nbuilt in: {logits.log_softmax(0)}")

try:
    torch.arange(3) + torch.arange(4)
except RuntimeError as e:
    print(f"error: {e}")
