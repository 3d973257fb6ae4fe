# %% code c09-grid
import heapq
import random
from collections import deque

rng = random.Random(8)
W, H = 30, 20
walls = {(x, y) for x in range(W) for y in range(H) if rng.random() < 0.25}
walls.discard((0, 0))
walls.discard((W - 1, H - 1))
print(f"grid {W}x{H}, {len(walls)} walls ({len(walls) / (W * H):.0%})")
# %% code c09-bfs
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))

def bfs(start, goal):
    q = deque([start])
    dist = {start: 0}
    while q:
        x, y = q.popleft()
        if (x, y) == goal:
            return dist[(x, y)], len(dist)
        for dx, dy in STEPS:
            n = (x + dx, y + dy)
            if 0 <= n[0] < W and 0 <= n[1] < H and n not in walls and n not in dist:
                dist[n] = dist[(x, y)] + 1
                q.append(n)
    return None, len(dist)

steps, visited = bfs((0, 0), (W - 1, H - 1))
print("shortest path:", steps, "steps; cells visited:", visited)
# %% code c09-dijkstra
def dijkstra(start, goal):
    # entering a cell costs 1, or 5 on an odd row ("mud rows")
    pq = [(0, start)]
    best = {start: 0}
    pops = 0
    while pq:
        d, (x, y) = heapq.heappop(pq)
        pops += 1
        if (x, y) == goal:
            return d, pops
        if d > best[(x, y)]:
            continue
        for dx, dy in STEPS:
            n = (x + dx, y + dy)
            if 0 <= n[0] < W and 0 <= n[1] < H and n not in walls:
                nd = d + (5 if n[1] % 2 else 1)
                if nd < best.get(n, float("inf")):
                    best[n] = nd
                    heapq.heappush(pq, (nd, n))
    return None, pops

cost, pops = dijkstra((0, 0), (W - 1, H - 1))
print(f"cheapest cost: {cost} (heap pops: {pops})")
# %% code c09-reach
_, reach = bfs((0, 0), (-1, -1))
print(f"reachable cells: {reach} of {W * H - len(walls)} open cells")
