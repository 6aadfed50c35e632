"""Functions on Python values for the dy2static tests: converted, they must behave
exactly as written."""

def p_try(xs):
    """doc"""
    out = []
    for x in xs:
        try:
            if x == 0:
                continue
            if x < 0:
                return out, "neg"
            out.append(10 // x)
        except ZeroDivisionError:
            out.append(None)
        finally:
            out.append("f")
    else:
        out.append("else")
    return out, "done"


def p_while_true(n, *args, k=2, **kw):
    i, acc = 0, []
    while True:
        i += 1
        if i % k == 0:
            continue
        if i > n:
            break
        acc.append(i)
    else:
        acc.append("never")
    return acc, args, kw


def p_nested(n):
    def inner(v):
        return v * 2
    res = 0
    for i in range(n):
        for j in range(i):
            if j == 2:
                break
            if (i + j) % 3 == 0:
                continue
            res += inner(j)
            if res > 20:
                return res, i, j
    sq = [a * a for a in range(n) if a % 2]
    return res, sq, (lambda q: q + 1)(3)


def p_misc(a, b):
    if a:
        pass
    elif b:
        import math
        c = math.floor(2.5)
    else:
        c = 0
    first, *rest = [a, b, 3]
    y = 0 < a < 5 and b or "z"
    z = not a if b else (a or b)
    class K:
        v = 3
    return first, rest, y, z, K.v, (c if a or b else None) if not a else "a"


def p_recursive(n):
    if n <= 1:
        return 1
    return n * p_recursive(n - 1)


def p_range_forms(a, b):
    out = []
    for i in range(a, b, 2):
        out.append(i)
    for i in range(b, a, -3):
        out.append(i)
    for i in range(0):  # noqa: B007 (i keeps its value from the loop before)
        out.append("x")
    return out, i
