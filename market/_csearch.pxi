# Binary searches shared by the compiled kernel modules (_cprofile, _creplan, _cplan): C inline functions,
# included textually (``include``) where used, so no module path is compiled in. Steps are kept either as
# Python lists of ints or as C arrays of i64 (seconds).
cimport cython

ctypedef long long i64


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline Py_ssize_t bisect_right_list(list a, i64 x, Py_ssize_t lo, Py_ssize_t hi):
    """First index in [lo, hi) whose value exceeds ``x`` (``bisect.bisect_right`` on a list of ints)."""
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < <i64>a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline Py_ssize_t bisect_right_array(i64 *a, i64 x, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """``bisect_right_list`` on a C array."""
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo
