import numpy as np, math, sys
from freege import algebra
import freege.numeric.expression_law as el
el.critical_pushforwards = lambda expr: []
e = algebra.parse(sys.argv[1])
L = e.law()
print(L.intervals(), L.atoms())
# hand-written: semicircle(1) density, phi(x) = x^3 - x: sum over preimages
def sc(x): return np.sqrt(np.maximum(4 - x*x, 0)) / (2*math.pi)
def ref(y):
    r = np.roots([1, 0, -1, -y]); r = r[np.abs(r.imag) < 1e-12].real
    return sum(sc(x) / abs(3*x*x - 1) for x in r if abs(x) < 2)
lo, hi = L.support()
ys = np.linspace(lo, hi, 403)[1:-1]
crit = 2/(3*math.sqrt(3))
ys = np.concatenate([ys, [crit - 1e-3, crit + 1e-3, crit - 1e-6, crit + 1e-6, -crit + 1e-5]])
p = L.pdf(ys)
r = np.array([ref(y) for y in ys])
err = np.abs(p - r) / np.abs(r)
print('max rel err', err.max(), ys[err.argmax()], 'mass', L.mass())
