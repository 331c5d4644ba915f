"""The data registry (data/registry.toml) and gridmarket.datasets: lookup, mirrors, checksums, refusals."""

import dataclasses
import gzip
import hashlib
from pathlib import Path

import pytest

from gridmarket import datasets
from gridmarket.errors import InvalidInput

MONTAGE = "workflows/pegasus-dax/Montage_25.xml"  # registered, and shipped whole as samples/Montage_25.xml
CTC = "traces/CTC-SP2-1996-3.1-cln.swf.gz"
CTC_SAMPLE = "samples/CTC-SP2-1996-3.1-cln-first5000.swf.gz"


def _lines(path) -> list[str]:
    """The lines of a gzip'd text file."""
    with gzip.open(path, "rt") as fh:
        return fh.read().splitlines()


def test_every_entry_names_a_known_source_and_a_way_to_get_it():
    srcs = datasets.sources()
    assert len(datasets.registry()) == 51
    for path, ds in datasets.registry().items():
        assert ds.path == path and path.split("/")[0] in ("traces", "prices", "workflows"), path
        assert srcs[ds.source].licence and srcs[ds.source].cite, path
        assert ds.urls or (ds.origin and ds.derived), path  # a URL serves the bytes, or the entry says how they were made
        assert all(u.startswith("https://") for u in ds.urls + ds.origin), path
    # the price files are one column of a public CSV, rewritten: no URL may claim to serve their bytes, and
    # fetch remakes them from their pinned origin
    prices = [ds for p, ds in datasets.registry().items() if p.startswith("prices/")]
    assert len(prices) == 8 and all(not ds.urls and ds.derived and ds.derive for ds in prices)
    assert all(ds.derive["from"] == ds.origin[0] and ds.fetchable for ds in prices)


def test_every_reproduction_named_in_used_by_exists():
    from gridmarket.scenarios.reproductions import REPRODUCTIONS

    named = {r for ds in datasets.registry().values() for r in ds.used_by}
    assert named and named <= set(REPRODUCTIONS)


@pytest.mark.parametrize("name", ["samples/Montage_25.xml", CTC_SAMPLE])
def test_shipped_samples_have_their_registered_size_and_sha256(name):
    ds = datasets.samples()[name]
    path = datasets.sample(name)
    assert path.stat().st_size == ds.size and datasets.sha256(path) == ds.sha256
    assert ds.cut_from in datasets.registry() and ds.source == datasets.registry()[ds.cut_from].source


def test_the_montage_sample_is_the_registered_file():
    assert datasets.samples()["samples/Montage_25.xml"].sha256 == datasets.registry()[MONTAGE].sha256


def test_the_ctc_sample_keeps_the_pwa_header_says_it_was_cut_and_holds_5000_records():
    from gridmarket.workloads import read_swf

    lines = _lines(datasets.sample(CTC_SAMPLE))
    header = [line for line in lines if line.startswith(";")]
    assert "; Acknowledge: Dan Dwyer and Steve Hotovy" in header
    assert any("the first 5000 of the 77222 records" in line for line in header)
    assert len(lines) - len(header) == datasets.samples()[CTC_SAMPLE].records == 5000
    assert len(read_swf(datasets.sample(CTC_SAMPLE))) == 5000


@pytest.mark.data(CTC)
def test_the_ctc_sample_is_the_head_of_the_registered_trace(data_dir):
    full = _lines(data_dir / CTC)
    cut = _lines(datasets.sample(CTC_SAMPLE))
    records = [line for line in full if not line.startswith(";")]
    assert [line for line in cut if not line.startswith(";")] == records[:5000]
    assert [line for line in cut if line.startswith(";") and "gridmarket sample" not in line
            and "(sha256" not in line and "MaxRecords describe" not in line] == \
        [line for line in full if line.startswith(";")]


def test_registered_files_present_in_the_data_root_have_their_size_and_sha256(data_dir):
    present = [ds for p, ds in datasets.registry().items() if (data_dir / p).is_file()]
    if not present:
        pytest.skip(f"no registered file in {data_dir}")
    for ds in present:
        path = data_dir / ds.path
        assert path.stat().st_size == ds.size, ds.path
        assert hashlib.sha256(path.read_bytes()).hexdigest() == ds.sha256, ds.path


def test_get_suggests_the_closest_registered_path():
    with pytest.raises(InvalidInput, match=r"'traces/SDSC-SP2\.swf' is not a registered data file \(did you mean "
                                           r"'traces/SDSC-SP2-1998-4\.2-cln\.swf\.gz'\?\)"):
        datasets.get("traces/SDSC-SP2.swf")


def test_data_root_is_the_argument_else_the_environment_else_the_cache(cache, monkeypatch, tmp_path):
    assert datasets.data_root() == cache == datasets.cache_dir()
    monkeypatch.setenv(datasets.DATA_ENV, str(tmp_path / "env"))
    assert datasets.data_root() == tmp_path / "env"
    assert datasets.data_root(tmp_path / "arg") == tmp_path / "arg"


