"""Fast CSV writing of per-job tables: pyarrow's C++ writer where it gives pandas' exact bytes.

``DataFrame.to_csv`` formats every cell in Python (0.28 s for a 77,205-job
CTC-SP2 table); pyarrow writes the same table in ~0.03 s. The two agree byte for
byte on integer and string columns with plain header names and no empty string
or value that needs quotes, so only those tables take the fast path; any other
table (floats and booleans, whose text pandas and pyarrow format differently, or
quoting) is written by pandas.
"""

from __future__ import annotations

import re
from os import PathLike

import pandas as pd

from gridmarket.atomicfile import atomic_path

__all__ = ["write_csv"]

_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _fast_path(df: pd.DataFrame) -> bool:
    if not all(isinstance(c, str) and _PLAIN_NAME.match(c) for c in df.columns):
        return False
    for name, dtype in df.dtypes.items():
        if pd.api.types.is_bool_dtype(dtype):  # pandas writes True/False, pyarrow true/false
            return False
        if pd.api.types.is_integer_dtype(dtype):
            continue
        if not pd.api.types.is_string_dtype(dtype):
            return False
        # written unquoted (pyarrow quotes every string or none; pandas only the values that need it);
        # empty and missing strings are left to pandas too (it quotes an empty one in a one-column table)
        values = df[name].astype("string")
        if values.isna().any() or (values.str.len() == 0).any() or values.str.contains(r'[,"\r\n]').any():
            return False
    return True


def write_csv(df: pd.DataFrame, path: str | PathLike[str]) -> None:
    """Write ``df`` without its index, exactly as ``df.to_csv(path, index=False)`` would, whole or not at all.

    The file is written under a temporary name and renamed (:func:`gridmarket.atomicfile.atomic_path`),
    so a stop or a full disk leaves the previous ``path`` intact.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "jobs.csv")
    >>> for outcome in ("killed", 'a "b", c'):
    ...     df = pd.DataFrame({"job_id": [1, 2], "outcome": pd.array(["completed", outcome], dtype="string")})
    ...     write_csv(df, path)
    ...     print(open(path).read() == df.to_csv(index=False))
    True
    True
    """
    with atomic_path(path) as tmp:  # a stop or a full disk keeps the previous file, never a cut one
        if not _fast_path(df):
            df.to_csv(tmp, index=False)
            return
        import pyarrow as pa
        import pyarrow.csv as pacsv

        table = pa.Table.from_pandas(df, preserve_index=False)
        with open(tmp, "wb") as out:
            out.write((",".join(df.columns) + "\n").encode())
            pacsv.write_csv(table, out, write_options=pacsv.WriteOptions(include_header=False, quoting_style="none"))
