# %% code c06-class
import hashlib
import math

class Bloom:
    def __init__(self, m, k):
        self.m = m
        self.k = k
        self.bits = bytearray(m)

    def _idx(self, item):
        h = hashlib.sha256(item.encode()).digest()
        a = int.from_bytes(h[:8], "big")
        b = int.from_bytes(h[8:16], "big")
        return [(a + i * b) % self.m for i in range(self.k)]

    def add(self, item):
        for i in self._idx(item):
            self.bits[i] = 1

    def __contains__(self, item):
        return all(self.bits[i] for i in self._idx(item))
# %% code c06-sweep
n = 5000
for per in (8, 10, 16):
    m = n * per
    k = max(1, round(per * math.log(2)))
    bf = Bloom(m, k)
    for i in range(n):
        bf.add(f"user-{i}")
    fp = sum(1 for i in range(n, n + 20000) if f"user-{i}" in bf)
    theory = (1 - math.exp(-k * n / m)) ** k
    print(f"bits/item={per:2d} k={k} measured_fp={fp / 20000:.4f} theory={theory:.4f}")
# %% code c06-fill
bf = Bloom(50000, 7)
for i in range(5000):
    bf.add(f"user-{i}")
ones = sum(bf.bits)
print(f"bits set: {ones:,} of {bf.m:,} ({ones / bf.m:.1%})")
# %% code c06-mem
print(f"memory for 1,000,000 items at 10 bits each: {1_000_000 * 10 / 8 / 1024:.0f} KiB")
print(f"a set of 1,000,000 short strings: roughly {1_000_000 * 60 / 1024 / 1024:.0f} MiB")
