"""Pins the reference to torch's AVX2 kernels on every machine; import it before torch.

torch's AVX-512 kernels round differently at special values from its AVX2 ones (oneDNN's gelu(inf) is nan, MKL's
float64 x ** 0.5 is 1 ulp off sqrt, the vectorised elu and logit gradients differ at nan and -0.0), so the tests
and the fuzzer compare against one reference wherever they run. Benchmarks leave torch at its full speed.
"""
import os

for _var, _isa in (("ATEN_CPU_CAPABILITY", "avx2"), ("ONEDNN_MAX_CPU_ISA", "AVX2"), ("MKL_ENABLE_INSTRUCTIONS", "AVX2")):
    os.environ.setdefault(_var, _isa)
