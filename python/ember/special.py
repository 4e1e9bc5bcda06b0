"""ember.special: torch.special's names for the special functions Ember has."""
from . import _C

digamma = psi = _C.digamma
gammaln = _C.lgamma
erf, erfc, erfinv = _C.erf, _C.erfc, _C.erfinv
exp2, expm1, log1p = _C.exp2, _C.expm1, _C.log1p
expit = _C.sigmoid
i0 = _C.i0
i1 = _C._special_i1
logit = _C.logit
polygamma = _C.polygamma
sinc = _C.sinc
round = _C.round
xlogy = _C.xlogy
