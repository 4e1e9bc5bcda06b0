"""Fuzz reproducer (seed 4804): exception-type at statement 0 (bitwise_and): ember TypeError: unsupported operand type(s) for &: 'Tensor' and 'complex'

Run: python tests/fuzz/found/exception-type_bitwise_and_14.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x & 1j', 'out': 'r', 'op': 'bitwise_and', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
