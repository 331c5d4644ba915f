"""gridmarket.csvout.write_csv writes exactly what DataFrame.to_csv(index=False) writes, on every table shape."""

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.csvout import write_csv

cells = st.one_of(
    st.lists(st.integers(-2**62, 2**62), min_size=3, max_size=3),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.lists(st.text(alphabet='ab ,"\n\r-é', max_size=6), min_size=3, max_size=3),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=3, max_size=3),
)


@given(st.dictionaries(st.sampled_from(["job_id", "outcome", "a b", "x,y", "wait"]), cells, min_size=1, max_size=4),
       st.booleans())
@settings(max_examples=150, deadline=None)
def test_same_bytes_as_pandas(tmp_path_factory, columns, as_string_dtype):
    df = pd.DataFrame(columns)
    if as_string_dtype:
        df = df.astype({c: "string" for c in df.columns if df[c].dtype == object})
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    write_csv(df, path)
    with open(path, newline="") as f:
        assert f.read() == df.to_csv(index=False)
