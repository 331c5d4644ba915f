# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
# distutils: extra_compile_args = -ffp-contract=off
"""Compiled twin of the pricing engine (``gridmarket.pricing.engine.ReferenceEngine``).

Singh 2008, ch. 5 (Fig. 22, query forms 17-19): the base and plan profiles of
one provider state, the candidate starts of form (18), and the conservative
re-plan of the queue around a slot from the first job it collides with, the
delay of every job past its current plan summed (processor-seconds). Every
step list lives in C arrays (times in seconds, free processors); results are
the reference's to the last digit (``tests/market/pricing/test_replan_kernel.py``).
"""

from libc.stdlib cimport free as c_free, malloc, qsort, realloc
from libc.string cimport memcpy, memmove

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.tradeoff import check_alpha

include "../_csearch.pxi"

cdef i64 NEVER = 1LL << 62


cdef struct Steps:
    i64* t
    i64* f
    Py_ssize_t n


cdef i64 SENTINEL_T = 0x7FFFFFFFFFFFFFFF  # after every time (see _sentinel)


cdef inline void _sentinel(Steps* s) noexcept nogil:
    """Put a step after the last one (time after everything, more free than any machine): scans need no bound check.

    The working steps of ``_place``/``_take`` carry it: inserts and deletes move it along.
    """
    s.t[s.n] = SENTINEL_T
    s.f[s.n] = NEVER


cdef inline void _insert(Steps* s, Py_ssize_t i, i64 t, i64 f) noexcept nogil:
    memmove(&s.t[i + 1], &s.t[i], (s.n - i + 1) * sizeof(i64))  # the sentinel moves too
    memmove(&s.f[i + 1], &s.f[i], (s.n - i + 1) * sizeof(i64))
    s.t[i] = t
    s.f[i] = f
    s.n += 1


cdef inline void _delete(Steps* s, Py_ssize_t i) noexcept nogil:
    memmove(&s.t[i], &s.t[i + 1], (s.n - i) * sizeof(i64))
    memmove(&s.f[i], &s.f[i + 1], (s.n - i) * sizeof(i64))
    s.n -= 1


cdef void _take_range(Steps* s, Py_ssize_t i, Py_ssize_t j, i64 a, i64 b, i64 procs) noexcept nogil:
    """Split at ``a`` (step ``i`` holds it) and ``b`` (``j``: first step at or after ``b``), take, merge."""
    cdef Py_ssize_t k
    if s.t[i] != a:
        i += 1
        j += 1
        _insert(s, i, a, s.f[i - 1])
    if s.t[j] != b:  # the sentinel's time is after every b
        _insert(s, j, b, s.f[j - 1])
    for k in range(i, j):
        s.f[k] -= procs
    if s.f[j] == s.f[j - 1]:  # the sentinel's free count is no machine's: never merged
        _delete(s, j)
    if i > 0 and s.f[i] == s.f[i - 1]:
        _delete(s, i)


cdef void _take(Steps* s, i64 a, i64 b, i64 procs) noexcept nogil:
    """Take ``procs`` processors over ``[a, b)`` (no check), splitting and merging steps."""
    cdef Py_ssize_t i = bisect_right_array(s.t, a, 0, s.n) - 1
    cdef Py_ssize_t j = bisect_right_array(s.t, b, i, s.n)  # first step after b
    if j > 0 and s.t[j - 1] == b:
        j -= 1  # b is a breakpoint: the first step at or after b
    _take_range(s, i, j, a, b, procs)


cdef i64 _search(Steps* s, i64 procs, i64 duration, i64 after, Py_ssize_t* pi, Py_ssize_t* pj) except -1 nogil:
    """Earliest start at or after ``after`` with ``procs`` free for ``duration``; its first and end steps in ``pi``/``pj``."""
    cdef Py_ssize_t n = s.n, i, j
    cdef i64 start = after, end
    i = bisect_right_array(s.t, after, 0, n) - 1
    while True:
        if s.f[i] < procs:
            i += 1
            while s.f[i] < procs:  # the sentinel's free count stops it
                i += 1
            if i >= n:
                with gil:
                    raise IndexError("list index out of range")
            start = s.t[i]
        end = start + duration
        j = i + 1
        while s.t[j] < end and s.f[j] >= procs:  # the sentinel's time stops it
            j += 1
        if s.t[j] >= end:
            break
        i = j
    pi[0] = i
    pj[0] = j
    return start


cdef i64 _place(Steps* s, i64 procs, i64 duration, i64 after) except -1 nogil:
    """Earliest start at or after ``after`` with ``procs`` free for ``duration``; take it."""
    cdef Py_ssize_t i, j
    cdef i64 start = _search(s, procs, duration, after, &i, &j)
    _take_range(s, i, j, start, start + duration, procs)
    return start


cdef struct Event:
    i64 t
    i64 d


cdef void _sort_events(Event* a, Py_ssize_t n) noexcept nogil:
    """Sort ``a[:n]`` by time in place (quicksort, median of three, insertion sort below 17 items).

    The order of equal times is left open: every caller sums the changes of one time.
    """
    cdef Py_ssize_t i, j, lo = 0, hi = n - 1, mid
    cdef Event x, pivot
    while hi - lo >= 16:
        mid = lo + ((hi - lo) >> 1)
        # median of three to a[mid], then partition around its time
        if a[mid].t < a[lo].t:
            x = a[mid]; a[mid] = a[lo]; a[lo] = x
        if a[hi].t < a[lo].t:
            x = a[hi]; a[hi] = a[lo]; a[lo] = x
        if a[hi].t < a[mid].t:
            x = a[hi]; a[hi] = a[mid]; a[mid] = x
        pivot = a[mid]
        i = lo
        j = hi
        while i <= j:
            while a[i].t < pivot.t:
                i += 1
            while a[j].t > pivot.t:
                j -= 1
            if i <= j:
                x = a[i]; a[i] = a[j]; a[j] = x
                i += 1
                j -= 1
        # recurse into the smaller part, loop on the larger (stack depth O(log n))
        if j - lo < hi - i:
            _sort_events(&a[lo], j - lo + 1)
            lo = i
        else:
            _sort_events(&a[i], hi - i + 1)
            hi = j
    for i in range(lo + 1, hi + 1):
        x = a[i]
        j = i - 1
        while j >= lo and a[j].t > x.t:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef inline i64 _min_free(i64* t, i64* f, Py_ssize_t n, i64 start, i64 duration) noexcept nogil:
    """Fewest processors free over ``[start, start + duration)`` on the steps ``t``/``f``."""
    cdef Py_ssize_t i = bisect_right_array(t, start, 0, n) - 1
    cdef i64 end = start + duration, low
    if i < 0:
        i = 0
    low = f[i]
    i += 1
    while i < n and t[i] < end:
        if f[i] < low:
            low = f[i]
        i += 1
    return low


