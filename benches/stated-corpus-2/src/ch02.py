# %% code c02-setup
import random
from collections import OrderedDict

class LRU:
    def __init__(self, capacity):
        self.capacity = capacity
        self.data = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key):
        if key in self.data:
            self.data.move_to_end(key)
            self.hits += 1
            return True
        self.misses += 1
        self.data[key] = True
        if len(self.data) > self.capacity:
            self.data.popitem(last=False)
        return False

rng = random.Random(7)
keys = list(range(1000))
weights = [1 / (i + 1) for i in keys]   # Zipf with s = 1
trace = rng.choices(keys, weights=weights, k=20000)
print(f"keys: {len(keys):,}  warm-up requests: {1000:,}")
print(f"requests: {len(trace):,}")
# %% code c02-sweep
for cap in (10, 50, 100, 500):
    c = LRU(cap)
    for k in trace:
        c.get(k)
    print(f"capacity={cap:<4} hit rate = {c.hits / len(trace):.1%}")
# %% code c02-cost
# cost model: a hit costs 0.2 ms, a miss 15 ms
c = LRU(100)
for k in trace:
    c.get(k)
cost_ms = c.hits * 0.2 + c.misses * 15
nocache_ms = len(trace) * 15
print({"hits": c.hits, "misses": c.misses})
print(f"estimated time: {cost_ms / 1000:.1f} s vs {nocache_ms / 1000:.1f} s without cache "
      f"({nocache_ms / cost_ms:.1f}x faster)")
# %% code c02-fifo
class FIFO(LRU):
    def get(self, key):
        if key in self.data:
            self.hits += 1
            return True
        self.misses += 1
        self.data[key] = True
        if len(self.data) > self.capacity:
            self.data.popitem(last=False)
        return False

f = FIFO(100)
for k in trace:
    f.get(k)
print(f"FIFO(100) hit rate = {f.hits / len(trace):.1%}, misses = {f.misses:,}")
