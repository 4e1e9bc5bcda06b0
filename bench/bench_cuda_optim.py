"""Optimizer steps on CUDA: Ember's multi-tensor launch vs torch's default (foreach) step, in one process.

Adam, AdamW, SGD with momentum and RMSprop on 10 tensors of 1M float32 parameters, Adam on the seed CNN's
26 tensors and on 26 tiny ones (a step's fixed cost). Bytes: Adam reads param, grad, exp_avg, exp_avg_sq and
writes three of them (28 a parameter).
"""
import torch

import ember
from bench_cuda_reduce import compare
from bench_optim import CNN_SHAPES, N, K, setup
from common import gpu_missing


def main():
    if gpu_missing("bench_cuda_optim"):
        return
    big = [(N,)] * K
    cases = [("Adam", big, {}, 28), ("AdamW", big, {}, 28), ("SGD", big, dict(momentum=0.9), 20),
             ("RMSprop", big, {}, 20), ("Adam", CNN_SHAPES, {}, 28), ("Adam", [(4,)] * 26, {}, 28)]
    for name, shapes, kw, per in cases:
        e, t = (setup(lib, name, shapes, device="cuda", lr=1e-3, **kw) for lib in (ember, torch))
        n = sum(torch.Size(s).numel() for s in shapes)
        compare(f"{name} step, {len(shapes)} tensors, {n} params", e.step, t.step, per * n)


if __name__ == "__main__":
    main()
