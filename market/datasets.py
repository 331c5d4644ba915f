"""The real inputs gridmarket uses (traces, electricity prices, workflows): where they come from and where they are.

Every file is registered in ``data/registry.toml`` (shipped as :mod:`gridmarket.data`) by its path under a
data root (``traces/CTC-SP2-1996-3.1-cln.swf.gz``), with its public source, sha256, size in bytes, licence and
citation. Every command, reproduction, test and benchmark finds a file the same way (:func:`locate`): an
explicit folder (``--data DIR``), else ``$GRIDMARKET_DATA``, else the user cache (``$GRIDMARKET_CACHE``, else
the platform's cache folder for ``gridmarket``), which :func:`fetch` fills from the public URLs or from a
mirror after checking the sha256 -- the way scikit-learn's ``fetch_*`` functions and pooch keep their data.
Nothing here looks anywhere else. A few tiny files ship with the package (:func:`sample`).

Listing and locating import nothing heavy; pooch (and with it requests) is imported only to download.
"""

from __future__ import annotations

import difflib
import errno
import hashlib
import io
import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from importlib import resources
from pathlib import Path
from urllib.parse import quote, urlparse
from urllib.request import url2pathname

from gridmarket.atomicfile import write_atomic
from gridmarket.decoding import decode_text, parse_toml, read_text
from gridmarket.errors import InvalidInput

__all__ = [
    "CACHE_ENV",
    "DATA_ENV",
    "Dataset",
    "Source",
    "cache_dir",
    "data_root",
    "derive_prices",
    "fetch",
    "get",
    "is_cached",
    "locate",
    "needed_by",
    "registry",
    "sample",
    "samples",
    "sha256",
    "sources",
]

DATA_ENV = "GRIDMARKET_DATA"
"""Environment variable naming a data folder laid out like the registry (``traces/``, ``prices/``, ...)."""

CACHE_ENV = "GRIDMARKET_CACHE"
"""Environment variable naming the cache folder :func:`fetch` fills (default: the platform's user cache)."""

_REGISTRY = "registry.toml"


@dataclass(frozen=True, slots=True)
class Source:
    """Where a family of files comes from: its title, page, licence or terms, and how to cite it."""

    name: str
    title: str
    page: str
    licence: str
    cite: str


@dataclass(frozen=True, slots=True)
class Dataset:
    """One registered file (a ``[[files]]`` or ``[[samples]]`` entry of ``data/registry.toml``).

    Attributes
    ----------
    path : str
        Place under a data root, ``/``-separated (``traces/SDSC-SP2-1998-4.2-cln.swf.gz``).
    source : str
        Name of its :class:`Source` (licence, credit, citation).
    size : int
        Bytes of the file exactly as stored.
    sha256 : str
        Hex digest of those bytes.
    urls : tuple of str
        URLs serving exactly these bytes, tried in order; empty for a derived or generated file.
    origin : tuple of str
        Where the data of a derived or generated file come from (these URLs do not serve its bytes).
    derived : str
        How a derived or generated file was made; empty when ``urls`` serve it.
    acknowledge, note : str
        The credit its providers ask for; anything a user should know.
    used_by : tuple of str
        The reproductions (``gridmarket run NAME``) that read it.
    records, rows, tasks, edges : int or None
        Counts taken by parsing the file: SWF records, price rows (hours), workflow tasks and edges.
    cut_from : str
        For a sample: the registered file it was cut from.
    derive : mapping or None
        How :func:`fetch` remakes a derived price file from its origin CSV (keys ``from``, ``sha256``,
        ``size``, ``format``, ``zone``, ``currency``, optional ``decimals`` and ``zone_from``;
        :func:`derive_prices`).
    """

    path: str
    source: str
    size: int
    sha256: str
    urls: tuple[str, ...] = ()
    origin: tuple[str, ...] = ()
    derived: str = ""
    acknowledge: str = ""
    note: str = ""
    used_by: tuple[str, ...] = ()
    records: int | None = None
    rows: int | None = None
    tasks: int | None = None
    edges: int | None = None
    cut_from: str = ""
    derive: Mapping | None = None

    def __post_init__(self):
        if not self.path or self.path.startswith("/") or ".." in self.path.split("/"):
            raise InvalidInput(f"{_REGISTRY}: path {self.path!r} must be relative, without '..'")
        if len(self.sha256) != 64 or any(c not in "0123456789abcdef" for c in self.sha256):
            raise InvalidInput(f"{_REGISTRY}: {self.path}: sha256 must be 64 lower-case hex digits, got {self.sha256!r}")
        if not isinstance(self.size, int) or self.size <= 0:
            raise InvalidInput(f"{_REGISTRY}: {self.path}: size must be a positive int (bytes), got {self.size!r}")
        if not self.urls and not self.derived and not self.cut_from:
            raise InvalidInput(f"{_REGISTRY}: {self.path}: no urls, so 'derived' must say how it was made")

    @property
    def fetchable(self) -> bool:
        """Whether :func:`fetch` can get it without a mirror: a public URL serves its bytes, or its public origin
        is rewritten into them (``derive``); else only a mirror can (``fetch(..., mirror=...)``)."""
        return bool(self.urls or self.derive)


# ----------------------------------------------------------------------------- the registry
@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, Source], dict[str, Dataset], dict[str, Dataset]]:
    raw = resources.files("gridmarket.data").joinpath(_REGISTRY).read_bytes()
    doc = parse_toml(decode_text(raw, _REGISTRY, "data registry"), _REGISTRY, "data registry")
    srcs = {name: Source(name, **entry) for name, entry in doc.get("sources", {}).items()}
    known = {f.name for f in fields(Dataset)}

    def entries(kind: str) -> dict[str, Dataset]:
        out = {}
        for entry in doc.get(kind, []):
            unknown = sorted(set(entry) - known)
            if unknown:
                raise InvalidInput(f"{_REGISTRY}: {entry.get('path', '?')}: unknown key(s) {', '.join(unknown)}")
            entry = {k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()}
            if "derive" in entry:
                _check_derive(entry.get("path", "?"), entry["derive"])
            ds = Dataset(**entry)
            if ds.source not in srcs:
                raise InvalidInput(f"{_REGISTRY}: {ds.path}: unknown source {ds.source!r}")
            if ds.path in out:
                raise InvalidInput(f"{_REGISTRY}: {ds.path} is registered twice")
            out[ds.path] = ds
        return out

    return srcs, entries("files"), entries("samples")


def registry() -> Mapping[str, Dataset]:
    """Every registered file by path (not the samples), in the registry's order.

    >>> registry()["traces/SDSC-SP2-1998-4.2-cln.swf.gz"].size
    1205570
    """
    return _load()[1]


def samples() -> Mapping[str, Dataset]:
    """The tiny files shipped in ``data/samples/`` by path (``samples/Montage_25.xml``)."""
    return _load()[2]


def sources() -> Mapping[str, Source]:
    """The :class:`Source` of every family of files by name (``pwa``, ``epftoolbox``, ...)."""
    return _load()[0]


def get(path: str) -> Dataset:
    """The registered file (or sample) at ``path``; InvalidInput naming the closest registered path otherwise.

    >>> get("traces/CTC-SP2-1996-3.1-cln.swf.gz").records
    77222
    >>> get("traces/CTC-SP2.swf.gz")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: 'traces/CTC-SP2.swf.gz' is not a registered data file (did you mean 'traces/CTC-SP2-1996-3.1-cln.swf.gz'?)
    """
    found = registry().get(path) or samples().get(path)
    if found is None:
        known = [*registry(), *samples()]
        # a file named by the start of its name (traces/KTH.swf.gz) first: whole-path similarity alone
        # prefers any path of the same length
        stem = path.rsplit("/", 1)[-1].split(".")[0].lower()
        close: list[str] = []
        for pool in (registry(), samples()):  # a registered file before its sample
            close = close or [k for k in pool if stem and k.rsplit("/", 1)[-1].lower().startswith(stem)]
        close = close or difflib.get_close_matches(path, known, n=1, cutoff=0.4)
        if len(close) == 1:
            hint = f" (did you mean {close[0]!r}?)"
        elif close:
            hint = f" (did you mean one of {', '.join(close)}?)"
        else:
            hint = "; `gridmarket data list` names them"
        raise InvalidInput(f"{path!r} is not a registered data file{hint}")
    return found


def needed_by(reproduction: str) -> tuple[str, ...]:
    """The registered paths a reproduction reads (their ``used_by`` names it), in registry order.

    >>> needed_by("murali-nordugrid")
    ('prices/nordpool_system_2013-2018_epftoolbox.csv',)
    """
    return tuple(p for p, ds in registry().items() if reproduction in ds.used_by)


# ----------------------------------------------------------------------------- where files are
def cache_dir() -> Path:
    """The user cache: ``$GRIDMARKET_CACHE`` if set, else the platform cache folder (``~/.cache/gridmarket``)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    import pooch  # only here: pooch pulls in requests, which listing and locating need not load

    return Path(pooch.os_cache("gridmarket"))


def data_root(data: str | os.PathLike | None = None) -> Path:
    """The folder files are read from: ``data`` if given, else ``$GRIDMARKET_DATA`` if set, else :func:`cache_dir`.

    Examples
    --------
    >>> str(data_root("/srv/mirror"))
    '/srv/mirror'
    """
    if data is not None:
        return Path(data).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    return cache_dir()


def _root_label(data) -> str:
    if data is not None:
        return "--data"
    return f"${DATA_ENV}" if os.environ.get(DATA_ENV) else "the cache"


def fetch_command(paths: Iterable[str]) -> str:
    """The ``gridmarket data fetch`` command that gets ``paths`` (with ``--from`` when one is only on mirrors)."""
    paths = list(paths)
    mirror_only = any(p in registry() and not registry()[p].fetchable for p in paths)
    return f"gridmarket data fetch {' '.join(paths)}" + (" --from MIRROR" if mirror_only else "")


def locate(path: str, data: str | os.PathLike | None = None, *, needed_by: str | None = None) -> Path:
    """The file ``path`` under :func:`data_root` (``data``, else ``$GRIDMARKET_DATA``, else the cache).

    Raises
    ------
    InvalidInput
        One line naming the file, the folder looked in and the ``gridmarket data fetch`` command that gets
        it, when it is not there.
    """
    root = data_root(data)
    found = root / path
    if found.is_file():
        return found
    who = f"{needed_by} needs" if needed_by else "missing data file:"
    label = _root_label(data)
    where = "the cache " + str(root) if label == "the cache" else f"{root} ({label})"
    then = "" if label == "the cache" else f" (it fills the cache, read when {'--data is not given' if data is not None else f'${DATA_ENV} is unset'})"
    raise InvalidInput(f"{who} {path}, which is not in {where}; get it with `{fetch_command([path])}`{then}")


def sample(path: str) -> Path:
    """The shipped sample ``path`` (``samples/Montage_25.xml``) as a file on disk.

    >>> sample("samples/Montage_25.xml").stat().st_size
    23087
    """
    if path not in samples():
        get(path)  # the closest-name error
        raise InvalidInput(f"{path!r} is a registered data file, not a shipped sample; `gridmarket data path {path}`")
    return Path(str(resources.files("gridmarket.data").joinpath(path)))


def sha256(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_cached(path: str) -> bool:
    """Whether the cache holds ``path`` with its registered size (a cheap check; :func:`fetch` checks sha256)."""
    found = cache_dir() / path
    return found.is_file() and found.stat().st_size == get(path).size


# ----------------------------------------------------------------------------- derived price files
_DERIVE_KEYS = {"from", "sha256", "size", "format", "zone", "currency", "decimals", "zone_from"}
_TIME_FORMATS = {"epftoolbox": "%Y-%m-%d %H:%M:%S", "deepforkit": "%m/%d/%Y %H:%M"}


def _check_derive(path: str, spec: Mapping) -> None:
    unknown = sorted(set(spec) - _DERIVE_KEYS)
    missing = sorted({"from", "sha256", "size", "format", "zone", "currency"} - set(spec))
    if unknown or missing or spec.get("format") not in _TIME_FORMATS:
        raise InvalidInput(f"{_REGISTRY}: {path}: derive needs from, sha256, size, format "
                           f"({' or '.join(_TIME_FORMATS)}), zone, currency"
                           + (f"; unknown {', '.join(unknown)}" if unknown else "")
                           + (f"; missing {', '.join(missing)}" if missing else ""))


def derive_prices(origin: str | os.PathLike, out: str | os.PathLike, spec: Mapping) -> None:
    """Rewrite an origin price CSV as gridmarket's ``timestamp,price,zone,currency`` file (prices per MWh).

    The origin's first column is the local start of the delivery hour and its second the day-ahead price
    (currency per MWh); the other columns (load, wind and solar forecasts) are left out. Each row becomes
    ``YYYY-MM-DDTHH:MM:SS,price,zone,currency``. The price keeps the origin's digits (``epftoolbox``) or is
    printed as Python prints the float (``deepforkit``, whose integers lack the ``.0``); with ``decimals``
    it is rounded half to even on the decimal digits first (the PJM copy prints ``28.440990000000003``).
    The zone is ``zone``, or ``zone_from[1]`` from the local hour ``zone_from[0]`` on (Germany's bidding
    zone split of 2018-10-01). Lines end in ``\\n``. This is how the registered ``prices/`` files were
    made from their origins, byte for byte (their sha256 is checked after it).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "PJM.csv").write_text(", Zonal COMED price, load\\n2013-11-03 01:00:00,22.7684975,66142.0\\n")
    >>> derive_prices(folder / "PJM.csv", folder / "out.csv", {"format": "epftoolbox", "zone": "PJM_COMED",
    ...                                                        "currency": "USD", "decimals": 6})
    >>> print((folder / "out.csv").read_text(), end="")
    timestamp,price,zone,currency
    2013-11-03T01:00:00,22.768498,PJM_COMED,USD
    """
    import datetime as dt
    from decimal import ROUND_HALF_EVEN, Decimal

    fmt = _TIME_FORMATS[spec["format"]]
    decimals = spec.get("decimals")
    switch_at, switch_zone = spec.get("zone_from") or (None, None)
    switch_at = dt.datetime.fromisoformat(switch_at) if switch_at else None
    rows = ["timestamp,price,zone,currency"]
    with io.StringIO(read_text(origin, "price origin"), newline=None) as fh:  # lines as a text file gives them
        next(fh, None)  # the header
        for n, line in enumerate(fh, start=2):
            if not line.strip():
                continue
            if "," not in line:
                raise InvalidInput(f"{origin}: line {n}: expected 'timestamp,price,...', got {line.strip()[:40]!r}")
            stamp, price = line.rstrip("\n").split(",")[:2]
            try:
                hour = dt.datetime.strptime(stamp, fmt)
                if decimals is not None:
                    price = repr(float(Decimal(price).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)))
                elif spec["format"] == "deepforkit":
                    price = repr(float(price))
            except ValueError as err:
                raise InvalidInput(f"{origin}: line {n}: {err}") from None
            zone = switch_zone if switch_at is not None and hour >= switch_at else spec["zone"]
            rows.append(f"{hour:%Y-%m-%dT%H:%M:%S},{price},{zone},{spec['currency']}")
    write_atomic(out, "\n".join(rows) + "\n")  # a full disk names the file (a plain write's error does not)


# ----------------------------------------------------------------------------- fetching
def _mirror_location(mirror: str, path: str) -> str:
    """Where a mirror keeps ``path``: a local file path for a folder or ``file://`` URL, else a URL."""
    scheme = urlparse(mirror).scheme
    if scheme == "file":
        mirror = url2pathname(urlparse(mirror).path)
    elif scheme and len(scheme) > 1:  # a one-letter scheme is a Windows drive
        return mirror.rstrip("/") + "/" + quote(path)
    folder = Path(mirror).expanduser()
    if not folder.is_dir():
        raise InvalidInput(f"--from {mirror}: no such folder (a mirror is a folder laid out like the data root, or a URL)")
    return str(folder / path)


