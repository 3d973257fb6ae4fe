# %% code c07-data
import random
rng = random.Random(42)
temps = [round(rng.gauss(-3.5, 6.0), 1) for _ in range(1000)]
print("first five readings:", temps[:5])
print("min, max:", (min(temps), max(temps)))
# %% code c07-welford
class Welford:
    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def push(self, x):
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    @property
    def var(self):
        return self.m2 / (self.n - 1)

w = Welford()
for t in temps:
    w.push(t)
print(f"n={w.n} mean={w.mean:.3f} var={w.var:.3f} sd={w.var ** 0.5:.3f}")
# %% code c07-check
import statistics
print("statistics module:", round(statistics.fmean(temps), 3), round(statistics.variance(temps), 3))
below = sum(1 for t in temps if t < 0)
print(f"readings below freezing: {below} ({below / len(temps) * 100:.1f}%)")
# %% code c07-window
from collections import deque
win = deque(maxlen=24)
peaks = []
for t in temps:
    win.append(t)
    if len(win) == 24:
        peaks.append(statistics.fmean(win))
print(f"24-reading moving average ranges from {min(peaks):.2f} to {max(peaks):.2f}")
