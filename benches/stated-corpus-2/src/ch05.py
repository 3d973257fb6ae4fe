# %% code c05-exact
def birthday_exact(n, days=365):
    p = 1.0
    for i in range(n):
        p *= (days - i) / days
    return 1 - p

for n in (10, 23, 30, 50, 70):
    print(f"n={n}: P(shared) = {birthday_exact(n):.4f}")
# %% code c05-sim
import random
rng = random.Random(2024)
trials = 20000
hits = 0
for _ in range(trials):
    seen = set()
    for _ in range(23):
        d = rng.randrange(365)
        if d in seen:
            hits += 1
            break
        seen.add(d)
print(f"simulated P(shared | n=23) = {hits / trials:.3f} over {trials:,} trials")
# %% code c05-dice
from collections import Counter
rng = random.Random(5)
rolls = Counter(rng.randint(1, 6) + rng.randint(1, 6) for _ in range(36000))
print("sum  count  expected")
for s in range(2, 13):
    expected = 36000 * (6 - abs(s - 7)) / 36
    print(f"{s:3d} {rolls[s]:6d} {expected:9.0f}")
# %% code c05-exactdice
print("P(sum=7) exact =", 6 / 36)
print("P(sum=2) exact =", round(1 / 36, 4))
# %% code c05-first
n = 1
while birthday_exact(n) < 0.5:
    n += 1
print("smallest group with P > 1/2:", n)