cdef i64* _alloc(Py_ssize_t n) except NULL:
    cdef i64* p = <i64*>malloc((n if n > 0 else 1) * sizeof(i64))
    if p == NULL:
        raise MemoryError()
    return p


cdef enum:
    STRIDE = 16  # a forward run's record keeps the profile before every STRIDE-th pass


cdef struct Record:
    # the run without a slot, pass by pass: what a priced slot's run may start from (Engine.forward_price)
    Py_ssize_t n, cap        # passes recorded, room
    i64* T                   # each pass's instant
    i64* M                   # the latest instant any pass so far read the profile up to
    Py_ssize_t* off          # snapshot j (the profile before pass j * STRIDE): steps off[j] .. off[j + 1]
    Py_ssize_t ns, ns_cap, room, used
    i64* st
    i64* sf
    bint exact               # the run gave the engine's planned starts (else its prices run whole)
    int backfill             # the policy recorded: 1 EASY, 0 FCFS, -1 none yet


cdef class Engine:
    """Pricing engine of one state, compiled (see ``gridmarket.pricing.engine.ReferenceEngine``).

    Same constructor, methods, results and errors as the reference.
    """

    cdef i64 now, procs
    cdef Steps base, full
    cdef Py_ssize_t nq, n_inst, n_prefix
    cdef i64* P
    cdef i64* E
    cdef i64* V
    cdef i64* Vs  # V sorted (what a priced run's rejoin test counts against), made on first use
    cdef i64* inst
    cdef i64* marks
    cdef Py_ssize_t n_marks
    cdef bint planned, ready
    cdef i64* G
    cdef i64* keep
    cdef i64* owed
    cdef Py_ssize_t* off
    cdef i64* pt
    cdef i64* pf
    cdef Steps work
    cdef Record rec
    cdef Py_ssize_t priced  # forward prices asked since the queue was set

    def __cinit__(self):
        self.rec.T = self.rec.M = self.rec.st = self.rec.sf = NULL
        self.rec.off = NULL
        _free_record(&self.rec)
        self.priced = 0
        self.base.t = self.base.f = self.full.t = self.full.f = NULL
        self.work.t = self.work.f = NULL
        self.P = self.E = self.V = self.Vs = self.inst = self.marks = NULL
        self.G = self.keep = self.owed = self.pt = self.pf = NULL
        self.off = NULL
        self.planned = self.ready = False
        self.nq = self.n_inst = self.n_marks = 0

    def __dealloc__(self):
        self._free_plan()
        c_free(self.base.t)
        c_free(self.base.f)
        c_free(self.marks)

    cdef void _free_plan(self) noexcept:
        self._free_greedy()
        _free_record(&self.rec)
        c_free(self.full.t)
        c_free(self.full.f)
        c_free(self.P)
        c_free(self.E)
        c_free(self.V)
        c_free(self.Vs)
        c_free(self.inst)
        self.full.t = self.full.f = self.P = self.E = self.V = self.Vs = self.inst = NULL
        self.planned = False

    cdef void _free_greedy(self) noexcept:
        c_free(self.G)
        c_free(self.keep)
        c_free(self.owed)
        c_free(self.off)
        c_free(self.pt)
        c_free(self.pf)
        c_free(self.work.t)
        c_free(self.work.f)
        self.G = self.keep = self.owed = self.pt = self.pf = self.work.t = self.work.f = NULL
        self.off = NULL
        self.ready = False

    def __init__(self, i64 now, i64 procs, list run_ends, list run_procs, list res_starts, list res_ends,
                 list res_procs):
        cdef Py_ssize_t nr = len(run_ends), nres = len(res_starts), n_ev = 2 * nr + 2 * nres + 1, i, m, a
        cdef Event* ev = <Event*>malloc(n_ev * sizeof(Event))
        cdef i64 value, t
        if ev == NULL:
            raise MemoryError()
        self.now = now
        self.procs = procs
        try:
            m = 0
            for i in range(nr):
                ev[m].t = now
                ev[m].d = -<i64>run_procs[i]
                ev[m + 1].t = run_ends[i]
                ev[m + 1].d = run_procs[i]
                m += 2
            for i in range(nres):
                ev[m].t = res_starts[i]
                ev[m].d = -<i64>res_procs[i]
                ev[m + 1].t = res_ends[i]
                ev[m + 1].d = res_procs[i]
                m += 2
            ev[m].t = now
            ev[m].d = 0
            m += 1
            _sort_events(ev, m)
            self.base.t = _alloc(m)
            self.base.f = _alloc(m)
            self.base.n = 0
            value = procs
            a = 0
            while a < m:
                t = ev[a].t
                while a < m and ev[a].t == t:
                    value += ev[a].d
                    a += 1
                if value < 0:
                    raise InvalidInput(
                        f"running jobs and reservations hold {procs - value} processors at {t}; machine has {procs}"
                    )
                if self.base.n and self.base.f[self.base.n - 1] == value:
                    continue
                self.base.t[self.base.n] = t
                self.base.f[self.base.n] = value
                self.base.n += 1
            # candidate marks: now, ends of running jobs, starts and ends of reservations
            self.marks = _alloc(m)
            for i in range(m):
                self.marks[i] = ev[i].t
            self.n_marks = m
        finally:
            c_free(ev)

    @classmethod
    def of_jobs(cls, i64 now, i64 procs, running, reservations):
        cdef list run_ends = [], run_procs = [], res_starts = [], res_ends = [], res_procs = []
        cdef i64 start, end
        for job, start in running:
            end = start + <i64>job.estimate
            if end > now:
                run_ends.append(end)
                run_procs.append(job.procs)
        for r in reservations:
            start = r.start
            end = start + <i64>r.duration
            if end > now:
                res_starts.append(start if start > now else now)
                res_ends.append(end)
                res_procs.append(r.procs)
        return cls(now, procs, run_ends, run_procs, res_starts, res_ends, res_procs)

    def plan_jobs(self, queue, planned):
        cdef list P = [], E = [], V = []
        cdef i64 v
        for job in queue:
            P.append(job.procs)
            E.append(job.estimate)
            v = planned[job.id]
            if v < self.now:
                raise InvalidInput(f"queued job {job.id} is planned at {v}, before now ({self.now})")
            V.append(v)
        self.plan(P, E, V)

    def planned_starts(self):
        cdef Py_ssize_t i
        self._need_plan()
        return [self.V[i] for i in range(self.nq)]

    def plan_forward(self, list P, list E, bint backfill):
        """Set the queue ``P``/``E`` planned by EASY (``backfill``) or FCFS run forward (:meth:`forward`).

        The run is recorded as it goes (:func:`_note`): the prices start from it (:meth:`forward_price`).
        """
        cdef Record rec
        rec.T = rec.M = rec.st = rec.sf = NULL
        rec.off = NULL
        _free_record(&rec)
        try:
            V = self._forward_list(P, E, backfill, 0, 0, 0, &rec)
            self.plan(P, E, V)  # frees the engine's own record
        except BaseException:
            _free_record(&rec)
            raise
        self.rec = rec
        self.rec.backfill = backfill
        self.rec.exact = True

    def plan(self, list P, list E, list V):
        """Set the queue: processors ``P``, estimates ``E`` and current planned starts ``V`` (all >= now)."""
        cdef Py_ssize_t nq = len(P), i, m, a, b, nb = self.base.n
        cdef Event* ev
        cdef Event* qe
        cdef i64 value, t, low
        if len(E) != nq or len(V) != nq:
            raise ValueError("plan: P, E and V must have the same length")
        self._free_plan()
        self.priced = 0
        self.nq = nq
        self.P = _alloc(nq)
        self.E = _alloc(nq)
        self.V = _alloc(nq)
        for i in range(nq):
            self.P[i] = P[i]
            self.E[i] = E[i]
            self.V[i] = V[i]
        # the plan profile: the base's changes (in time order) merged with every queued job's (sorted here)
        ev = <Event*>malloc((nb + 2 * nq + 1) * sizeof(Event))
        if ev == NULL:
            raise MemoryError()
        qe = &ev[nb]
        try:
            for i in range(nb):
                ev[i].t = self.base.t[i]
                ev[i].d = self.base.f[i] - (self.base.f[i - 1] if i else self.procs)
            for i in range(nq):
                qe[2 * i].t = self.V[i]
                qe[2 * i].d = -self.P[i]
                qe[2 * i + 1].t = self.V[i] + self.E[i]
                qe[2 * i + 1].d = self.P[i]
            _sort_events(qe, 2 * nq)
            m = nb + 2 * nq
            self.full.t = _alloc(m + 1)
            self.full.f = _alloc(m + 1)
            self.full.n = 0
            value = self.procs
            low = value
            a = 0  # next base change
            b = 0  # next queue change
            while a < nb or b < 2 * nq:
                if b == 2 * nq or (a < nb and ev[a].t <= qe[b].t):
                    t = ev[a].t
                else:
                    t = qe[b].t
                while a < nb and ev[a].t == t:
                    value += ev[a].d
                    a += 1
                while b < 2 * nq and qe[b].t == t:
                    value += qe[b].d
                    b += 1
                if self.full.n and self.full.f[self.full.n - 1] == value:
                    continue
                self.full.t[self.full.n] = t
                self.full.f[self.full.n] = value
                self.full.n += 1
                if value < low:
                    low = value
            # candidates: the marks (in time order) merged with the queued jobs' starts and ends, unique, from now on
            self.inst = _alloc(self.n_marks + 2 * nq)
            m = 0
            a = 0
            b = 0
            while a < self.n_marks or b < 2 * nq:
                if b == 2 * nq or (a < self.n_marks and self.marks[a] <= qe[b].t):
                    t = self.marks[a]
                    a += 1
                else:
                    t = qe[b].t
                    b += 1
                if t >= self.now and (m == 0 or self.inst[m - 1] != t):
                    self.inst[m] = t
                    m += 1
        finally:
            c_free(ev)
        if low < 0:
            raise InvalidInput("planned starts overlap: the plan needs more processors than the machine has")
        a = m
        self.n_inst = a
        self.planned = True

    # ---------------------------------------------------------------- queries
    cdef inline void _need_plan(self) except *:
        if not self.planned:
            raise ValueError("engine: plan() the queue first")

    def base_steps(self):
        return [self.base.t[i] for i in range(self.base.n)], [self.base.f[i] for i in range(self.base.n)]

    def full_steps(self):
        self._need_plan()
        return [self.full.t[i] for i in range(self.full.n)], [self.full.f[i] for i in range(self.full.n)]

    def base_min_free(self, i64 start, i64 duration):
        return _min_free(self.base.t, self.base.f, self.base.n, start, duration)

    def full_min_free(self, i64 start, i64 duration):
        self._need_plan()
        return _min_free(self.full.t, self.full.f, self.full.n, start, duration)

    def instants(self):
        self._need_plan()
        return [self.inst[i] for i in range(self.n_inst)]

    def prices(self, i64 procs, i64 duration, starts):
        cdef list out = []
        cdef i64 s
        self._need_plan()
        for x in starts:
            s = x
            if _min_free(self.base.t, self.base.f, self.base.n, s, duration) < procs:
                out.append(None)
            else:
                out.append(self._price(s, procs, duration))
        return out

    def feasible(self, i64 procs, i64 duration):
        cdef list starts = [], prices = []
        cdef Py_ssize_t i
        cdef i64 s
        self._need_plan()
        for i in range(self.n_inst):
            s = self.inst[i]
            if _min_free(self.base.t, self.base.f, self.base.n, s, duration) >= procs:
                starts.append(s)
                prices.append(self._price(s, procs, duration))
        return starts, prices

    def starts_with(self, i64 start, i64 procs, i64 duration):
        cdef list new
        cdef Py_ssize_t k, i
        self._need_plan()
        if _min_free(self.full.t, self.full.f, self.full.n, start, duration) >= procs:
            return [self.V[i] for i in range(self.nq)]
        self._ready()
        k = self._collision(start, procs, duration)
        if k < 0:
            return [self.G[i] for i in range(self.nq)]
        new = [self.G[i] for i in range(k)]
        self._replan(start, procs, duration, k, new)
        return new

    def greedy(self):
        cdef Py_ssize_t i
        self._need_plan()
        self._ready()
        return [self.G[i] for i in range(self.nq)]

    def first_collision(self, i64 start, i64 procs, i64 duration):
        cdef Py_ssize_t k
        self._need_plan()
        self._ready()
        k = self._collision(start, procs, duration)
        return None if k < 0 else k

    def forward(self, list P, list E, bint backfill, i64 start=0, i64 procs=0, i64 duration=0):
        """Planned starts of the queue ``P``/``E`` under EASY (``backfill``) or FCFS, a slot of ``procs`` held.

        The policy run forward from the base with estimates as runtimes and no arrival
        (:func:`_forward`); ``procs`` 0: no slot. The slot must fit the base.
        """
        return self._forward_list(P, E, backfill, start, procs, duration, NULL)

    cdef list _forward_list(self, list P, list E, bint backfill, i64 start, i64 procs, i64 duration, Record* rec):
        cdef Py_ssize_t nq = len(P), i
        cdef i64* p
        cdef i64* e
        cdef i64* out
        cdef list starts
        if len(E) != nq:
            raise ValueError("forward: P and E must have the same length")
        p = _alloc(3 * nq)
        e = p + nq
        out = e + nq
        try:
            for i in range(nq):
                p[i] = P[i]
                e[i] = E[i]
            _forward(&self.base, self.now, p, e, nq, backfill, start, procs, duration, out, NULL, NULL, rec)
            starts = [out[i] for i in range(nq)]
        finally:
            c_free(p)
        return starts

    def forward_price(self, bint backfill, i64 start, i64 procs, i64 duration):
        """``f`` (processor-seconds) of a slot under EASY or FCFS: the delays past the planned starts, summed.

        The queue and its planned starts are the engine's (:meth:`plan`); the slot must fit the base.
        """
        cdef Py_ssize_t nq = self.nq, i, k
        cdef i64* out
        cdef i64 total = 0
        self._need_plan()
        if _min_free(self.full.t, self.full.f, self.full.n, start, duration) >= procs:
            return 0
        out = _alloc(nq)
        try:
            self.priced += 1
            if self.rec.backfill != <int>backfill and self.priced >= 2:
                # planned starts set by plan(): the run without a slot, recorded once (worth it from the
                # second price on) and compared with them
                _free_record(&self.rec)
                _forward(&self.base, self.now, self.P, self.E, nq, backfill, 0, 0, 0, out, NULL, NULL, &self.rec)
                self.rec.backfill = backfill
                self.rec.exact = True
                for i in range(nq):
                    if out[i] != self.V[i]:
                        self.rec.exact = False
            if self.rec.backfill == <int>backfill and self.rec.exact:
                if self.Vs == NULL:
                    self.Vs = _alloc(nq)
                    memcpy(self.Vs, self.V, nq * sizeof(i64))
                    qsort(self.Vs, nq, sizeof(i64), _cmp_i64)
                k = bisect_right_array(self.rec.M, start, 0, self.rec.n)  # the first pass that read past start
                if STRIDE <= k < self.rec.n:
                    _resume(&self.rec, k // STRIDE, self.P, self.E, self.V, self.Vs, nq, backfill, start, procs,
                            duration, out)
                else:
                    _forward(&self.base, self.now, self.P, self.E, nq, backfill, start, procs, duration, out, self.V,
                             self.Vs)
            else:  # planned starts not known to be the run without the slot: the whole run, compared with them
                _forward(&self.base, self.now, self.P, self.E, nq, backfill, start, procs, duration, out)
            for i in range(nq):
                if out[i] > self.V[i]:
                    total += (out[i] - self.V[i]) * self.P[i]
        finally:
            c_free(out)
        return total

    # ---------------------------------------------------------------- internals
    cdef i64 _price(self, i64 start, i64 procs, i64 duration) except? -1:
        """``f`` of a slot the base allows: 0 if it fits the plan, else the re-plan's total delay."""
        cdef Py_ssize_t k
        if _min_free(self.full.t, self.full.f, self.full.n, start, duration) >= procs:
            return 0
        self._ready()
        k = self._collision(start, procs, duration)
        if k < 0:
            return self.owed[self.nq]
        return self._replan(start, procs, duration, k, None)

    cdef int _ready(self) except -1:
        """Greedy plan, owed delays and the profile before every STRIDE-th job and after the last (once per plan)."""
        cdef Py_ssize_t nq = self.nq, cap = self.base.n + 2 * nq + 4, i, ns = 0
        cdef Py_ssize_t most = nq // STRIDE + 2  # snapshots: before jobs 0, STRIDE, 2 STRIDE, ... and after the last
        cdef i64 g
        if self.ready:
            return 0
        self.G = _alloc(nq)
        self.keep = _alloc(nq)
        self.owed = _alloc(nq + 1)
        self.off = <Py_ssize_t*>malloc((most + 1) * sizeof(Py_ssize_t))
        self.pt = _alloc(most * cap)
        self.pf = _alloc(most * cap)
        self.work.t = _alloc(cap + 8)
        self.work.f = _alloc(cap + 8)
        if self.off == NULL:
            raise MemoryError()
        memcpy(self.work.t, self.base.t, self.base.n * sizeof(i64))
        memcpy(self.work.f, self.base.f, self.base.n * sizeof(i64))
        self.work.n = self.base.n
        _sentinel(&self.work)
        self.owed[0] = 0
        self.off[0] = 0
        for i in range(nq + 1):
            if i % STRIDE == 0 or i == nq:
                memcpy(&self.pt[self.off[ns]], self.work.t, self.work.n * sizeof(i64))
                memcpy(&self.pf[self.off[ns]], self.work.f, self.work.n * sizeof(i64))
                self.off[ns + 1] = self.off[ns] + self.work.n
                ns += 1
            if i == nq:
                break
            g = _place(&self.work, self.P[i], self.E[i], self.now)
            self.G[i] = g
            self.keep[i] = (g - self.V[i]) * self.P[i] if g > self.V[i] else 0
            self.owed[i + 1] = self.owed[i] + self.keep[i]
        self.n_prefix = ns
        self.ready = True
        return 0

    cdef inline i64 _snapshot_min(self, Py_ssize_t j, i64 start, i64 duration) noexcept:
        """Fewest free over the window in snapshot ``j`` (before job ``j * STRIDE``, or after the last)."""
        cdef Py_ssize_t a = self.off[j]
        return _min_free(&self.pt[a], &self.pf[a], self.off[j + 1] - a, start, duration)

    cdef Py_ssize_t _collision(self, i64 start, i64 procs, i64 duration) except -2:
        """First job (arrival order) whose greedy interval leaves fewer than ``procs`` free beside the slot; -1 if none.

        The profile after jobs ``0..k`` only loses processors as ``k`` grows: the first snapshot short
        of ``procs`` over the slot's window is found by bisection, then the jobs before it are laid
        one by one on the snapshot before it. The profile before the job found is left in ``work``.
        """
        cdef Py_ssize_t lo = 1, hi = self.n_prefix - 1, mid, i, a
        cdef i64 g, lo_t, hi_t
        cdef Steps* s = &self.work
        if self.nq == 0 or self._snapshot_min(hi, start, duration) >= procs:
            return -1
        while lo < hi:
            mid = (lo + hi) >> 1
            if self._snapshot_min(mid, start, duration) < procs:
                hi = mid
            else:
                lo = mid + 1
        a = self.off[lo - 1]
        s.n = self.off[lo] - a
        memcpy(s.t, &self.pt[a], s.n * sizeof(i64))
        memcpy(s.f, &self.pf[a], s.n * sizeof(i64))
        _sentinel(s)
        i = (lo - 1) * STRIDE
        if i == 0 and _min_free(s.t, s.f, s.n, start, duration) < procs:
            return 0  # a base that refuses the slot (prices never ask): job 0, as a bisection over jobs says
        while i < self.nq:  # the snapshot after job i is short, so the loop ends there at the latest
            g = self.G[i]
            lo_t = g if g > start else start
            hi_t = g + self.E[i]
            if hi_t > start + duration:
                hi_t = start + duration
            if lo_t < hi_t and _min_free(s.t, s.f, s.n, lo_t, hi_t - lo_t) < procs + self.P[i]:
                return i
            _take(s, g, g + self.E[i], self.P[i])
            i += 1
        raise RuntimeError("collision search: no job short of the slot after a short snapshot")  # pragma: no cover

    cdef i64 _replan(self, i64 start, i64 procs, i64 duration, Py_ssize_t k, list new) except? -1:
        """Re-plan jobs ``k..`` around the slot from the profile before job ``k`` (in ``work``); the total delay.

        Same arithmetic as ``engine.reference_replan``; appends each new start to ``new`` if given.
        """
        cdef Steps* s = &self.work
        cdef Py_ssize_t i, x
        cdef i64 p, e, g, w, v, after, top, bad_end, vacated = NEVER, total = self.owed[k]
        _take(s, start, start + duration, procs)
        for i in range(k, self.nq):
            p = self.P[i]
            e = self.E[i]
            g = self.G[i]
            if g <= vacated:
                after = g
            else:
                # an earlier window needs a vacated instant in it: it starts after vacated - e,
                # and after the last instant before vacated with too few processors
                top = vacated if vacated < g else g
                after = vacated - e + 1
                if after < self.now:
                    after = self.now
                if after < top:
                    x = bisect_right_array(s.t, top - 1, 0, s.n) - 1
                    while x >= 0 and s.f[x] >= p:
                        x -= 1
                    if x >= 0:
                        bad_end = s.t[x + 1] if x + 1 < s.n else top
                        if bad_end > top:
                            bad_end = top
                        if bad_end > after:
                            after = bad_end
                if after > g:
                    after = g
            w = _place(s, p, e, after)
            if w != g:
                if g < vacated:
                    vacated = g
                v = self.V[i]
                if w > v:
                    total += (w - v) * p
            else:
                total += self.keep[i]
            if new is not None:
                new.append(w)
        return total


