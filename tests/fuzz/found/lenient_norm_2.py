"""Fuzz reproducer (seed 1514): lenient at statement 0 (norm): torch raises TypeError: len() of a 0-d tensor; ember gives ('T', 'float32', (3,), (1,), 0, False, b'\x00\x00@@{\xf0\x83@ES\xac@', [], None)

Run: python tests/fuzz/found/lenient_norm_2.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.norm(dim=m.tensor(0))', 'out': 'r', 'op': 'norm', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
