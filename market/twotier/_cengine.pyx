# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled two-tier engine: the twin of :func:`gridmarket.twotier.simulation.reference_run_events`.

One C object holds the machine of :class:`gridmarket.twotier.vm.TwoTierMachine`, the pass of
:meth:`gridmarket.twotier.policies.TwoTierPolicy.schedule` (Algorithms 1-3 of Liu et al. 2012) and
the event loop of :mod:`gridmarket.twotier.simulation`, over flat arrays instead of ``Run`` objects.
Every rule, every float expression and every tie-break is the reference's, written in the same
order, so the records are the same to the last bit (``tests/market/twotier/test_engine_twins.py``
runs both on random workloads and on the paper's models).

Jobs are indices ``0..n-1`` in ``(submit, id)`` order, which is the arrival order the reference
sorts by; processes of job ``j`` are ``off[j] .. off[j] + procs[j] - 1`` in the flat per-process
arrays. Times are integer seconds; progress is in dedicated seconds.

Where the reference sorts every candidate processor (``sorted(idle, key=usage)``, stable), the
engine takes the processors of key 0.0 (an empty VM beside) in index order first and sorts only
the rest: the same first ``k`` processors of the same total order (key, index), since keys are
usages in [0, 1].
"""

from libc.math cimport ceil
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memset

import numpy as np

from gridmarket.errors import MarketError

cdef enum:
    NO_TIER = 0
    FG = 1
    BG = 2
    EV_END = 0
    EV_WAKE = 1
    DEPLOY_K = 0
    DEPLOY_R = 1
    DEPLOY_M = 2
    MODEL_PRODUCT = 0
    MODEL_RATIO = 1

cdef int EMPTY = -1
cdef long long UNSET = -(1LL << 62)
cdef long long NEVER = (1LL << 62)  # a shadow time no job reaches (the reference's math.inf)
cdef double EPS = 1e-6


ctypedef struct KeyIdx:
    double key
    long long idx

ctypedef struct Event:
    long long time
    long long seq
    long long version
    int kind
    int job


cdef int _cmp_keyidx(const void *a, const void *b) noexcept nogil:
    cdef const KeyIdx *x = <const KeyIdx *>a
    cdef const KeyIdx *y = <const KeyIdx *>b
    if x.key < y.key:
        return -1
    if x.key > y.key:
        return 1
    return (x.idx > y.idx) - (x.idx < y.idx)


cdef int _cmp_int(const void *a, const void *b) noexcept nogil:
    cdef int x = (<const int *>a)[0]
    cdef int y = (<const int *>b)[0]
    return (x > y) - (x < y)


cdef inline bint _before(Event *a, Event *b) noexcept nogil:
    return a.time < b.time or (a.time == b.time and a.seq < b.seq)


cdef void *_alloc(size_t n) except NULL:
    cdef void *p = malloc(n if n > 0 else 1)
    if p == NULL:
        raise MemoryError()
    memset(p, 0, n if n > 0 else 1)
    return p


cdef class _Engine:
    # settings
    cdef int n, P, deploy, model
    cdef bint background, two_tier, validate
    cdef double threshold
    cdef long long cost, now, seq
    # jobs (inputs)
    cdef long long *submit
    cdef long long *estimate
    cdef long long *off
    cdef int *procs
    cdef double *work
    cdef double *usage
    cdef double *seen
    cdef char *unknown
    cdef double *beta
    cdef double *fgrate
    # jobs (state)
    cdef char *tier
    cdef char *finished_in
    cdef int *on
    cdef int *order
    cdef char *ordered
    cdef double *progress
    cdef double *rate
    cdef double *wasted
    cdef long long *t_at
    cdef long long *frozen_until
    cdef long long *expected_end
    cdef long long *start
    cdef long long *last_start
    cdef long long *fg_start
    cdef long long *end
    cdef long long *version
    cdef long long *kills
    cdef long long *migrations
    cdef long long *swaps
    # machine
    cdef int *fg
    cdef int *bg
    cdef double *fg_use
    cdef double *fg_seen
    cdef double *bg_seen
    cdef char *fg_unknown
    cdef int n_idle_fg
    cdef int *fg_list
    cdef int *bg_list
    cdef int *pos
    cdef int n_fg, n_bg
    # dirty jobs
    cdef char *dirty
    cdef int *dirty_list
    cdef Py_ssize_t n_dirty, cap_dirty
    # queue: arrival order and SJF order (estimate, arrival)
    cdef int *queue
    cdef int *sjf
    cdef int nq
    # pass scratch
    cdef int *merged
    cdef char *started
    cdef int *started_list
    cdef int n_started
    cdef char *mark
    cdef char *reserved
    cdef int *reserved_list
    cdef int n_reserved
    cdef KeyIdx *keys
    cdef int *picked
    # event heap
    cdef Event *heap
    cdef Py_ssize_t n_heap, cap_heap

    def __cinit__(self, long long[::1] submit, long long[::1] estimate, int[::1] procs, long long[::1] off,
                  double[::1] work, double[::1] usage, double[::1] seen, signed char[::1] unknown, double[::1] beta,
                  double[::1] fgrate, int P, int deploy, bint background, bint two_tier, int model,
                  double threshold, long long cost, bint validate):
        cdef int n = submit.shape[0]
        cdef long long total = usage.shape[0]
        cdef int j
        self.n, self.P, self.deploy, self.model = n, P, deploy, model
        self.background, self.two_tier, self.validate = background, two_tier, validate
        self.threshold, self.cost = threshold, cost
        self.submit = <long long *>_alloc(n * sizeof(long long))
        self.estimate = <long long *>_alloc(n * sizeof(long long))
        self.off = <long long *>_alloc((n + 1) * sizeof(long long))
        self.procs = <int *>_alloc(n * sizeof(int))
        self.work = <double *>_alloc(n * sizeof(double))
        self.usage = <double *>_alloc(total * sizeof(double))
        self.seen = <double *>_alloc(total * sizeof(double))
        self.unknown = <char *>_alloc(total * sizeof(char))
        self.beta = <double *>_alloc(n * sizeof(double))
        self.fgrate = <double *>_alloc(n * sizeof(double))
        for j in range(n):
            self.submit[j] = submit[j]
            self.estimate[j] = estimate[j]
            self.off[j] = off[j]
            self.procs[j] = procs[j]
            self.work[j] = work[j]
            self.beta[j] = beta[j]
            self.fgrate[j] = fgrate[j]
        self.off[n] = off[n]
        cdef long long k
        for k in range(total):
            self.usage[k] = usage[k]
            self.seen[k] = seen[k]
            self.unknown[k] = unknown[k]
        self.tier = <char *>_alloc(n)
        self.finished_in = <char *>_alloc(n)
        self.on = <int *>_alloc(total * sizeof(int))
        self.order = <int *>_alloc(total * sizeof(int))
        self.ordered = <char *>_alloc(n)
        self.progress = <double *>_alloc(n * sizeof(double))
        self.rate = <double *>_alloc(n * sizeof(double))
        self.wasted = <double *>_alloc(n * sizeof(double))
        self.t_at = <long long *>_alloc(n * sizeof(long long))
        self.frozen_until = <long long *>_alloc(n * sizeof(long long))
        self.expected_end = <long long *>_alloc(n * sizeof(long long))
        self.start = <long long *>_alloc(n * sizeof(long long))
        self.last_start = <long long *>_alloc(n * sizeof(long long))
        self.fg_start = <long long *>_alloc(n * sizeof(long long))
        self.end = <long long *>_alloc(n * sizeof(long long))
        self.version = <long long *>_alloc(n * sizeof(long long))
        self.kills = <long long *>_alloc(n * sizeof(long long))
        self.migrations = <long long *>_alloc(n * sizeof(long long))
        self.swaps = <long long *>_alloc(n * sizeof(long long))
        for j in range(n):
            self.start[j] = UNSET
            self.last_start[j] = UNSET
            self.fg_start[j] = UNSET
            self.end[j] = UNSET
        self.fg = <int *>_alloc(P * sizeof(int))
        self.bg = <int *>_alloc(P * sizeof(int))
        for j in range(P):
            self.fg[j] = EMPTY
            self.bg[j] = EMPTY
        self.fg_use = <double *>_alloc(P * sizeof(double))
        self.fg_seen = <double *>_alloc(P * sizeof(double))
        self.bg_seen = <double *>_alloc(P * sizeof(double))
        self.fg_unknown = <char *>_alloc(P)
        self.n_idle_fg = P
        self.fg_list = <int *>_alloc(P * sizeof(int))
        self.bg_list = <int *>_alloc(P * sizeof(int))
        self.pos = <int *>_alloc(n * sizeof(int))
        self.dirty = <char *>_alloc(n)
        self.cap_dirty = 2 * P + 16
        self.dirty_list = <int *>_alloc(self.cap_dirty * sizeof(int))
        self.queue = <int *>_alloc(n * sizeof(int))
        self.sjf = <int *>_alloc(n * sizeof(int))
        self.merged = <int *>_alloc((n + P) * sizeof(int))
        self.started = <char *>_alloc(n)
        self.started_list = <int *>_alloc((n + P) * sizeof(int))
        self.mark = <char *>_alloc(n)
        self.reserved = <char *>_alloc(P)
        self.reserved_list = <int *>_alloc(P * sizeof(int))
        self.keys = <KeyIdx *>_alloc(P * sizeof(KeyIdx))
        self.picked = <int *>_alloc(P * sizeof(int))
        self.cap_heap = 4 * P + 64
        self.heap = <Event *>_alloc(self.cap_heap * sizeof(Event))

    def __dealloc__(self):
        free(self.submit); free(self.estimate); free(self.off); free(self.procs); free(self.work)
        free(self.usage); free(self.seen); free(self.unknown); free(self.beta); free(self.fgrate)
        free(self.tier); free(self.finished_in); free(self.on); free(self.order); free(self.ordered)
        free(self.progress); free(self.rate); free(self.wasted); free(self.t_at); free(self.frozen_until)
        free(self.expected_end); free(self.start); free(self.last_start); free(self.fg_start)
        free(self.end); free(self.version); free(self.kills); free(self.migrations); free(self.swaps)
        free(self.fg); free(self.bg); free(self.fg_use); free(self.fg_seen); free(self.bg_seen)
        free(self.fg_unknown); free(self.fg_list); free(self.bg_list); free(self.pos); free(self.dirty)
        free(self.dirty_list); free(self.queue); free(self.sjf); free(self.merged); free(self.started); free(self.mark)
        free(self.started_list); free(self.reserved); free(self.reserved_list); free(self.keys)
        free(self.picked); free(self.heap)

    # ------------------------------------------------------------- small sets
    cdef int _dirty_add(self, int j) except -1:
        cdef int *grown
        if self.dirty[j]:
            return 0
        self.dirty[j] = 1
        if self.n_dirty == self.cap_dirty:
            grown = <int *>realloc(self.dirty_list, 2 * self.cap_dirty * sizeof(int))
            if grown == NULL:
                raise MemoryError()
            self.dirty_list, self.cap_dirty = grown, 2 * self.cap_dirty
        self.dirty_list[self.n_dirty] = j
        self.n_dirty += 1
        return 0

    cdef inline void _list_add(self, int *lst, int *count, int j) noexcept nogil:
        self.pos[j] = count[0]
        lst[count[0]] = j
        count[0] += 1

    cdef inline void _list_remove(self, int *lst, int *count, int j) noexcept nogil:
        cdef int i = self.pos[j], last = lst[count[0] - 1]
        lst[i] = last
        self.pos[last] = i
        count[0] -= 1

    # ------------------------------------------------------------- heap of (time, seq) events
    cdef int _push(self, long long time, int kind, int j) except -1:
        cdef Event *grown
        cdef Event ev
        cdef Py_ssize_t i, parent
        if self.n_heap == self.cap_heap:
            grown = <Event *>realloc(self.heap, 2 * self.cap_heap * sizeof(Event))
            if grown == NULL:
                raise MemoryError()
            self.heap, self.cap_heap = grown, 2 * self.cap_heap
        self.seq += 1
        ev.time, ev.seq, ev.version, ev.kind, ev.job = time, self.seq, self.version[j], kind, j
        i = self.n_heap
        self.n_heap += 1
        while i > 0:
            parent = (i - 1) >> 1
            if not _before(&ev, &self.heap[parent]):
                break
            self.heap[i] = self.heap[parent]
            i = parent
        self.heap[i] = ev
        return 0

    cdef Event _pop(self) noexcept nogil:
        cdef Event top = self.heap[0]
        cdef Event last
        cdef Py_ssize_t i = 0, child, n
        self.n_heap -= 1
        n = self.n_heap
        if n > 0:
            last = self.heap[n]
            while True:
                child = 2 * i + 1
                if child >= n:
                    break
                if child + 1 < n and _before(&self.heap[child + 1], &self.heap[child]):
                    child += 1
                if not _before(&self.heap[child], &last):
                    break
                self.heap[i] = self.heap[child]
                i = child
            self.heap[i] = last
        return top

    # ------------------------------------------------------------- rates (vm.py)
    cdef inline void _snapshot(self, int j) noexcept nogil:
        if self.t_at[j] != self.now:
            self.progress[j] += self.rate[j] * <double>(self.now - self.t_at[j])
            self.t_at[j] = self.now

    cdef double _rate_of(self, int j) noexcept nogil:
        cdef double r, m = 0.0, u, x
        cdef long long o
        cdef int i
        if self.tier[j] == FG:
            if self.now < self.frozen_until[j]:
                return 0.0
            return self.fgrate[j] if self.two_tier else 1.0
        if self.tier[j] == BG:
            o = self.off[j]
            for i in range(self.procs[j]):
                u = self.usage[o + i]
                if self.model == MODEL_PRODUCT:
                    r = self.beta[j] * u * (1.0 - self.fg_use[self.on[o + i]])
                elif u <= 0.0:
                    r = 1.0
                else:
                    x = self.beta[j] * (1.0 - self.fg_use[self.on[o + i]]) / u
                    r = x if x < 1.0 else 1.0
                if i == 0 or r < m:
                    m = r
            return m
        return 0.0

    # ------------------------------------------------------------- Dispatch (Alg. 2)
    cdef int *_by_usage(self, int j) noexcept nogil:
        """Process indices by descending seen usage, ties by index (cached)."""
        cdef long long o = self.off[j]
        cdef int i, k = self.procs[j]
        cdef KeyIdx *tmp = self.keys  # scratch of P >= k entries; _pick is done with it here
        if not self.ordered[j]:
            self.ordered[j] = 1
            if k == 1:
                self.order[o] = 0
            else:
                for i in range(k):
                    tmp[i].key = -self.seen[o + i]
                    tmp[i].idx = i
                qsort(tmp, k, sizeof(KeyIdx), _cmp_keyidx)
                for i in range(k):
                    self.order[o + i] = <int>tmp[i].idx
        return &self.order[o]

    cdef int _pick(self, int need, double *key, bint fg_tier, bint use_avoid) except -1:
        """The first ``need`` candidate processors in (key, index) order into ``picked``; -1 if too few.

        fg: processors with an empty fg VM (outside the reserved ones when ``use_avoid``);
        bg: processors whose bg VM may take a process (``idle_bg``).
        """
        cdef int p, m = 0, zeros = 0, rest = 0, i
        cdef bint ok
        for p in range(self.P):
            if fg_tier:
                ok = self.fg[p] == EMPTY and not (use_avoid and self.reserved[p])
            else:
                ok = self.bg[p] == EMPTY and (self.fg[p] == EMPTY or self.fg_unknown[p] or
                                              self.fg_seen[p] < self.threshold)
            if not ok:
                continue
            m += 1
            if key[p] == 0.0:
                if zeros < need:
                    self.picked[zeros] = p
                zeros += 1
            else:
                self.keys[rest].key = key[p]
                self.keys[rest].idx = p
                rest += 1
        if m < need:
            return -1
        if zeros < need:
            qsort(self.keys, rest, sizeof(KeyIdx), _cmp_keyidx)
            for i in range(need - zeros):
                self.picked[zeros + i] = <int>self.keys[i].idx
        return m

    cdef int _dispatch_fg(self, int j, bint use_avoid) except -1:
        cdef int k = self.procs[j], i, p, q
        cdef long long o = self.off[j]
        cdef int *order
        if self._pick(k, self.bg_seen, True, use_avoid) < 0:
            raise MarketError(f"job index {j}: {k} fg VMs needed, too few idle")
        order = self._by_usage(j)
        for q in range(k):
            i, p = order[q], self.picked[q]
            self.on[o + i] = p
            self.fg[p] = j
            self.fg_use[p] = self.usage[o + i]
            self.fg_seen[p] = self.seen[o + i]
            self.fg_unknown[p] = self.unknown[o + i]
            if self.bg[p] != EMPTY:
                self._dirty_add(self.bg[p])
        self.n_idle_fg -= k
        self.tier[j] = FG
        self._list_add(self.fg_list, &self.n_fg, j)
        self._dirty_add(j)
        return 0

    cdef int _dispatch_bg(self, int j) except -1:
        cdef int k = self.procs[j], i, p, q
        cdef long long o = self.off[j]
        cdef int *order
        if self._pick(k, self.fg_seen, False, False) < 0:
            raise MarketError(f"job index {j}: {k} bg VMs needed, too few available")
        order = self._by_usage(j)
        for q in range(k):
            i, p = order[q], self.picked[q]
            self.on[o + i] = p
            self.bg[p] = j
            self.bg_seen[p] = self.seen[o + i]
        self.tier[j] = BG
        self._list_add(self.bg_list, &self.n_bg, j)
        self._dirty_add(j)
        return 0

    cdef int _vacate(self, int j) except -1:
        cdef long long o = self.off[j]
        cdef int i, p, k = self.procs[j]
        if self.tier[j] == FG:
            for i in range(k):
                p = self.on[o + i]
                self.fg[p] = EMPTY
                self.fg_use[p] = 0.0
                self.fg_seen[p] = 0.0
                self.fg_unknown[p] = 0
                if self.bg[p] != EMPTY:
                    self._dirty_add(self.bg[p])
            self.n_idle_fg += k
            self._list_remove(self.fg_list, &self.n_fg, j)
        elif self.tier[j] == BG:
            for i in range(k):
                p = self.on[o + i]
                self.bg[p] = EMPTY
                self.bg_seen[p] = 0.0
            self._list_remove(self.bg_list, &self.n_bg, j)
        self.tier[j] = NO_TIER
        self.dirty[j] = 0  # a stale entry may stay in dirty_list: _refresh skips it
        return 0

    cdef bint _can_swap(self, int j) noexcept nogil:
        cdef long long o = self.off[j]
        cdef int i
        if self.tier[j] != BG:
            return False
        for i in range(self.procs[j]):
            if self.fg[self.on[o + i]] != EMPTY:
                return False
        return True

    cdef int _swap(self, int j) except -1:
        cdef long long o = self.off[j]
        cdef int i, p, k = self.procs[j]
        self._vacate(j)
        for i in range(k):
            p = self.on[o + i]
            self.fg[p] = j
            self.fg_use[p] = self.usage[o + i]
            self.fg_seen[p] = self.seen[o + i]
            self.fg_unknown[p] = self.unknown[o + i]
        self.n_idle_fg -= k
        self.tier[j] = FG
        self._list_add(self.fg_list, &self.n_fg, j)
        self.swaps[j] += 1
        self._dirty_add(j)
        return 0

    # ------------------------------------------------------------- Deploy (policies.py)
    cdef long long _duration(self, int j) noexcept nogil:
        """Seconds ``j`` would occupy fg VMs if deployed now; -1: it cannot be (REASY)."""
        cdef long long est = self.estimate[j], left
        cdef double c
        if self.tier[j] != BG:
            return est
        c = ceil(<double>est - (self.progress[j] + self.rate[j] * <double>(self.now - self.t_at[j])) - 1e-9)
        left = <long long>c
        if left < 0:
            left = 0
        if self._can_swap(j):
            return left
        if self.deploy == DEPLOY_K:
            return est
        if self.deploy == DEPLOY_M:
            return left + self.cost
        return -1

    cdef bint _deploy(self, int j, long long duration, bint use_avoid) except -1:
        cdef long long now = self.now
        if self.tier[j] == BG:
            if self._can_swap(j):
                self._swap(j)
            elif self.deploy == DEPLOY_K:
                self._snapshot(j)
                self._vacate(j)
                self.wasted[j] += self.progress[j]
                self.progress[j] = 0.0
                self.rate[j] = 0.0
                self.kills[j] += 1
                self.version[j] += 1
                self._dispatch_fg(j, use_avoid)
                self.last_start[j] = now
            elif self.deploy == DEPLOY_M:
                self._snapshot(j)
                self._vacate(j)
                self._dispatch_fg(j, use_avoid)
                self.frozen_until[j] = now + self.cost
                self.migrations[j] += 1
            else:
                return False
        else:
            self._dispatch_fg(j, use_avoid)
            if self.start[j] == UNSET:
                self.start[j] = now
            self.last_start[j] = now
        self.fg_start[j] = now
        self.expected_end[j] = now + duration
        return True

    cdef void _mark_started(self, int j) noexcept nogil:
        self.started[j] = 1
        self.started_list[self.n_started] = j
        self.n_started += 1

    # ------------------------------------------------------------- one pass (Alg. 1 / Alg. 3)
    cdef long long _reservation(self, int head, long long *extra) except? -2:
        """Shadow time of the head and the extra fg VMs (Alg. 1 lines 14-21; Alg. 3 lines 3-17).

        For REASY's head pinned in the bg tier, also marks its processors ``reserved``.
        """
        cdef long long now = self.now, shadow, e, o
        cdef int need = self.procs[head], idle = self.n_idle_fg, i, p, b, size, free_, r, nb = 0
        if self.deploy == DEPLOY_R and self.tier[head] == BG and not self._can_swap(head):
            o = self.off[head]
            shadow, size = -1, 0
            for i in range(need):
                p = self.on[o + i]
                self.reserved[p] = 1
                self.reserved_list[self.n_reserved] = p
                self.n_reserved += 1
                b = self.fg[p]
                if b == EMPTY or self.mark[b]:
                    continue
                self.mark[b] = 1  # the distinct fg jobs on the head's processors: the blockers
                self.picked[nb] = b
                nb += 1
                e = self.expected_end[b] if self.expected_end[b] > now else now
                if e > shadow:
                    shadow = e
                size += self.procs[b]
            for i in range(nb):
                self.mark[self.picked[i]] = 0
            extra[0] = idle + size - need
            return shadow
        if idle >= need:  # only when the head could not be deployed for another reason
            extra[0] = idle - need
            return now
        for i in range(self.n_fg):
            b = self.fg_list[i]
            self.keys[i].key = <double>(self.expected_end[b] if self.expected_end[b] > now else now)
            self.keys[i].idx = self.procs[b]
        qsort(self.keys, self.n_fg, sizeof(KeyIdx), _cmp_keyidx)
        free_ = idle
        for i in range(self.n_fg):
            free_ += <int>self.keys[i].idx
            if free_ >= need:
                e = <long long>self.keys[i].key
                for r in range(i + 1, self.n_fg):
                    if <long long>self.keys[r].key != e:
                        break
                    free_ += <int>self.keys[r].idx
                extra[0] = free_ - need
                return e
        extra[0] = 0
        return NEVER  # unreachable: jobs never need more than the machine

    cdef int _schedule(self) except -1:
        """One pass at ``now`` (policies.py ``TwoTierPolicy.schedule``)."""
        cdef long long now = self.now, duration, shadow, extra = 0
        cdef int nm = 0, a = 0, b = 0, nbg = self.n_bg, k, j, head, n, idle_reserved, i, available, w
        cdef bint ends_before, any_waiting
        # merged list L: queued jobs and bg jobs, by arrival (index order)
        for i in range(nbg):
            self.picked[i] = self.bg_list[i]
        qsort(self.picked, nbg, sizeof(int), _cmp_int)
        while a < self.nq or b < nbg:
            if b >= nbg or (a < self.nq and self.queue[a] < self.picked[b]):
                self.merged[nm] = self.queue[a]
                a += 1
            else:
                self.merged[nm] = self.picked[b]
                b += 1
            nm += 1
        # ---- Step 1: FCFS into the fg tier
        k = 0
        while k < nm:
            j = self.merged[k]
            if self.procs[j] > self.n_idle_fg:
                break
            duration = self._duration(j)
            if duration < 0 or not self._deploy(j, duration, False):
                break
            self._mark_started(j)
            k += 1
        if k < nm and self.n_idle_fg:
            # ---- Step 2: reservation for the head, then backfilling
            head = self.merged[k]
            shadow = self._reservation(head, &extra)
            for i in range(k + 1, nm):
                if not self.n_idle_fg:
                    break
                j = self.merged[i]
                n = self.procs[j]
                if n > self.n_idle_fg:
                    continue
                duration = self._duration(j)
                if duration < 0:
                    continue
                ends_before = now + duration <= shadow
                if not ends_before:
                    if n > extra:
                        continue
                    if self.n_reserved and self.tier[j] != BG:
                        idle_reserved = 0
                        for w in range(self.n_reserved):
                            if self.fg[self.reserved_list[w]] == EMPTY:
                                idle_reserved += 1
                        if n > self.n_idle_fg - idle_reserved:
                            continue
                if self._deploy(j, duration, not ends_before):
                    self._mark_started(j)
                    if not ends_before:
                        extra -= n
            for w in range(self.n_reserved):
                self.reserved[self.reserved_list[w]] = 0
            self.n_reserved = 0
        # ---- Step 3: SJF into the bg tier
        if self.background and self.two_tier:
            any_waiting = False
            for i in range(self.nq):
                if not self.started[self.queue[i]]:
                    any_waiting = True
                    break
            available = 0
            if any_waiting:
                for w in range(self.P):
                    if self.bg[w] == EMPTY and (self.fg[w] == EMPTY or self.fg_unknown[w] or
                                                self.fg_seen[w] < self.threshold):
                        available += 1
            if available:
                for i in range(self.nq):
                    if not available:
                        break
                    j = self.sjf[i]
                    if self.started[j]:
                        continue
                    if self.procs[j] <= available:
                        self._dispatch_bg(j)
                        available -= self.procs[j]
                        if self.start[j] == UNSET:
                            self.start[j] = now
                        self.last_start[j] = now
                        self._mark_started(j)
        if self.n_started:
            a = 0
            b = 0
            for i in range(self.nq):
                if not self.started[self.queue[i]]:
                    self.queue[a] = self.queue[i]
                    a += 1
                if not self.started[self.sjf[i]]:
                    self.sjf[b] = self.sjf[i]
                    b += 1
            self.nq = a
            for i in range(self.n_started):
                self.started[self.started_list[i]] = 0
            self.n_started = 0
        return 0

    cdef void _enqueue(self, int j) noexcept nogil:
        """Append arrival ``j`` to the queue and insert it in SJF order (estimate, arrival)."""
        cdef int lo = 0, hi = self.nq, mid, i
        cdef long long est = self.estimate[j]
        self.queue[self.nq] = j
        while lo < hi:  # j arrives after every queued job: it goes after equal estimates
            mid = (lo + hi) >> 1
            if self.estimate[self.sjf[mid]] <= est:
                lo = mid + 1
            else:
                hi = mid
        i = self.nq
        while i > lo:
            self.sjf[i] = self.sjf[i - 1]
            i -= 1
        self.sjf[lo] = j
        self.nq += 1

    # ------------------------------------------------------------- checks (vm.py assert_consistent)
    cdef int _check(self) except -1:
        cdef int i, q, j, p, busy = 0
        cdef long long o
        for p in range(self.P):
            self.keys[p].idx = 0
        for i in range(self.n_fg):
            j = self.fg_list[i]
            o = self.off[j]
            if self.tier[j] != FG:
                raise MarketError(f"job index {j}: inconsistent fg placement")
            for q in range(self.procs[j]):
                p = self.on[o + q]
                if self.fg[p] != j or self.keys[p].idx:
                    raise MarketError(f"fg VM of processor {p} over-committed (job index {j})")
                self.keys[p].idx = 1
                busy += 1
        for p in range(self.P):
            if self.fg[p] != EMPTY and not self.keys[p].idx:
                raise MarketError("a fg VM holds a job that is not running in the fg tier")
            self.keys[p].idx = 0
        for i in range(self.n_bg):
            j = self.bg_list[i]
            o = self.off[j]
            if self.tier[j] != BG:
                raise MarketError(f"job index {j}: inconsistent bg placement")
            for q in range(self.procs[j]):
                p = self.on[o + q]
                if self.bg[p] != j or self.keys[p].idx:
                    raise MarketError(f"bg VM of processor {p} does not hold job index {j}")
                self.keys[p].idx = 1
        for p in range(self.P):
            if self.bg[p] != EMPTY and not self.keys[p].idx:
                raise MarketError("a bg VM holds a job that is not running in the bg tier")
        if self.n_idle_fg != self.P - busy:
            raise MarketError(f"idle fg count {self.n_idle_fg} != {self.P - busy}")
        return 0

    # ------------------------------------------------------------- the event loop (simulation.py)
    cdef int run(self) except -1:
        cdef int i = 0, n = self.n, j
        cdef long long t, left_end
        cdef bint have, event
        cdef Event ev
        cdef Py_ssize_t d
        cdef double left
        while True:
            have = self.n_heap > 0
            if have:
                t = self.heap[0].time
            if i < n and (not have or self.submit[i] < t):
                t = self.submit[i]
                have = True
            if not have:
                break
            self.now = t
            event = False
            while self.n_heap and self.heap[0].time == t:
                ev = self._pop()
                j = ev.job
                if ev.version != self.version[j] or self.tier[j] == NO_TIER:
                    continue  # outdated by a later rate change
                if ev.kind == EV_WAKE:
                    self._dirty_add(j)
                    continue
                self._snapshot(j)
                if self.progress[j] < self.work[j] - EPS:  # float drift: not done yet
                    self._dirty_add(j)
                    continue
                self.progress[j] = self.work[j]
                self.end[j] = t
                self.finished_in[j] = self.tier[j]
                if self.tier[j] == BG:
                    self.fg_start[j] = UNSET
                self._vacate(j)
                event = True
            while i < n and self.submit[i] == t:
                self._enqueue(i)
                i += 1
                event = True
            if event:
                self._schedule()
            if self.validate:
                self._check()
            # new rates of the jobs whose placement changed, and their next events
            d = 0
            while d < self.n_dirty:
                j = self.dirty_list[d]
                d += 1
                if not self.dirty[j]:
                    continue
                self.dirty[j] = 0
                if self.tier[j] == NO_TIER:
                    continue
                self._snapshot(j)
                self.rate[j] = self._rate_of(j)
                self.version[j] += 1
                if self.tier[j] == FG and t < self.frozen_until[j]:
                    self._push(self.frozen_until[j], EV_WAKE, j)
                elif self.rate[j] > 0.0:
                    left = self.work[j] - self.progress[j]
                    left_end = <long long>ceil(<double>t + left / self.rate[j] - 1e-9)
                    self._push(t + 1 if t + 1 > left_end else left_end, EV_END, j)
            self.n_dirty = 0
        return 0

    def results(self):
        """Per-job arrays (index order): the columns the reference's ``_records`` reads from its runs."""
        cdef int n = self.n, j
        out = {name: np.empty(n, dtype=np.int64) for name in
               ("start", "end", "last_start", "fg_start", "kills", "migrations", "swaps")}
        wasted = np.empty(n, dtype=np.float64)
        finished = np.empty(n, dtype=np.int8)
        cdef long long[::1] start = out["start"], end = out["end"], last = out["last_start"]
        cdef long long[::1] fgs = out["fg_start"], kills = out["kills"], mig = out["migrations"]
        cdef long long[::1] swaps = out["swaps"]
        cdef double[::1] w = wasted
        cdef signed char[::1] fin = finished
        for j in range(n):
            if self.end[j] == UNSET:
                stuck = [k for k in range(n) if self.end[k] == UNSET]
                raise MarketError(f"two-tier simulation stalled with {len(stuck)} unfinished job(s), "
                                  f"e.g. job indices {stuck[:5]}")
            start[j] = self.start[j]
            end[j] = self.end[j]
            last[j] = self.last_start[j]
            fgs[j] = -1 if self.fg_start[j] == UNSET else self.fg_start[j]
            kills[j] = self.kills[j]
            mig[j] = self.migrations[j]
            swaps[j] = self.swaps[j]
            w[j] = self.wasted[j]
            fin[j] = self.finished_in[j]
        out["wasted"] = wasted
        out["finished_in"] = finished
        return out


def run_events(submit, estimate, procs, off, work, usage, seen, unknown, beta, fgrate, *, int machine_procs,
               str deploy, bint background, bint two_tier, str bg_model, double threshold, long long migration_cost,
               bint validate=False):
    """Simulate the jobs on a two-tier machine; per-job result arrays in index order.

    ``submit``, ``estimate`` (int64 seconds), ``procs`` (int32) per job in ``(submit, id)`` order;
    ``off`` (int64, n + 1) the start of each job's processes in ``usage``, ``seen`` (float64, the
    scheduler's view; 0.0 where unknown) and ``unknown`` (int8, 1 where the scheduler does not
    know the usage); ``work`` (dedicated seconds), ``beta`` and ``fgrate`` (``1 - loss``) per job.
    ``deploy`` is ``"K"``, ``"R"`` or ``"M"``; ``bg_model`` ``"product"`` or ``"ratio"``.
    """
    modes = {"K": DEPLOY_K, "R": DEPLOY_R, "M": DEPLOY_M}
    models = {"product": MODEL_PRODUCT, "ratio": MODEL_RATIO}
    engine = _Engine(np.ascontiguousarray(submit, dtype=np.int64), np.ascontiguousarray(estimate, dtype=np.int64),
                     np.ascontiguousarray(procs, dtype=np.int32), np.ascontiguousarray(off, dtype=np.int64),
                     np.ascontiguousarray(work, dtype=np.float64), np.ascontiguousarray(usage, dtype=np.float64),
                     np.ascontiguousarray(seen, dtype=np.float64), np.ascontiguousarray(unknown, dtype=np.int8),
                     np.ascontiguousarray(beta, dtype=np.float64), np.ascontiguousarray(fgrate, dtype=np.float64),
                     machine_procs, modes[deploy], background, two_tier, models[bg_model], threshold,
                     migration_cost, validate)
    engine.run()
    return engine.results()
