import json, re, sys
sys.path.insert(0, '.')
from md import MD
def lines(s):
    ls = s.split("\n")
    return [l + "\n" for l in ls[:-1]] + [ls[-1]] if s else []
for ch in MD:
    src = open(f"ch{ch}.py").read()
    parts = re.split(r'^# %% ', src, flags=re.M)[1:]
    code = []
    for c in parts:
        head, _, body = c.partition("\n")
        kind, cid = head.split()
        code.append((cid, body.rstrip("\n")))
    before = {b: (mid, t) for b, mid, t in MD[ch]}
    cells = []
    for cid, body in code:
        if cid in before:
            mid, t = before[cid]
            cells.append({"cell_type": "markdown", "id": mid, "metadata": {}, "source": lines(t)})
        cells.append({"cell_type": "code", "id": cid, "metadata": {}, "execution_count": None, "outputs": [], "source": lines(body)})
    nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
          "language_info": {"name": "python", "version": "3.11"}}, "nbformat": 4, "nbformat_minor": 5}
    json.dump(nb, open(f"../book/{ch}.ipynb", "w"), indent=1)
    print(ch, len(cells))
