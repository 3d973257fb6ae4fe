# %% code c10-sched
def backoff(base=0.1, factor=2.0, cap=5.0, attempts=8):
    return [min(cap, base * factor ** i) for i in range(attempts)]

sched = backoff()
print("delays (s):", sched)
print("total wait if every attempt fails:", round(sum(sched), 2), "s")
# %% code c10-sim
import random
from collections import Counter
rng = random.Random(13)
needed = Counter()
for _ in range(10000):
    for attempt in range(1, 5):
        if rng.random() >= 0.3:
            needed[attempt] += 1
            break
    else:
        needed["gave up"] += 1
for k in (1, 2, 3, 4, "gave up"):
    print(f"{k}: {needed[k]}")
# %% code c10-jitter
rng = random.Random(21)
jittered = [round(rng.uniform(0, d), 3) for d in sched]
print("full jitter:", jittered)
print(f"mean jittered total = {sum(jittered):.2f} s")
# %% code c10-budget
success = 10000 - needed["gave up"]
print(f"success rate: {success / 10000:.2%}; expected attempts per request: "
      f"{sum(k * v for k, v in needed.items() if k != 'gave up') / success:.3f}")
# %% code c10-raise
class RetryBudgetExceeded(Exception):
    pass

raise RetryBudgetExceeded(f"{needed['gave up']} requests exhausted their retry budget")