cdef inline void _heap_push(i64* h, Py_ssize_t* n, i64 x) noexcept nogil:
    cdef Py_ssize_t i = n[0], up
    n[0] += 1
    while i > 0:
        up = (i - 1) >> 1
        if h[up] <= x:
            break
        h[i] = h[up]
        i = up
    h[i] = x


cdef inline i64 _heap_pop(i64* h, Py_ssize_t* n) noexcept nogil:
    cdef i64 top = h[0], x
    cdef Py_ssize_t i = 0, c, m
    n[0] -= 1
    m = n[0]
    x = h[m]
    while True:
        c = 2 * i + 1
        if c >= m:
            break
        if c + 1 < m and h[c + 1] < h[c]:
            c += 1
        if h[c] >= x:
            break
        h[i] = h[c]
        i = c
    h[i] = x
    return top


cdef void _free_record(Record* r) noexcept:
    c_free(r.T)
    c_free(r.M)
    c_free(r.off)
    c_free(r.st)
    c_free(r.sf)
    r.T = r.M = r.st = r.sf = NULL
    r.off = NULL
    r.n = r.cap = r.ns = r.ns_cap = r.room = r.used = 0
    r.backfill = -1


cdef void* _grown(void* p, size_t size) except NULL:
    cdef void* q = realloc(p, size if size > 0 else 1)
    if q == NULL:
        raise MemoryError()
    return q


