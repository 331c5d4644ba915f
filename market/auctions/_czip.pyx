# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled ZIP trading day: the twin of ``gridmarket.auctions.zip.reference_day_arrays`` (Cliff 1997).

One pass over the traders a step finds Cliff's movers; the live traders are looked for again only
after a trade (only a trade changes them), and the best standing bid and ask are kept from step to
step (looked for again only when the best one is withdrawn or traded); each mover's update is the reference's expression, operation for operation, so the
margins and momenta agree to the bit (the extension is built with floating-point contraction off:
no fused multiply-add). The generators are read as the reference reads them, through their bit generators' C interface
(numpy's ``bitgen_t``, from ``Generator.bit_generator.capsule``): the shouter as
``rng.integers(live)`` draws it (Lemire's bounded method on 32-bit outputs, numpy's
``buffered_bounded_lemire_uint32``), the movers' ``(R, A)`` as ``draw.random(2 * movers)`` does
(one ``next_double`` each). ``tests/market/auctions/test_zip_kernel.py`` checks both draws
against the Generator's own, and the day against the reference.
"""

import numpy as np

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport INFINITY
from libc.stdint cimport UINT32_MAX, uint32_t, uint64_t


ctypedef struct bitgen_t:  # numpy/random/bitgen.h, field for field
    void *state
    uint64_t (*next_uint64)(void *st) noexcept nogil
    uint32_t (*next_uint32)(void *st) noexcept nogil
    double (*next_double)(void *st) noexcept nogil
    uint64_t (*next_raw)(void *st) noexcept nogil


cdef bitgen_t *_bitgen(generator) except NULL:
    return <bitgen_t *>PyCapsule_GetPointer(generator.bit_generator.capsule, "BitGenerator")


cdef uint64_t _below(bitgen_t *g, uint64_t n) noexcept nogil:
    """``Generator.integers(n)`` for ``1 <= n <= 2**32``: the same value and the same draws."""
    cdef uint64_t rng = n - 1
    cdef uint32_t rng_excl, leftover, threshold
    cdef uint64_t m
    if rng == 0:
        return 0
    if rng == UINT32_MAX:
        return g.next_uint32(g.state)
    rng_excl = <uint32_t>(rng + 1)
    m = (<uint64_t>g.next_uint32(g.state)) * rng_excl
    leftover = <uint32_t>m
    if leftover < rng_excl:
        threshold = (<uint32_t>UINT32_MAX - <uint32_t>rng) % rng_excl
        while leftover < threshold:
            m = (<uint64_t>g.next_uint32(g.state)) * rng_excl
            leftover = <uint32_t>m
    return m >> 32


def below(generator, uint64_t n):
    """``generator.integers(n)`` as the day draws it (exposed for the tests); ``1 <= n <= 2**32``."""
    if n < 1 or n > (<uint64_t>UINT32_MAX) + 1:
        raise ValueError(f"n must be in [1, 2**32], got {n}")
    return int(_below(_bitgen(generator), n))


cdef Py_ssize_t _best(unsigned char[::1] has, const unsigned char[::1] ask, double[::1] standing,
                      long long[::1] arrival, Py_ssize_t n, bint side_ask) noexcept:
    """The best standing shout of one side: highest bid (lowest ask), earliest among equals; -1 if none."""
    cdef Py_ssize_t j = -1, k
    cdef double best = 0.0
    for k in range(n):
        if has[k] and (ask[k] != 0) == side_ask:
            if j < 0 or (standing[k] < best if side_ask else standing[k] > best) or (
                    standing[k] == best and arrival[k] < arrival[j]):
                j = k
                best = standing[k]
    return j


def day_arrays(const unsigned char[::1] ask, const double[::1] limit, double[::1] mu, const double[::1] beta,
               const double[::1] gamma, double[::1] momentum, unsigned char[::1] active, rng, draw,
               Py_ssize_t steps):
    """See ``reference_day_arrays``: ``(trades, bid shouts, ask shouts)``; ``mu``, ``momentum``, ``active`` change."""
    cdef Py_ssize_t n = limit.shape[0]
    live_buf = np.empty(n, dtype=np.intp)
    movers_buf = np.empty(n, dtype=np.intp)
    p_buf = np.empty(n, dtype=np.float64)
    standing_buf = np.zeros(n, dtype=np.float64)
    has_buf = np.zeros(n, dtype=np.uint8)
    arrival_buf = np.zeros(n, dtype=np.int64)
    step_buf = np.zeros(n, dtype=np.int64)
    higher_buf = np.zeros(n, dtype=np.uint8)
    cdef Py_ssize_t[::1] live = live_buf
    cdef Py_ssize_t[::1] movers = movers_buf
    cdef double[::1] p = p_buf
    cdef double[::1] standing = standing_buf
    cdef unsigned char[::1] has = has_buf
    cdef long long[::1] arrival = arrival_buf
    cdef long long[::1] arrival_step = step_buf
    cdef unsigned char[::1] higher = higher_buf
    u_buf = np.empty(2 * n, dtype=np.float64)
    cdef double[::1] u = u_buf
    cdef bitgen_t *shouter = _bitgen(rng)
    cdef bitgen_t *mover = _bitgen(draw)
    cdef Py_ssize_t step, k, t, i, j, n_live, n_movers
    cdef long long seq = 0
    cdef Py_ssize_t n_bid = 0, n_ask = 0
    cdef bint any_bid, any_ask, side_ask, done, up, down, lower
    cdef double max_bid, min_ask, q, best, price, pk, target, delta, m, new, r_low, r_high, a_low, a_high
    cdef Py_ssize_t best_bid = -1, best_ask = -1  # the best standing bid and ask (module notes of the twin)
    cdef bint stale = True  # the live traders and their limits need a new look (at the start, after a trade)
    trades = []
    for step in range(steps):
        if stale:  # only a trade changes who is live, and limits never change
            n_live = 0
            any_bid = any_ask = False
            max_bid = -INFINITY
            min_ask = INFINITY
            for k in range(n):
                if active[k]:
                    live[n_live] = k
                    n_live += 1
                    if ask[k]:
                        any_ask = True
                        if limit[k] < min_ask:
                            min_ask = limit[k]
                    else:
                        any_bid = True
                        if limit[k] > max_bid:
                            max_bid = limit[k]
            stale = False
        if not any_bid or not any_ask or max_bid < min_ask:
            break
        i = live[<Py_ssize_t>_below(shouter, n_live)]
        has[i] = 0
        q = limit[i] * (1.0 + mu[i])
        side_ask = ask[i] != 0
        if side_ask:
            n_ask += 1
            if best_ask == i:  # its standing shout is withdrawn: find the next best
                best_ask = _best(has, ask, standing, arrival, n, True)
            j = best_bid
        else:
            n_bid += 1
            if best_bid == i:
                best_bid = _best(has, ask, standing, arrival, n, False)
            j = best_ask
        best = standing[j] if j >= 0 else 0.0
        done = False
        if j >= 0 and ((q <= best) if side_ask else (q >= best)):
            price = best
            if side_ask:
                trades.append((j, int(arrival_step[j]), i, step, price))
            else:
                trades.append((i, step, j, int(arrival_step[j]), price))
            active[i] = 0
            active[j] = 0
            has[j] = 0
            done = True
            stale = True
            if side_ask:
                best_bid = _best(has, ask, standing, arrival, n, False)
            else:
                best_ask = _best(has, ask, standing, arrival, n, True)
        if not done:
            seq += 1
            has[i] = 1
            standing[i] = q
            arrival[i] = seq
            arrival_step[i] = step
            price = q
            # the newest shout leads its side only if strictly better (equals: the earlier arrival leads)
            if side_ask:
                if best_ask < 0 or q < standing[best_ask]:
                    best_ask = i
            elif best_bid < 0 or q > standing[best_bid]:
                best_bid = i
        # the movers of Cliff's rule (ZIPTrader.observe), in the traders' order
        n_movers = 0
        for k in range(n):
            pk = limit[k] * (1.0 + mu[k])
            p[k] = pk
            # a trade raises the margin of every trader whose price it matched or beat, active or not
            up = done and ((pk <= price) if ask[k] else (pk >= price))
            if up:
                higher[n_movers] = ask[k]
                movers[n_movers] = k
                n_movers += 1
                continue
            if not active[k]:
                continue
            if ask[k]:
                lower = (pk >= price) and (done != side_ask)
            else:
                lower = (pk <= price) and (done == side_ask)
            if lower:
                higher[n_movers] = not ask[k]
                movers[n_movers] = k
                n_movers += 1
        if n_movers == 0:
            continue
        for t in range(2 * n_movers):
            u[t] = mover.next_double(mover.state)
        for t in range(n_movers):
            k = movers[t]
            if higher[t]:  # seller raising / buyer lowering its margin: shout higher
                r_low, r_high, a_low, a_high = 1.0, 1.05, 0.0, 0.05
            else:
                r_low, r_high, a_low, a_high = 0.95, 1.0, -0.05, 0.0
            target = (r_low + (r_high - r_low) * u[2 * t]) * price + (a_low + (a_high - a_low) * u[2 * t + 1])
            pk = p[k]
            delta = beta[k] * (target - pk)
            m = gamma[k] * momentum[k] + (1.0 - gamma[k]) * delta
            momentum[k] = m
            new = (pk + m) / limit[k] - 1.0
            if ask[k]:
                mu[k] = new if new >= 0.0 else 0.0
            else:
                mu[k] = 0.0 if new >= 0.0 else (new if new >= -1.0 else -1.0)
    return trades, n_bid, n_ask
