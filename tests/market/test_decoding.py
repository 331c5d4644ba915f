"""gridmarket.decoding: bytes to text to JSON/TOML, one set of rules for every reader."""

import codecs
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.decoding import MAX_DEPTH, decode_text, parse_json, parse_toml, read_json, read_toml
from gridmarket.errors import InvalidInput


def test_a_utf8_byte_order_mark_is_dropped_so_the_document_reads(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(codecs.BOM_UTF8 + b'{"a": 1}')
    assert read_json(path) == {"a": 1}
    toml = tmp_path / "s.toml"
    toml.write_bytes(codecs.BOM_UTF8 + b"name = 'x'\n")
    assert read_toml(toml) == {"name": "x"}


@pytest.mark.parametrize("encoding, name", [("utf-16", "UTF-16"), ("utf-32", "UTF-32")])
def test_utf16_and_utf32_are_named_not_misparsed(tmp_path, encoding, name):
    path = tmp_path / "s.toml"
    path.write_bytes("name = 'x'\n".encode(encoding))
    with pytest.raises(InvalidInput, match=rf"s\.toml: scenario is {name} text .* save it as UTF-8"):
        read_toml(path, "scenario")


def test_a_byte_that_is_not_utf8_is_named_by_line_and_offset(tmp_path):
    path = tmp_path / "s.toml"
    path.write_bytes(b'name = "x"\nseed = "\xff"\n')
    with pytest.raises(InvalidInput, match=r"s\.toml:2: scenario is not UTF-8 text \(invalid start byte 0xff at "
                                           r"byte offset 19\)"):
        read_toml(path, "scenario")


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 100_000])
def test_json_nested_too_deep_is_refused_before_the_parser_recurses(levels):
    with pytest.raises(InvalidInput, match=f"d.json: state is nested more than {MAX_DEPTH} levels deep"):
        parse_json("[" * levels + "]" * levels, "d.json", "state")
    with pytest.raises(InvalidInput, match="nested more than"):
        parse_json('{"a": ' * levels + "1" + "}" * levels, "d.json", "state")


def test_json_at_the_depth_limit_reads_and_brackets_in_strings_do_not_count():
    assert parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, "d.json") == eval("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    text = json.dumps({"note": "[" * 1000, "x": [1]})
    assert parse_json(text, "d.json")["x"] == [1]


@pytest.mark.parametrize("text", [
    "seed = " + "[" * 100_000 + "]" * 100_000,
    "seed = " + "{a = " * 100_000 + "1" + "}" * 100_000,
    "a" + ".a" * 200 + " = 1",  # dotted keys nest without brackets
])
def test_toml_nested_too_deep_is_refused(text):
    with pytest.raises(InvalidInput, match=f"s.toml: scenario is nested more than {MAX_DEPTH} levels deep"):
        parse_toml(text, "s.toml", "scenario")


def test_toml_brackets_in_strings_and_comments_do_not_count():
    text = 'name = "' + "[" * 100 + '"  # ' + "{" * 100 + "\nnote = '''\n" + "[" * 100 + "\n'''\n"
    assert parse_toml(text, "s.toml")["name"] == "[" * 100


def test_a_json_key_given_twice_is_refused_naming_key_and_line():
    with pytest.raises(InvalidInput, match=r"s\.json:3: key 'procs' appears twice in one object"):
        parse_json('{"procs": 4,\n "now": 0,\n "procs": 8}', "s.json")
    # the same key in two objects is fine
    assert parse_json('[{"procs": 4}, {"procs": 8}]', "s.json") == [{"procs": 4}, {"procs": 8}]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant):
    with pytest.raises(InvalidInput, match=f"not JSON: {constant} is not a JSON number"):
        parse_json(f'{{"cost": {constant}}}', "c.json")
    assert parse_json(f'{{"cost": {constant}}}', "c.json", allow_nan=True)["cost"] != 0


def test_a_number_too_large_for_a_float_is_not_read_as_infinity():
    with pytest.raises(InvalidInput, match="c.json: not JSON: the number -1e400 is too large for a float"):
        parse_json('{"cost": [1.5, -1e400]}', "c.json")
    assert parse_json('{"cost": [1.5, 1e300]}', "c.json") == {"cost": [1.5, 1e300]}


def test_numbers_too_long_to_convert_are_one_line_errors():
    with pytest.raises(InvalidInput, match="c.json: not JSON: Exceeds the limit"):
        parse_json('{"now": 1' + "0" * 5000 + "}", "c.json")
    with pytest.raises(InvalidInput, match="s.toml: not TOML: Exceeds the limit"):
        parse_toml("seed = 1" + "0" * 5000, "s.toml")


def test_unreadable_files_name_the_file(tmp_path):
    with pytest.raises(InvalidInput, match="cannot read costs: Is a directory"):
        read_json(tmp_path, "costs")


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=200) | st.text(alphabet="[]{}\"'#=,:.\\ \nab1\ufeff", max_size=200).map(str.encode))
def test_any_bytes_decode_and_parse_or_give_one_line_invalid_input(raw):
    for parse in (parse_json, parse_toml):
        try:
            parse(decode_text(raw, "f", "doc"), "f", "doc")
        except InvalidInput as err:
            assert str(err).startswith("f") and "\n" not in str(err)