cdef int _note(Record* r, Steps* w, i64 t) except -1:
    """Record pass ``r.n`` at ``t`` (and the profile before it, every STRIDE-th pass)."""
    if r.n % STRIDE == 0:
        if r.ns + 2 > r.ns_cap:
            r.ns_cap = 2 * r.ns_cap + 8
            r.off = <Py_ssize_t*>_grown(r.off, r.ns_cap * sizeof(Py_ssize_t))
        if r.used + w.n > r.room:
            r.room = 2 * r.room + w.n + 64
            r.st = <i64*>_grown(r.st, r.room * sizeof(i64))
            r.sf = <i64*>_grown(r.sf, r.room * sizeof(i64))
        r.off[r.ns] = r.used
        memcpy(&r.st[r.used], w.t, w.n * sizeof(i64))
        memcpy(&r.sf[r.used], w.f, w.n * sizeof(i64))
        r.used += w.n
        r.ns += 1
        r.off[r.ns] = r.used
    if r.n == r.cap:
        r.cap = 2 * r.cap + 64
        r.T = <i64*>_grown(r.T, r.cap * sizeof(i64))
        r.M = <i64*>_grown(r.M, r.cap * sizeof(i64))
    r.T[r.n] = t
    r.M[r.n] = r.M[r.n - 1] if r.n else t
    r.n += 1
    return 0


