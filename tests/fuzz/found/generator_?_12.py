"""Fuzz reproducer (seed 10067009): generator at statement 0 (?): torch side: ('crash', 'signal SIGFPE', ' output numel). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)\n<stri

Run: python tests/fuzz/found/generator_?_12.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
]

if __name__ == "__main__":
    main(PROGRAM)