def test_a_missing_file_is_one_line_naming_it_the_folder_and_the_fetch_command(cache):
    with pytest.raises(InvalidInput) as err:
        datasets.locate("traces/SDSC-SP2-1998-4.2-cln.swf.gz", needed_by="singh-var")
    message = str(err.value)
    assert "\n" not in message and message.startswith("singh-var needs traces/SDSC-SP2-1998-4.2-cln.swf.gz")
    assert str(cache) in message and "`gridmarket data fetch traces/SDSC-SP2-1998-4.2-cln.swf.gz`" in message
    with pytest.raises(InvalidInput, match=r"gridmarket data fetch workflows/wfcommons-generated/wfcommons-montage-100-seed42[.]json --from MIRROR"):
        datasets.locate("workflows/wfcommons-generated/wfcommons-montage-100-seed42.json")


@pytest.mark.parametrize("as_url", [False, True], ids=["folder", "file-url"])
def test_fetch_from_a_local_mirror_verifies_and_caches_the_file(cache, mirror, as_url):
    source = mirror.as_uri() if as_url else str(mirror)
    assert not datasets.is_cached(MONTAGE)
    [path] = datasets.fetch([MONTAGE], mirror=source)
    assert path == cache / MONTAGE and datasets.sha256(path) == datasets.registry()[MONTAGE].sha256
    assert datasets.is_cached(MONTAGE) and datasets.locate(MONTAGE) == path
    assert sorted(p.name for p in path.parent.iterdir()) == ["Montage_25.xml"]  # no partial file left


def test_a_cached_file_is_not_fetched_again(cache, mirror):
    datasets.fetch([MONTAGE], mirror=str(mirror))
    (mirror / MONTAGE).unlink()
    assert datasets.fetch([MONTAGE], mirror=str(mirror)) == [cache / MONTAGE]


def test_a_corrupted_mirror_file_is_refused_with_both_hashes_and_nothing_is_cached(cache, mirror):
    data = bytearray((mirror / MONTAGE).read_bytes())
    data[1000] ^= 1
    (mirror / MONTAGE).write_bytes(bytes(data))
    bad = hashlib.sha256(bytes(data)).hexdigest()
    with pytest.raises(InvalidInput) as err:
        datasets.fetch([MONTAGE], mirror=str(mirror))
    message = str(err.value)
    assert "\n" not in message and message.startswith(MONTAGE)
    assert bad in message and datasets.registry()[MONTAGE].sha256 in message and "nothing cached" in message
    assert not (cache / MONTAGE).exists() and list((cache / MONTAGE).parent.iterdir()) == []


def test_a_cached_file_with_a_changed_byte_is_fetched_again(cache, mirror):
    datasets.fetch([MONTAGE], mirror=str(mirror))
    data = bytearray((cache / MONTAGE).read_bytes())
    data[0] ^= 1
    (cache / MONTAGE).write_bytes(bytes(data))
    datasets.fetch([MONTAGE], mirror=str(mirror))
    assert datasets.sha256(cache / MONTAGE) == datasets.registry()[MONTAGE].sha256


def test_unreachable_sources_give_one_line_naming_each_url_and_the_mirror_option(cache, monkeypatch, tmp_path):
    registry = datasets.registry()
    urls = ("http://127.0.0.1:9/Montage_25.xml", (tmp_path / "nowhere" / "Montage_25.xml").as_uri())
    monkeypatch.setitem(registry, MONTAGE, dataclasses.replace(registry[MONTAGE], urls=urls))
    with pytest.raises(InvalidInput) as err:
        datasets.fetch([MONTAGE])
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"could not get {MONTAGE} from ")
    assert all(u in message for u in urls) and "--from DIR_OR_URL" in message
    assert not (cache / MONTAGE).exists()


def test_a_source_whose_scheme_no_downloader_knows_is_one_line_naming_it(cache, monkeypatch):
    registry = datasets.registry()
    url = "gopher://127.0.0.1/Montage_25.xml"  # pooch refuses the scheme with a ValueError, which has no strerror
    monkeypatch.setitem(registry, MONTAGE, dataclasses.replace(registry[MONTAGE], urls=(url,)))
    with pytest.raises(InvalidInput) as err:
        datasets.fetch([MONTAGE])
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"could not get {MONTAGE} from {url} (")
    assert not (cache / MONTAGE).exists()


def test_a_generated_file_needs_a_mirror(cache):
    with pytest.raises(InvalidInput, match=r"wfcommons-montage-100-seed42\.json was made from https://pypi\.org\S+ "
                                           r"and no public URL serves its exact bytes.*--from DIR_OR_URL"):
        datasets.fetch(["workflows/wfcommons-generated/wfcommons-montage-100-seed42.json"])


