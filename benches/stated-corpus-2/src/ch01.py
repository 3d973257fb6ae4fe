# %% code c01-load
import re
from collections import Counter

TEXT = """
The queue was long and the night was cold. The clerk counted the parcels twice,
then counted the stamps, then counted the coins in the drawer. Every parcel had a
number and every number had a shelf. When the last parcel left the counter the clerk
wrote the total in the ledger, closed the ledger, and turned off the lamp. In the
morning the ledger was the first thing the manager read, and the total was the first
number the manager checked. A ledger that does not add up is a ledger nobody trusts.
"""
words = re.findall(r"[a-z']+", TEXT.lower())
print(f"tokens: {len(words)}")
print(f"distinct: {len(set(words))}")
# %% code c01-top
counts = Counter(words)
print("word      count")
for w, c in counts.most_common(5):
    print(f"{w:<8} {c:6d}")
# %% code c01-ratio
ratio = len(counts) / len(words)
print(f"type/token ratio = {ratio:.4f}")
# %% code c01-hapax
assert sum(counts.values()) == len(words)
hapax = sum(1 for c in counts.values() if c == 1)
print("hapax legomena:", hapax, f"({hapax / len(counts):.1%} of types)")
# %% code c01-lengths
lengths = Counter(len(w) for w in words)
print("longest word:", max(words, key=len), "with", max(lengths), "letters")
print("mean word length:", round(sum(len(w) for w in words) / len(words), 2))
