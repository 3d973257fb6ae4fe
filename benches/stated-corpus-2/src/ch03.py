# %% code c03-sim
import random
import statistics

def simulate(lam, mu, n, seed):
    """Single-server FIFO queue; returns the time each customer waited."""
    rng = random.Random(seed)
    t_arr = 0.0
    t_free = 0.0
    waits = []
    for _ in range(n):
        t_arr += rng.expovariate(lam)
        start = max(t_arr, t_free)
        waits.append(start - t_arr)
        t_free = start + rng.expovariate(mu)
    return waits
# %% code c03-table
print("rho   mean_wait   p95_wait   theory")
for lam in (0.5, 0.8, 0.9):
    w = simulate(lam, 1.0, 50000, seed=11)
    p95 = sorted(w)[int(0.95 * len(w))]
    theory = lam / (1.0 - lam)
    print(f"{lam:<5} {statistics.fmean(w):9.2f} {p95:10.2f} {theory:8.2f}")
# %% code c03-idle
w = simulate(0.9, 1.0, 50000, seed=11)
idle = sum(1 for x in w if x == 0.0)
print(f"customers who did not wait: {idle} of {len(w)} ({idle / len(w):.2%})")
print("longest wait:", round(max(w), 1), "time units")
# %% code c03-two
def simulate_two(lam, mu, n, seed):
    rng = random.Random(seed)
    t_arr = 0.0
    free = [0.0, 0.0]
    waits = []
    for _ in range(n):
        t_arr += rng.expovariate(lam)
        i = 0 if free[0] <= free[1] else 1
        start = max(t_arr, free[i])
        waits.append(start - t_arr)
        free[i] = start + rng.expovariate(mu)
    return waits

one = statistics.fmean(simulate(0.9, 1.0, 50000, seed=11))
two = statistics.fmean(simulate_two(1.8, 1.0, 50000, seed=11))
print(f"one fast server, rho=0.9: mean wait {one:.2f}")
print(f"two servers, same load:   mean wait {two:.2f}")
