# %% code c04-tenth
import math
xs = [0.1] * 10
print("naive sum of ten 0.1:", sum(xs))
print("math.fsum:", math.fsum(xs))
print("error:", sum(xs) - 1.0)
# %% code c04-kahan
import random

def kahan(values):
    s = 0.0
    c = 0.0
    for v in values:
        y = v - c
        t = s + y
        c = (t - s) - y
        s = t
    return s

rng = random.Random(3)
vals = [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8) for _ in range(100_000)]
exact = math.fsum(vals)
print(f"exact = {exact:.6e}")
for name, f in [("naive", sum), ("kahan", kahan)]:
    r = f(vals)
    print(f"{name:6} rel_err={abs(r - exact) / abs(exact):.3e}")
# %% code c04-limits
import sys
print(f"machine epsilon = {sys.float_info.epsilon:.3e}")
print(f"smallest normal = {sys.float_info.min:.3e}")
print("decimal digits =", sys.float_info.dig)
# %% code c04-assert
assert math.isclose(kahan(xs), 1.0)
assert sum(xs) != 1.0
# %% code c04-cancel
a = 1.0000001
b = 1.0
print("a - b =", a - b)
print("relative error of the difference:", f"{abs((a - b) - 1e-7) / 1e-7:.2e}")
