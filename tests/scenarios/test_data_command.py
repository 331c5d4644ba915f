"""``gridmarket data list|fetch|path``: the registry on the command line, one-line errors, no heavy imports."""

import os
import subprocess
import sys

from gridmarket import datasets
from gridmarket.scenarios.commands.cli import main

MONTAGE = "workflows/pegasus-dax/Montage_25.xml"


def _row(out: str, path: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(path + " "))


def test_list_names_every_file_its_size_sha256_users_and_whether_it_is_cached(cache, mirror, capsys):
    assert main(["data", "fetch", "--from", str(mirror), MONTAGE]) == 0
    assert capsys.readouterr().out.strip() == str(cache / MONTAGE)
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for path, ds in datasets.registry().items():
        assert ds.sha256[:12] in _row(out, path), path
    assert _row(out, MONTAGE).split()[4] == "yes"  # path, size, unit, sha256, cached
    sdsc = _row(out, "traces/SDSC-SP2-1998-4.2-cln.swf.gz")
    assert "1.2 MB" in sdsc and " no " in sdsc and "singh-var" in sdsc
    assert "remade from https://raw.githubusercontent.com/clara-catalina/epftoolbox" in out
    assert "generated (https://pypi.org/project/wfcommons/1.6/); only a mirror serves it (--from)" in out
    assert f"cache: {cache}" in out


def test_list_json_carries_full_hashes_urls_licence_and_citation(cache, capsys):
    import json

    assert main(["data", "list", "--kind", "traces", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc) == 11 and all(e["path"].startswith("traces/") for e in doc)
    ctc = doc[0]
    assert ctc["sha256"] == datasets.registry()[ctc["path"]].sha256 and ctc["cached"] is False
    assert ctc["urls"][-1].startswith("https://www.cs.huji.ac.il/labs/parallel/workload/l_ctc_sp2/")
    assert "Feitelson" in ctc["cite"] and ctc["acknowledge"].startswith("Dan Dwyer")


def test_fetch_for_a_reproduction_names_the_file_its_mirror_lacks(cache, tmp_path, capsys):
    folder = tmp_path / "m"
    (folder / "prices").mkdir(parents=True)
    assert main(["data", "fetch", "--for", "murali-nordugrid", "--from", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not get prices/nordpool_system_2013-2018_epftoolbox.csv" in err
    assert "(no such file)" in err


def test_path_prints_where_a_file_is_read_from_or_how_to_get_it(cache, mirror, capsys):
    assert main(["data", "path", MONTAGE]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"`gridmarket data fetch {MONTAGE}`" in err
    main(["data", "fetch", "--from", mirror.as_uri(), MONTAGE])
    capsys.readouterr()
    assert main(["data", "path", MONTAGE]) == 0
    assert capsys.readouterr().out.strip() == str(cache / MONTAGE)
    assert main(["data", "path", "--data", str(mirror), MONTAGE]) == 0
    assert capsys.readouterr().out.strip() == str(mirror / MONTAGE)
    assert main(["data", "path", "samples/Montage_25.xml"]) == 0
    assert capsys.readouterr().out.strip() == str(datasets.sample("samples/Montage_25.xml"))


def test_an_unknown_path_or_reproduction_is_one_line_with_the_closest_name(cache, capsys):
    assert main(["data", "path", "traces/KTH.swf.gz"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'traces/KTH-SP2-1996-2.1-cln.swf.gz'" in err
    assert main(["data", "path", "workflows/CyberShake"]) == 2
    assert "did you mean one of workflows/pegasus-dax/CyberShake_100.xml, " in capsys.readouterr().err
    assert main(["data", "fetch", "--for", "singh-vr"]) == 2
    assert "unknown reproduction 'singh-vr' (did you mean 'singh-var'?)" in capsys.readouterr().err
    assert main(["data", "fetch"]) == 2
    assert "name the files to fetch" in capsys.readouterr().err


def test_a_corrupted_mirror_file_is_refused_on_the_command_line(cache, mirror, capsys):
    data = bytearray((mirror / MONTAGE).read_bytes())
    data[-2] ^= 1
    (mirror / MONTAGE).write_bytes(bytes(data))
    assert main(["data", "fetch", "--from", str(mirror), MONTAGE]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refused, nothing cached" in err and not (cache / MONTAGE).exists()


def test_data_list_imports_neither_mesa_nor_pandas(tmp_path):
    code = ("import sys; from gridmarket.scenarios.commands.cli import main; main(['data', 'list']); "
            "print(sorted(m for m in ('mesa', 'pandas', 'requests') if m in sys.modules), file=sys.stderr)")
    # the caller's environment (an interpreter may need its library path), without a data folder
    env = {k: v for k, v in os.environ.items() if k != datasets.DATA_ENV} | {datasets.CACHE_ENV: str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_run_list_names_each_reproductions_data_and_whether_it_is_found(cache, mirror, capsys):
    from gridmarket.scenarios.commands.run import format_list

    text = format_list()
    assert "data: traces/SDSC-SP2-1998-4.2-cln.swf.gz (missing; `gridmarket data fetch " \
           "traces/SDSC-SP2-1998-4.2-cln.swf.gz`)" in text
    assert "data: prices/pjm_comed_2013-2018_epftoolbox.csv (missing; `gridmarket data fetch " \
           "prices/pjm_comed_2013-2018_epftoolbox.csv`)" in text
    (mirror / "traces").mkdir()
    (mirror / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz").write_bytes(b"")
    assert "data: traces/SDSC-SP2-1998-4.2-cln.swf.gz (found)" in format_list(mirror)
