"""Fuzz reproducer (seed 1247): exception-type at statement 0 (prod): ember TypeError: argument 'dim' failed to unpack the object at pos 1 with error "Overflow when unpacking long long"

Run: python tests/fuzz/found/exception-type_prod_20.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.prod(2**63)', 'out': 'r', 'op': 'prod', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
