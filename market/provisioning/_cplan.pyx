# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled slot-capacity loops of the MOGA plan evaluator (Singh 2008, ch. 4.5, Fig. 2).

Twins of ``reference_fit``, ``reference_cover`` and ``reference_take`` in
:mod:`gridmarket.provisioning.schedule`, which run on the availability profile's
step-function primitives (:mod:`gridmarket.scheduling.profile`: ``window_min``,
``rises``, ``add_free``), with their semantics, tie rules and results
(``tests/market/provisioning/test_plan_kernel.py`` checks them against each
other and against those primitives); built at install time by Cython like the scheduling kernel, with
the same fallback. Each slot's free processors are a step function kept as two
Python lists (``times`` in seconds, ``free`` processors); a slot's ``end`` is
an int or ``inf`` (extensible), compared here as a double (exact for seconds
below 2**53).
"""

include "../_csearch.pxi"

from gridmarket.errors import InvalidInput


cpdef cover(list bin_slots, i64 t, i64 d, i64 need):
    """The slots with processors free throughout ``[t, t + d)`` if they hold ``need``, else ``None``."""
    cdef i64 wend = t + d, total = 0, low, f
    cdef list stack = [], times, free
    cdef Py_ssize_t i, n
    cdef tuple entry
    for entry in bin_slots:
        times = <list>entry[1]
        if <i64>times[0] > t or <double>wend > <double>entry[3]:
            continue
        free = <list>entry[2]
        n = len(times)
        i = bisect_right_list(times, t, 0, n) - 1
        low = <i64>free[i]
        i += 1
        while low != 0 and i < n and <i64>times[i] < wend:
            f = <i64>free[i]
            if f < low:
                low = f
            i += 1
        if low != 0:
            stack.append((entry[0], low, entry[3]))
            total += low
    return stack if total >= need else None


cpdef fit(list bin_slots, i64 ready, i64 d, i64 need):
    """Earliest start ``>= ready`` of ``need`` x ``d`` on one slot or a vertical stack (Fig. 2)."""
    cdef list usable = [], times, free
    cdef tuple entry
    cdef i64 first, tj, f, prev
    cdef double last
    cdef Py_ssize_t i, j, n
    cdef set cands
    for entry in bin_slots:
        first = <i64>(<list>entry[1])[0]
        if <double>entry[3] - <double>(first if first > ready else ready) >= <double>d:
            usable.append(entry)
    if not usable:
        return None
    stack = cover(usable, ready, d, need)
    if stack is not None:
        return ready, stack
    cands = set()
    for entry in usable:
        times = <list>entry[1]
        free = <list>entry[2]
        n = len(times)
        i = bisect_right_list(times, ready, 0, n)
        prev = <i64>free[i - 1] if i > 0 else 0
        last = <double>entry[3] - <double>d
        for j in range(i, n):
            tj = <i64>times[j]
            if <double>tj > last:
                break
            f = <i64>free[j]
            if f > prev:
                cands.add(tj)
            prev = f
    for t in sorted(cands):
        stack = cover(usable, t, d, need)
        if stack is not None:
            return t, stack
    return None


cdef Py_ssize_t _split(list times, list free, i64 t, Py_ssize_t lo):
    cdef Py_ssize_t i = bisect_right_list(times, t, lo, len(times)) - 1
    if i < 0:
        raise InvalidInput(f"profile: time {t} is before the profile origin {times[0]}")
    if <i64>times[i] == t:
        return i
    times.insert(i + 1, t)
    free.insert(i + 1, free[i])
    return i + 1


cpdef take(list times, list free, i64 a, i64 b, i64 q):
    """Remove ``q`` processors over ``[a, b)`` from a step function (``add_free(times, free, a, b, -q)``)."""
    cdef Py_ssize_t i = _split(times, free, a, 0)
    cdef Py_ssize_t j = _split(times, free, b, i)
    cdef Py_ssize_t k
    for k in range(i, j):
        free[k] = <i64>free[k] - q
    if j < len(times) and <i64>free[j] == <i64>free[j - 1]:
        del times[j]
        del free[j]
    if i > 0 and <i64>free[i] == <i64>free[i - 1]:
        del times[i]
        del free[i]


cpdef list pick(list stack, i64 need, set bought, list divisible, list unit_cost, list total_cost):
    """Processors per slot from the covering slots ``stack``: the cheapest first (``bought`` unchanged)."""
    cdef list ranked, members
    cdef tuple item
    cdef i64 left, low, q
    cdef set new
    while True:
        ranked = []
        for item in stack:
            k = item[0]
            if k in bought:
                ranked.append((0, 0.0, item[2], k, item[1]))
            elif divisible[k]:
                ranked.append((1, unit_cost[k], item[2], k, item[1]))
            else:
                ranked.append((2, total_cost[k], item[2], k, item[1]))
        ranked.sort()
        members = []
        left = need
        for item in ranked:
            low = <i64>item[4]
            q = left if left < low else low
            members.append((item[3], q))
            left -= q
            if left == 0:
                break
        new = set()
        for item in members:
            k = item[0]
            if k not in bought and not divisible[k]:
                new.add(k)
        if not new:
            return members
        bought = bought | new
