# %% code c08-corpus
import random
rng = random.Random(99)
SYLL = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "an"]

def word():
    return "".join(rng.choice(SYLL) for _ in range(rng.randint(1, 4)))

docs = [" ".join(word() for _ in range(rng.randint(50, 400))) for _ in range(300)]
chars = sum(len(d) for d in docs)
print(f"documents: {len(docs)}")
print(f"characters: {chars:,}")
# %% code c08-table
def whitespace(d):
    return d.split()

def syllables(d):
    out = []
    for w in d.split():
        out.extend(w[i:i + 2] for i in range(0, len(w), 2))
    return out

def bigrams(d):
    return [d[i:i + 2] for i in range(len(d) - 1)]

print(f"{'tokenizer':<12}{'tokens':>10}{'vocab':>8}{'chars/token':>13}")
for name, f in [("whitespace", whitespace), ("syllable", syllables), ("bigram", bigrams)]:
    toks = [t for d in docs for t in f(d)]
    print(f"{name:<12}{len(toks):>10,}{len(set(toks)):>8,}{chars / len(toks):>13.2f}")
# %% code c08-longest
longest = max(docs, key=len)
print(f"longest document: {len(longest):,} chars, {len(longest.split())} words")
print(f"shortest document: {min(len(d) for d in docs):,} chars")