def _download(location: str, out: Path, *, progress: bool) -> None:
    """Copy a local file (a path or ``file://`` URL) or download a URL (pooch's downloaders: http, https, ftp,
    sftp, doi) to ``out``."""
    if location.startswith("file://"):
        location = url2pathname(urlparse(location).path)
    if "://" not in location:
        shutil.copyfile(location, out)
        return
    import pooch

    downloader = pooch.downloaders.choose_downloader(location, progressbar=progress)
    downloader(location, str(out), None)


def fetch(paths: Iterable[str], *, mirror: str | None = None, progress: bool = False) -> list[Path]:
    """Put registered files into the cache (:func:`cache_dir`), each checked against its sha256.

    Parameters
    ----------
    paths : iterable of str
        Registered paths (:func:`registry`).
    mirror : str, optional
        A folder laid out like the data root, or its URL (``file://``, ``https://``, ...): ``mirror/path`` is
        read instead of the registered URLs (or origins). The only way to get a generated file (no ``urls``, no
        ``derive``).
    progress : bool
        Show pooch's download bar.

    Returns
    -------
    list of Path
        The cached files, in the order given. A file already cached with the right sha256 is not fetched again.

    Raises
    ------
    InvalidInput
        An unknown path; a generated file without a mirror; a file (or a derived file's origin) whose sha256
        differs from the registry's (one line naming it and both hashes; nothing is cached); every source
        unreachable (one line naming the URLs tried and ``--from``).
    """
    wanted = [get(p) for p in paths]
    for ds in wanted:
        if ds.path in samples():
            raise InvalidInput(f"{ds.path} ships with gridmarket (`gridmarket data path {ds.path}`); nothing to fetch")
        if mirror is None and not ds.fetchable:
            raise InvalidInput(f"{ds.path} was made from {', '.join(ds.origin)} and no public URL serves its exact "
                               f"bytes; fetch it from a mirror: `gridmarket data fetch {ds.path} --from DIR_OR_URL`")
    cache = cache_dir()
    done = []
    for ds in wanted:
        dest = cache / ds.path
        if dest.is_file() and dest.stat().st_size == ds.size and sha256(dest) == ds.sha256:
            done.append(dest)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(f".{dest.name}.{os.getpid()}.part")  # same folder: the final rename is atomic
        derive = ds.derive if mirror is None and not ds.urls else None  # remade from its public origin
        if mirror is not None:
            locations = [_mirror_location(mirror, ds.path)]
        else:
            locations = [derive["from"]] if derive else list(ds.urls)
        fetched = part.with_name(part.name + ".origin") if derive else part
        failures = []
        try:
            for location in locations:
                try:
                    _download(location, fetched, progress=progress)
                except (OSError, ValueError) as err:  # requests' errors are OSErrors; pooch: ValueError for a scheme it lacks
                    if isinstance(err, OSError) and err.errno in _FULL:  # the cache's disk, not the source, failed
                        raise OSError(err.errno, err.strerror, str(dest)) from None
                    failures.append(f"{location} ({_reason(err)})")
                    continue
                source = location
                if derive:
                    got = sha256(fetched)
                    if got != derive["sha256"]:
                        raise InvalidInput(f"{ds.path}: sha256 of its origin {location} is {got}, the registry's is "
                                           f"{derive['sha256']}; refused, nothing cached")
                    derive_prices(fetched, part, derive)
                    source = f"{location} rewritten"
                got = sha256(part)
                if got != ds.sha256:
                    raise InvalidInput(f"{ds.path}: sha256 of {source} is {got}, the registry's is {ds.sha256}; "
                                       "refused, nothing cached")
                os.replace(part, dest)
                done.append(dest)
                break
            else:
                raise InvalidInput(f"could not get {ds.path} from {'; '.join(failures)}; fill the cache from a "
                                   f"mirror instead: `gridmarket data fetch {ds.path} --from DIR_OR_URL`")
        finally:
            part.unlink(missing_ok=True)
            fetched.unlink(missing_ok=True)
    return done


# errors of the writing side: no other source would fare better, and the message must name the cache file
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _reason(err: OSError | ValueError) -> str:
    """A short reason for a failed download: the errno text, or the cause requests wraps (after its ``): ``)."""
    if isinstance(err, FileNotFoundError):
        return "no such file"
    cause = getattr(err.args[0], "reason", None) if err.args else None  # urllib3's MaxRetryError inside requests'
    text = str(cause or getattr(err, "strerror", None) or err or type(err).__name__).splitlines()[0]
    return text.rsplit("): ", 1)[-1][:120]
