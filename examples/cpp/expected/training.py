# The PyTorch program that prints what training.cpp must print (expected/training.txt).
import torch

torch.manual_seed(0)
x = torch.randn(64, 1)
y = 3 * x + 2 + 0.1 * torch.randn(64, 1)

w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.05
for step in range(1, 101):
    loss = (x.mm(w) + b - y).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if step == 1 or step % 20 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
print(f"w {w.detach()}\nb {b.detach()}")
test = torch.tensor([-1.0, 0.0, 1.0]).unsqueeze(1)
print(f"predictions at -1, 0, 1:\n{(test.mm(w) + b).detach()}")
