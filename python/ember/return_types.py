"""Named tuples returned by ops with several results, printed as torch prints them."""
import collections


def _named(name, fields):
    base = collections.namedtuple(name, fields)

    class ReturnType(base):
        __slots__ = ()

        def __repr__(self):
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"torch.return_types.{name}(\n{body})"

    ReturnType.__name__ = ReturnType.__qualname__ = name
    return ReturnType


max = _named("max", ["values", "indices"])
min = _named("min", ["values", "indices"])
sort = _named("sort", ["values", "indices"])
topk = _named("topk", ["values", "indices"])
kthvalue = _named("kthvalue", ["values", "indices"])
median = _named("median", ["values", "indices"])
nanmedian = _named("nanmedian", ["values", "indices"])
mode = _named("mode", ["values", "indices"])
cummax = _named("cummax", ["values", "indices"])
cummin = _named("cummin", ["values", "indices"])
aminmax = _named("aminmax", ["min", "max"])
frexp = _named("frexp", ["mantissa", "exponent"])
linalg_svd = _named("linalg_svd", ["U", "S", "Vh"])
svd = _named("svd", ["U", "S", "V"])
linalg_inv_ex = _named("linalg_inv_ex", ["inverse", "info"])
linalg_slogdet = _named("linalg_slogdet", ["sign", "logabsdet"])
slogdet = _named("slogdet", ["sign", "logabsdet"])
linalg_cholesky_ex = _named("linalg_cholesky_ex", ["L", "info"])
linalg_qr = _named("linalg_qr", ["Q", "R"])
linalg_eigh = _named("linalg_eigh", ["eigenvalues", "eigenvectors"])
# what those ops return when called with out=(values, indices), as torch
sort_out, topk_out, kthvalue_out, median_out, nanmedian_out, mode_out, cummax_out, cummin_out, max_out, min_out = (
    _named(f"{n}_out", ["values", "indices"])
    for n in ("sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin", "max", "min"))