# A derived price file is remade from its origin CSV: the lines below are the origins' own (epftoolbox's PJM.csv,
# Deepforkit's DE.csv around Germany's bidding-zone split) and what the registered files hold for them.
PJM_ORIGIN = """, Zonal COMED price, System load forecast, Zonal COMED load foecast
2013-01-01 00:00:00,25.464211,85049.0,11509.0
2013-11-03 01:00:00,22.7684975,66142.0,8793.0
2015-11-01 01:00:00,14.7332125,64846.0,8655.0
"""
PJM_DERIVED = """timestamp,price,zone,currency
2013-01-01T00:00:00,25.464211,PJM_COMED,USD
2013-11-03T01:00:00,22.768498,PJM_COMED,USD
2015-11-01T01:00:00,14.733212,PJM_COMED,USD
"""
DE_ORIGIN = """,Price_DA,Load_DA,Load_AC,Gen_SC,Sol_DA,Won_DA
9/30/2018 23:00,60.87,1,2,3,4,5
10/1/2018 0:00,59.53,1,2,3,4,5
1/5/2015 14:00,42,1,2,3,4,5
"""
DE_DERIVED = """timestamp,price,zone,currency
2018-09-30T23:00:00,60.87,DE_AT_LU,EUR
2018-10-01T00:00:00,59.53,DE_LU,EUR
2015-01-05T14:00:00,42.0,DE_AT_LU,EUR
"""


@pytest.mark.parametrize("path, origin, derived", [
    ("prices/pjm_comed_2013-2018_epftoolbox.csv", PJM_ORIGIN, PJM_DERIVED),
    ("prices/entsoe_da_DE_2015-2023.csv", DE_ORIGIN, DE_DERIVED),
], ids=["epftoolbox-rounded", "deepforkit-zone-split"])
def test_derive_prices_rewrites_the_origin_as_the_registered_files_hold_it(path, origin, derived, tmp_path):
    (tmp_path / "origin.csv").write_text(origin)
    datasets.derive_prices(tmp_path / "origin.csv", tmp_path / "out.csv", datasets.registry()[path].derive)
    assert (tmp_path / "out.csv").read_bytes() == derived.encode()


@pytest.fixture
def tiny_pjm(cache, tmp_path, monkeypatch):
    """The PJM entry pointed at a four-line origin on disk, with the sha256 and size of its derivation."""
    (tmp_path / "PJM.csv").write_text(PJM_ORIGIN)
    path = "prices/pjm_comed_2013-2018_epftoolbox.csv"
    ds = datasets.registry()[path]
    digest = hashlib.sha256(PJM_DERIVED.encode()).hexdigest()
    derive = {**ds.derive, "from": (tmp_path / "PJM.csv").as_uri(), "sha256": datasets.sha256(tmp_path / "PJM.csv")}
    monkeypatch.setitem(datasets.registry(), path, dataclasses.replace(ds, derive=derive, sha256=digest,
                                                                       size=len(PJM_DERIVED)))
    return path, tmp_path / "PJM.csv"


def test_fetch_remakes_a_derived_file_from_its_origin_and_checks_both_hashes(tiny_pjm, cache):
    path, _ = tiny_pjm
    assert datasets.fetch([path]) == [cache / path]
    assert (cache / path).read_text() == PJM_DERIVED
    assert sorted(p.name for p in (cache / path).parent.iterdir()) == [path.split("/")[1]]  # no origin left


def test_a_changed_origin_is_refused_and_nothing_is_cached(tiny_pjm, cache):
    path, origin = tiny_pjm
    origin.write_text(PJM_ORIGIN.replace("25.464211", "25.464212"))
    with pytest.raises(InvalidInput, match=r"sha256 of its origin file://\S+PJM\.csv is [0-9a-f]{64}, the registry's "
                                           r"is [0-9a-f]{64}; refused, nothing cached"):
        datasets.fetch([path])
    assert not (cache / path).parent.exists() or list((cache / path).parent.iterdir()) == []


def test_a_missing_mirror_folder_is_named(cache, tmp_path):
    with pytest.raises(InvalidInput, match=r"--from .*absent: no such folder"):
        datasets.fetch([MONTAGE], mirror=str(tmp_path / "absent"))


def test_needed_by_lists_what_each_reproduction_reads():
    assert datasets.needed_by("singh-var") == ("traces/SDSC-SP2-1998-4.2-cln.swf.gz",)
    assert datasets.needed_by("murali-xsede") == ("prices/pjm_comed_2013-2018_epftoolbox.csv",)
    assert datasets.needed_by("measy") == ()


def test_sample_rejects_a_registered_file_that_is_not_shipped():
    with pytest.raises(InvalidInput, match="not a shipped sample"):
        datasets.sample(MONTAGE)
    assert isinstance(datasets.sample("samples/Montage_25.xml"), Path)