cdef int _cmp_i64(const void* a, const void* b) noexcept nogil:
    cdef i64 x = (<const i64*>a)[0], y = (<const i64*>b)[0]
    return (x > y) - (x < y)


cdef struct Rejoin:
    # whether the run with the slot has rejoined the run without it (:func:`_rejoined`), kept up as jobs
    # start so that each test is a few heap pops, not a scan of the queue
    i64* V                   # the starts without the slot
    i64* E
    i64* Vs                  # V sorted
    Py_ssize_t nq
    Py_ssize_t below         # how many V are <= the last instant tested
    Py_ssize_t started       # jobs started with the slot
    i64* apart               # heap: max(start, V) + E of the started jobs whose start is not V, till both ended
    Py_ssize_t n_apart


cdef inline void _started(Rejoin* r, Py_ssize_t q, i64 start) noexcept nogil:
    """Job ``q`` started at ``start`` in the run with the slot (at its pass, or before the run as in ``V``)."""
    cdef i64 v = r.V[q]
    r.started += 1
    if start != v:
        _heap_push(r.apart, &r.n_apart, (start if start > v else v) + r.E[q])


cdef inline bint _rejoined(Rejoin* r, i64 t) noexcept nogil:
    """Whether the run with the slot is, after its pass at ``t``, where the run without it is at ``t``.

    The same jobs started (a job starts by ``t`` in one run if and only if in the other) and every job
    still running after ``t`` started at the same instant in both: then the profiles from ``t`` on, the
    queues and the events to come are the same, so are all later decisions. Counted: no job that
    started elsewhere than in ``V`` is still running after ``t`` in either run (so every started job has
    ``V <= t``), and as many jobs started as have ``V <= t``. ``t`` never decreases between tests.
    """
    while r.below < r.nq and r.Vs[r.below] <= t:
        r.below += 1
    while r.n_apart and r.apart[0] <= t:
        _heap_pop(r.apart, &r.n_apart)
    return r.n_apart == 0 and r.started == r.below


