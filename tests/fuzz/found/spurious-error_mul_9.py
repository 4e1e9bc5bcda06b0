"""Fuzz reproducer (seed 3796): spurious-error at statement 0 (mul): ember raises RuntimeError: value cannot be converted to type int64_t without overflow

Run: python tests/fuzz/found/spurious-error_mul_9.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = m.tensor([1], dtype=m.uint8) * 2**63', 'out': 'r', 'op': 'mul', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
