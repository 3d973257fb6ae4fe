import sys, io, re, contextlib, traceback
for f in sys.argv[1:]:
    src = open(f).read()
    cells = re.split(r'^# %% ', src, flags=re.M)[1:]
    g = {}
    print("=====", f)
    for c in cells:
        head, _, body = c.partition("\n")
        kind, cid = head.split()
        if kind != "code": continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try: exec(compile(body, cid, "exec"), g)
            except Exception as e: print("RAISED", type(e).__name__, e)
        print(f"--- {cid}\n{buf.getvalue()}", end="")