cdef i64 _most_free(Steps* s) noexcept nogil:
    cdef i64 most = 0
    cdef Py_ssize_t i
    for i in range(s.n):
        if s.f[i] > most:
            most = s.f[i]
    return most


cdef int _forward(Steps* base, i64 now, i64* P, i64* E, Py_ssize_t nq, bint backfill,
                  i64 slot_start, i64 slot_procs, i64 slot_duration, i64* out, i64* V=NULL, i64* Vs=NULL,
                  Record* rec=NULL) except -1:
    """EASY (``backfill``) or FCFS run forward over the queue from ``base``: each job's start in ``out``.

    Singh 2008, ch. 5, Fig. 22, steps 1 and 4 for a policy that plans only its queue head: what
    :class:`gridmarket.scheduling.planner.ForwardPlanner` computes by running
    :class:`~gridmarket.scheduling.easy.EASYScheduler` (or FCFS) through the machine's event loop,
    here on C arrays. Jobs run for their estimates and none arrives, so a pass can start a job only
    where processors were freed: passes run at ``now``, at every instant the base's free count
    rises (running jobs' ends, reservations' ends, the slot's end) and at every planned end. A pass is
    the scheduler's rule on its availability profile: heads in order while they fit for their whole
    estimate; then (EASY) the blocked head held at its earliest start (the shadow time) and every
    other waiting job, in order, started if it fits now for its whole estimate beside that hold.
    Where nothing is held ahead the scheduler counts instead of reading the profile, which is the
    same rule (``tests/market/pricing/test_forward_kernel.py`` checks both against the policies).

    With ``V`` (the starts without the slot) and ``Vs`` (the same sorted), the run stops once it has
    rejoined the run without the slot after the slot's end (:func:`_rejoined`): every job still waiting
    then starts as in ``V``.
    With ``rec``, each pass is recorded (:func:`_note`).
    """
    _from_steps(base.t, base.f, base.n, -1, now, P, E, nq, backfill, slot_start, slot_procs, slot_duration, out,
                V, Vs, -1, rec)
    return 0


