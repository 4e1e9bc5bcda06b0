"""ember.safetensors against the `safetensors` package (its torch API): both directions, byte-identical
output, memory-mapped loading, metadata, refusals, and crafted bad headers."""
import io
import json
import struct

import pytest
import safetensors
import safetensors.torch as st
import torch

import ember
from ember import safetensors as es
from conftest import assert_same, to_torch
from test_serialization import DTYPES, ember_storage, torch_tensor, to_ember


def tensors(lib_torch=True):
    t = {str(dt).replace("torch.", ""): torch_tensor(dt, shape=(2, 3), seed=i) for i, dt in enumerate(DTYPES)}
    t.update(scalar=torch.tensor(2.5), empty=torch.zeros(0, 4, dtype=torch.int32), long_name_ü=torch.ones(5))
    return t if lib_torch else {k: to_ember(v) for k, v in t.items()}


def bits(t):
    return t.reshape(-1).view(torch.uint8)


def check_same(got_ember, ref_torch):
    assert sorted(got_ember) == sorted(ref_torch)
    for k, v in ref_torch.items():
        assert_same(got_ember[k], v)


def test_bytes_identical_to_the_package():
    meta = {"note": 'quote " and \\ and \n \t \x01'}  # one key: the package orders several at random
    assert es.save(tensors(False), metadata=meta) == st.save(tensors(), metadata=meta)
    assert es.save({}) == st.save({})
    meta = {f"k{i}": str(i) for i in range(5)}
    with_meta = es.save({"x": ember.ones(2)}, metadata=meta)
    n = struct.unpack("<Q", with_meta[:8])[0]
    assert json.loads(with_meta[8:8 + n])["__metadata__"] == meta


def test_both_directions_bytes_and_files(tmp_path):
    check_same(es.load(st.save(tensors())), tensors())
    got = st.load(es.save(tensors(False)))
    for k, v in tensors().items():
        assert got[k].dtype == v.dtype and got[k].shape == v.shape and torch.equal(bits(got[k]), bits(v))
    st.save_file(tensors(), tmp_path / "t.safetensors", metadata={"a": "b"})
    check_same(es.load_file(tmp_path / "t.safetensors"), tensors())
    es.save_file(tensors(False), str(tmp_path / "e.safetensors"), metadata={"a": "b"})
    got = st.load_file(tmp_path / "e.safetensors")
    assert all(torch.equal(bits(got[k]), bits(v)) for k, v in tensors().items())
    with st.safe_open(tmp_path / "e.safetensors", "pt") as f:
        assert f.metadata() == {"a": "b"}


def test_safe_open(tmp_path):
    path = tmp_path / "m.safetensors"
    st.save_file({"w": torch.arange(12.0).reshape(3, 4), "b": torch.ones(2, dtype=torch.int64)}, path, metadata={"k": "v"})
    with es.safe_open(path, framework="pt", device="cpu") as f, st.safe_open(path, framework="pt") as g:
        assert f.keys() == g.keys()
        assert f.metadata() == g.metadata() == {"k": "v"}
        assert_same(f.get_tensor("w"), g.get_tensor("w"))
        s, r = f.get_slice("w"), g.get_slice("w")
        assert list(s.get_shape()) == list(r.get_shape()) and s.get_dtype() == r.get_dtype()
        assert_same(s[1:, 2], r[1:, 2].contiguous(), check_strides=False)
        with pytest.raises(RuntimeError):
            f.get_tensor("missing")
        w = f.get_tensor("w")
    before = path.read_bytes()
    w.add_(1)  # mapped copy on write: the file is unchanged
    assert path.read_bytes() == before
    st.save_file({"x": torch.ones(1)}, tmp_path / "none.safetensors")
    with es.safe_open(tmp_path / "none.safetensors", "pt") as f, st.safe_open(tmp_path / "none.safetensors", "pt") as g:
        assert f.metadata() == g.metadata()


def test_refusals_like_the_package():
    x = ember.arange(8.0)
    with pytest.raises(ValueError, match="non contiguous"):
        es.save({"a": x[::2]})
    with pytest.raises(RuntimeError, match="share memory"):
        es.save({"a": x, "b": x[:4]})
    with pytest.raises(ValueError):
        es.save({"a": 1})
    with pytest.raises(ValueError):
        es.save([x])
    with pytest.raises(ValueError):
        es.save({"a": x}, metadata={"k": 1})


def header(d, pad=True):
    h = json.dumps(d, separators=(",", ":")).encode()
    return h + b" " * ((8 - len(h) % 8) % 8 if pad else 0)


def craft(d, data):
    h = header(d)
    return struct.pack("<Q", len(h)) + h + data


OK = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
BAD = {
    "too small": b"\x01\x00",
    "huge header length": struct.pack("<Q", 2**62) + b"{}",
    "header past end": struct.pack("<Q", 64) + b"{}",
    "not json": struct.pack("<Q", 8) + b"garbage!",
    "truncated json": struct.pack("<Q", 8) + b'{"a":{"d',
    "data too short": craft(OK, b"\x00" * 7),
    "data too long": craft(OK, b"\x00" * 9),
    "shape lies": craft({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\x00" * 8),
    "huge shape": craft({"a": {"dtype": "F32", "shape": [2**40, 2**40], "data_offsets": [0, 8]}}, b"\x00" * 8),
    "huge empty shape": craft({"a": {"dtype": "F32", "shape": [0, 2**62, 2**62], "data_offsets": [0, 0]}}, b""),
    "offsets reversed": craft({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}}, b"\x00" * 8),
    "overlap": craft({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                      "b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\x00" * 8),
    "gap": craft({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\x00" * 8),
    "unknown dtype": craft({"a": {"dtype": "Q7", "shape": [2], "data_offsets": [0, 8]}}, b"\x00" * 8),
    "missing offsets": craft({"a": {"dtype": "F32", "shape": [2]}}, b"\x00" * 8),
    "negative dim": craft({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\x00" * 8),
    "deep json": craft({"a": OK["a"], "__metadata__": {}}, b"")[:8] + b"[" * 5000,
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_headers_give_clear_errors(name, tmp_path):
    data = BAD[name]
    with pytest.raises(RuntimeError, match="deserializing header"):
        es.load(data)
    with pytest.raises(Exception):
        st.load(data)
    (tmp_path / "bad.safetensors").write_bytes(data)
    with pytest.raises(RuntimeError, match="deserializing header"):
        es.load_file(tmp_path / "bad.safetensors")