cdef int _resume(Record* rec, Py_ssize_t j, i64* P, i64* E, i64* V, i64* Vs, Py_ssize_t nq, bint backfill,
                 i64 slot_start, i64 slot_procs, i64 slot_duration, i64* out) except -1:
    """:func:`_forward` with the slot, from snapshot ``j`` of the run without it (pass ``c = j * STRIDE``).

    Valid when no pass before ``c`` read the profile past ``slot_start`` (``rec.M[c - 1] <= slot_start``):
    those passes decide as they did without the slot, at the same instants (the slot's end, its only
    new event, comes later), so the jobs that started before pass ``c`` started as in ``V``, and every
    one of them ends by ``slot_start``.
    """
    cdef Py_ssize_t c = j * STRIDE, a = rec.off[j]
    _from_steps(&rec.st[a], &rec.sf[a], rec.off[j + 1] - a, rec.T[c - 1], -1, P, E, nq, backfill,
                slot_start, slot_procs, slot_duration, out, V, Vs, rec.T[c], NULL)
    return 0


cdef int _from_steps(i64* st, i64* sf, Py_ssize_t n, i64 prev, i64 first, i64* P, i64* E, Py_ssize_t nq,
                     bint backfill, i64 slot_start, i64 slot_procs, i64 slot_duration, i64* out, i64* V,
                     i64* Vs, i64 started_before, Record* rec) except -1:
    """The passes after instant ``prev`` from the profile ``st``/``sf`` (``n`` steps), the slot taken in a copy.

    Jobs with ``V[q] < started_before`` have started as in ``V`` (their ends still to come are events);
    the others wait, in order. Events: ``first`` (when >= 0), every instant after ``prev`` at which the
    free count rises, and the ends of started jobs.
    """
    cdef Py_ssize_t cap = n + 2 * nq + 8, i, nw = 0, nh = 0
    cdef Steps w
    cdef i64* heap = NULL
    cdef Py_ssize_t* W = NULL
    cdef Rejoin rj
    rj.apart = NULL
    w.t = _alloc(cap)
    w.f = _alloc(cap)
    try:
        if V != NULL:
            if Vs == NULL:
                raise ValueError("forward run: the starts without the slot come with their sorted copy")
            rj.V, rj.E, rj.Vs, rj.nq = V, E, Vs, nq
            rj.below = rj.started = rj.n_apart = 0
            rj.apart = _alloc(nq)
        heap = _alloc(cap + nq + 4)
        W = <Py_ssize_t*>malloc((nq if nq > 0 else 1) * sizeof(Py_ssize_t))
        if W == NULL:
            raise MemoryError()
        memcpy(w.t, st, n * sizeof(i64))
        memcpy(w.f, sf, n * sizeof(i64))
        w.n = n
        _sentinel(&w)
        if slot_procs > 0:
            _take(&w, slot_start, slot_start + slot_duration, slot_procs)
        for i in range(nq):
            if V != NULL and V[i] < started_before:
                out[i] = V[i]
                _started(&rj, i, V[i])
                if V[i] + E[i] > prev:
                    _heap_push(heap, &nh, V[i] + E[i])
            else:
                out[i] = -1
                W[nw] = i
                nw += 1
        if first >= 0:
            _heap_push(heap, &nh, first)
        for i in range(1, w.n):
            if w.f[i] > w.f[i - 1] and w.t[i] > prev:
                _heap_push(heap, &nh, w.t[i])
        _run(&w, P, E, W, nw, backfill, out, heap, nh, prev, slot_start + slot_duration,
             &rj if V != NULL else NULL, rec)
    finally:
        c_free(rj.apart)
        c_free(w.t)
        c_free(w.f)
        c_free(heap)
        c_free(W)
    return 0


cdef int _run(Steps* w, i64* P, i64* E, Py_ssize_t* W, Py_ssize_t nw, bint backfill, i64* out,
              i64* heap, Py_ssize_t nh, i64 last, i64 rejoin_from, Rejoin* rj, Record* rec) except -1:
    """The passes of :func:`_forward` until no job waits: at each event instant after ``last``, in order."""
    cdef Py_ssize_t x
    cdef i64 t, reach
    cdef i64* until = _alloc(_most_free(w) + 1)
    try:
        while nw:
            if nh == 0:  # pragma: no cover - the last step frees the whole machine
                raise RuntimeError("forward plan: queue stuck with no event left")
            t = _heap_pop(heap, &nh)
            if t == last:
                continue
            last = t
            if rec == NULL:
                _pass(w, t, P, E, W, &nw, backfill, out, until, heap, &nh, NULL, rj)
            else:
                _note(rec, w, t)
                reach = t
                _pass(w, t, P, E, W, &nw, backfill, out, until, heap, &nh, &reach, rj)
                if reach > rec.M[rec.n - 1]:
                    rec.M[rec.n - 1] = reach
            if rj != NULL and nw and t >= rejoin_from and _rejoined(rj, t):
                for x in range(nw):
                    out[W[x]] = rj.V[W[x]]
                nw = 0
    finally:
        c_free(until)
    return 0


cdef int _pass(Steps* w, i64 t, i64* P, i64* E, Py_ssize_t* W, Py_ssize_t* nw_, bint backfill, i64* out,
               i64* until, i64* heap, Py_ssize_t* nh, i64* reach, Rejoin* rj) except -1:
    """One pass of the policy at ``t`` over the waiting jobs ``W[:nw]`` (see :func:`_forward`); ``nw`` updated.

    ``until`` has room for the free count at ``t`` plus one. With ``reach``, the latest instant the pass
    reads the profile up to (the windows it checks, the head's hold) is kept there; with ``rj``, every
    start is told to it (:func:`_started`).
    """
    cdef Py_ssize_t h, x, kept, a, b, k, nw = nw_[0]
    cdef i64 q, shadow, free_now, head, p
    cdef bint ready = False
    # 1. heads in order while they fit for their whole estimate
    h = 0
    while h < nw:
        q = W[h]
        if reach != NULL and t + E[q] > reach[0]:
            reach[0] = t + E[q]
        if _min_free(w.t, w.f, w.n, t, E[q]) < P[q]:
            break
        out[q] = t
        if rj != NULL:
            _started(rj, q, t)
        _take(w, t, t + E[q], P[q])
        _heap_push(heap, nh, t + E[q])
        h += 1
    if h:
        memmove(W, &W[h], (nw - h) * sizeof(Py_ssize_t))
        nw -= h
        nw_[0] = nw
    if not nw or not backfill:
        return 0
    # 2. the blocked head held at its shadow time; 3. one backfilling scan beside it
    free_now = w.f[bisect_right_array(w.t, t, 0, w.n) - 1]
    if free_now <= 0:
        return 0
    head = W[0]
    shadow = _search(w, P[head], E[head], t, &a, &b)
    if reach != NULL and shadow + E[head] > reach[0]:
        reach[0] = shadow + E[head]
    _take_range(w, a, b, shadow, shadow + E[head], P[head])
    kept = 1
    x = 1
    while x < nw:
        q = W[x]
        x += 1
        if P[q] > free_now:
            W[kept] = q
            kept += 1
            continue
        if reach != NULL and t + E[q] > reach[0]:
            reach[0] = t + E[q]
        if not ready:  # until[p]: the first instant from t with fewer than p free (rebuilt after a start)
            k = bisect_right_array(w.t, t, 0, w.n) - 1
            for p in range(free_now, 0, -1):  # the free count at t is free_now; p falls, k only moves on
                while k < w.n and w.f[k] >= p:
                    k += 1
                until[p] = w.t[k]  # the sentinel's time when none is short
            ready = True
        # p processors free over [t, t + E) if none is short before t + E
        if t + E[q] > until[P[q]]:
            W[kept] = q
            kept += 1
            continue
        out[q] = t
        if rj != NULL:
            _started(rj, q, t)
        _take(w, t, t + E[q], P[q])
        _heap_push(heap, nh, t + E[q])
        free_now -= P[q]
        ready = False
        if free_now == 0:
            break
    if x < nw:  # no processor left at t: the rest wait, in order
        memmove(&W[kept], &W[x], (nw - x) * sizeof(Py_ssize_t))
        kept += nw - x
    nw_[0] = kept
    _take(w, shadow, shadow + E[head], -P[head])
    return 0


cdef i64 _EXACT = 1LL << 53  # ints up to here are exact doubles


def choice_index(list starts, list prices_ps, alpha):
    """Index of the start eq. (20) picks: ``gridmarket.tradeoff.choose_by_tradeoff``'s rule, compiled.

    ``starts`` in seconds, ``prices_ps`` in processor-seconds (turned into SU
    as the reference ``gridmarket.pricing.quotes.reference_choice`` does, ``f / 3600``);
    the same floating-point operations in the same order, so the same scores, and
    the rule's one tie rule: the earlier start, then the lower price, then the first.
    The rule's errors too: ``alpha`` checked by ``check_alpha``, lists of two lengths,
    no candidate (``Infeasible``).
    """
    cdef double a = check_alpha(alpha)
    cdef Py_ssize_t n = len(starts), i, best = 0
    cdef double f, f_min, f_max, f_span, s_span, f_norm, s_norm, score, best_score = 0.0
    cdef i64 s, s_min, s_max, s_best = 0, f_int
    cdef double* cost
    if len(prices_ps) != n:
        raise InvalidInput(f"trade-off choice: {n} times but {len(prices_ps)} costs")
    if n == 0:
        raise Infeasible("no feasible candidate to choose from")
    cost = <double*>malloc(n * sizeof(double))
    if cost == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            f_int = <i64>prices_ps[i]
            if -_EXACT <= f_int <= _EXACT:
                cost[i] = <double>f_int / 3600.0
            else:  # not exact as a double: Python's int division rounds once, as the reference's does
                cost[i] = prices_ps[i] / 3600
        f_min = f_max = cost[0]
        s_min = s_max = starts[0]
        for i in range(n):
            if cost[i] < f_min:
                f_min = cost[i]
            if cost[i] > f_max:
                f_max = cost[i]
            s = starts[i]
            if s < s_min:
                s_min = s
            if s > s_max:
                s_max = s
        f_span = f_max - f_min
        s_span = <double>(s_max - s_min)
        for i in range(n):
            s = starts[i]
            f_norm = (cost[i] - f_min) / f_span if f_span > 0.0 else 0.0
            s_norm = <double>(s - s_min) / s_span if s_span > 0.0 else 0.0
            score = a * f_norm + (1.0 - a) * s_norm
            if (i == 0 or score < best_score
                    or (score == best_score and (s < s_best or (s == s_best and cost[i] < cost[best])))):
                best = i
                best_score = score
                s_best = s
    finally:
        c_free(cost)
    return best
