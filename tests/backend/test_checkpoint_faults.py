"""Checkpoint faults: damaged files, lying headers, failed and killed saves, permissions, bad targets."""

import io
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.backend.checkpoint as ckpt

WANT = {"w": ((3, 4), np.dtype(np.float32)), "b": ((4,), np.dtype(np.float32))}


def _arrays():
    return {"w": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.ones(4, np.float32)}


def _npy(header: dict, data: bytes) -> bytes:
    """A .npy member with the given header (as numpy writes it) and raw data bytes."""
    f = io.BytesIO()
    np.lib.format.write_array_header_1_0(f, header)
    return f.getvalue() + data


def _zip(path, members: dict[str, bytes]) -> str:
    with zipfile.ZipFile(path, "w") as z:
        for name, raw in members.items():
            z.writestr(name, raw)
    return str(path)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _model():
    g = sg.Graph()
    with g:
        w = sg.Variable(np.arange(12, dtype=np.float32).reshape(3, 4), name="w")
        b = sg.Variable(np.ones(4, np.float32), name="b")
    return g, w, b


@pytest.mark.parametrize("keep", [0.5, 0.9, 40 / 1000])
def test_a_truncated_file_is_an_error_naming_it(tmp_path, keep):
    path = ckpt.save(str(tmp_path / "m"), _arrays())
    raw = open(path, "rb").read()
    open(path, "wb").write(raw[: int(len(raw) * keep)])
    with pytest.raises(sg.CheckpointError) as e:
        ckpt.load(path, WANT)
    assert path in str(e.value)


def test_corrupted_bytes_are_an_error_naming_the_file(tmp_path):
    path = ckpt.save(str(tmp_path / "m"), _arrays())
    raw = bytearray(open(path, "rb").read())
    data = _npy({"descr": "<f4", "fortran_order": False, "shape": (3, 4)}, b"")
    at = raw.find(data) + len(data) + 8  # inside w's data: the zip's CRC no longer matches
    raw[at : at + 4] = b"\xff\xff\xff\xff"
    open(path, "wb").write(raw)
    with pytest.raises(sg.CheckpointError, match="cannot read") as e:
        ckpt.load(path, WANT)
    assert path in str(e.value)
    raw = bytearray(open(path, "rb").read())
    at = raw.find(b"'descr'")
    raw[at : at + 7] = b"'desc!'"  # a broken header
    open(path, "wb").write(raw)
    with pytest.raises(sg.CheckpointError) as e:
        ckpt.load(path, WANT)
    assert path in str(e.value) and "w" in str(e.value)


def test_files_that_are_not_npz_are_errors_naming_them(tmp_path):
    text = tmp_path / "text.npz"
    text.write_text("hello, not a zip")
    npy = tmp_path / "plain.npz"
    with open(npy, "wb") as f:
        np.save(f, np.ones(3))
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, w=np.array([{"a": 1}], dtype=object), b=np.ones(4, np.float32))
    for path in (text, npy, pickled):
        with pytest.raises(sg.CheckpointError) as e:
            ckpt.load(str(path), WANT)
        assert str(path) in str(e.value)
    with pytest.raises(sg.CheckpointError, match="pickle"):
        ckpt.load(str(pickled), {"w": ((1,), np.dtype(object))})


def test_a_header_claiming_a_terabyte_is_an_error_not_a_memory_error(tmp_path):
    huge = (2**38, 1)  # 2**38 float32 values: 1 TiB
    w = _npy({"descr": "<f4", "fortran_order": False, "shape": huge}, b"\0" * 48)
    b = _npy({"descr": "<f4", "fortran_order": False, "shape": (4,)}, b"\0" * 16)
    path = _zip(tmp_path / "lie.npz", {"w.npy": w, "b.npy": b})
    with pytest.raises(sg.CheckpointError, match=r"w: the checkpoint has shape \(274877906944, 1\)") as e:
        ckpt.load(path, WANT)  # told by the header, never allocated
    assert path in str(e.value)
    with pytest.raises(sg.CheckpointError, match="48 bytes") as e:
        ckpt.load(path, {"w": (huge, np.dtype(np.float32))})  # the shape the graph wants, yet a short member
    assert path in str(e.value) and "corrupt" in str(e.value)


def test_headers_are_checked_before_any_array_is_read(tmp_path):
    b = np.ones(4096, np.float32)  # larger than what zipfile reads ahead for a header
    path = ckpt.save(str(tmp_path / "m"), {"w": np.zeros((3, 5), np.float32), "b": b})
    raw = bytearray(open(path, "rb").read())
    data = _npy({"descr": "<f4", "fortran_order": False, "shape": (4096,)}, b"")
    at = raw.find(data) + len(data) + 8000
    raw[at : at + 4] = b"\x12\x34\x56\x78"  # b's data no longer matches its CRC: reading it would fail
    open(path, "wb").write(raw)
    want = {**WANT, "b": ((4096,), np.dtype(np.float32))}
    with pytest.raises(sg.CheckpointError, match=r"w: the checkpoint has shape \(3, 5\) float32"):
        ckpt.load(path, want)
    with pytest.raises(sg.CheckpointError, match="CRC"):  # once the headers match, the data is read
        ckpt.load(path, {"b": want["b"]})


def test_a_failed_save_leaves_no_temporary_file_and_names_the_target(tmp_path, monkeypatch):
    prefix = str(tmp_path / "m")
    ckpt.save(prefix, _arrays())

    def broken_savez(file, **arrays):
        file.write(b"PK\x03\x04 half a zip file")
        raise OSError("disk full")

    monkeypatch.setattr(ckpt.np, "savez", broken_savez)
    with pytest.raises(sg.CheckpointError, match="disk full") as e:
        ckpt.save(prefix, _arrays(), step=3)
    assert f"{prefix}-3.npz" in str(e.value)

    def interrupted_savez(file, **arrays):
        file.write(b"PK\x03\x04")
        raise KeyboardInterrupt

    monkeypatch.setattr(ckpt.np, "savez", interrupted_savez)
    with pytest.raises(KeyboardInterrupt):
        ckpt.save(prefix, _arrays())
    assert os.listdir(tmp_path) == ["m.npz"]


def test_orphans_of_a_killed_save_are_removed_by_the_next_save(tmp_path):
    dead, alive = _dead_pid(), os.getppid()
    orphans = [f".m.tmp-{dead}-k1ll3d", f".m.tmp-{dead}-ab_c9"]
    kept = [f".m.tmp-{alive}-wr1t1ng", f".other.tmp-{dead}-n0tm1ne", f".m-best.tmp-{dead}-n0tm1ne"]
    for name in orphans + kept:
        (tmp_path / name).write_bytes(b"PK half")
    ckpt.save(str(tmp_path / "m"), _arrays(), step=2)
    assert sorted(os.listdir(tmp_path)) == sorted(kept + ["m-2.npz"])


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o007])
def test_file_permissions_follow_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        path = ckpt.save(str(tmp_path / "m"), _arrays())
    finally:
        os.umask(old)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask


def test_an_unwritable_target_is_an_error_naming_it(tmp_path):
    (tmp_path / "afile").write_text("x")
    prefix = str(tmp_path / "afile" / "m")  # a folder that cannot be made
    with pytest.raises(sg.CheckpointError) as e:
        ckpt.save(prefix, _arrays())
    assert f"{prefix}.npz" in str(e.value)
    (tmp_path / "d.npz").mkdir()  # the target is a folder
    with pytest.raises(sg.CheckpointError) as e:
        ckpt.save(str(tmp_path / "d"), _arrays())
    assert str(tmp_path / "d.npz") in str(e.value)
    assert sorted(os.listdir(tmp_path)) == ["afile", "d.npz"] and not os.listdir(tmp_path / "d.npz")


def test_a_negative_step_is_an_error_and_writes_nothing(tmp_path):
    g, w, _ = _model()
    with sg.Session(g) as sess:
        with pytest.raises(sg.CheckpointError, match="step"):
            sess.save(str(tmp_path / "m"), step=-1)
        with pytest.raises(sg.CheckpointError, match="keep"):
            sess.save(str(tmp_path / "m"), step=1, keep=-2)
        assert os.listdir(tmp_path) == []
        sess.save(str(tmp_path / "m"), step=0)
        sess.set(w, np.zeros((3, 4)))
        sess.restore(str(tmp_path / "m"))
        np.testing.assert_array_equal(sess.get(w), np.arange(12).reshape(3, 4))


def test_a_damaged_checkpoint_restores_nothing(tmp_path):
    g, w, b = _model()
    with sg.Session(g) as sess:
        path = sess.save(str(tmp_path / "m"))
        raw = open(path, "rb").read()
        open(path, "wb").write(raw[: len(raw) // 2])
        sess.set(b, np.full(4, 7.0))
        with pytest.raises(sg.CheckpointError) as e:
            sess.restore(str(tmp_path / "m"))
        assert path in str(e.value)
        np.testing.assert_array_equal(sess.get(b), np.full(4, 7.0))


def test_every_dtype_round_trips_including_ml_dtypes_and_odd_layouts(tmp_path):
    """.npy stores bfloat16 and float8 as raw |V2 / |V1 bytes: a graph's dtype reads them back."""
    arrays = {
        "bf16": np.arange(3).astype(sg.bfloat16.np),
        "f8": np.arange(4).astype(sg.float8_e4m3fn.np),
        "empty": np.zeros((0, 3), np.float32),
        "scalar": np.array(3.5),
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "pred": np.array([True, False]),
        "c64": np.array([1 + 2j], np.complex64),
    }
    path = ckpt.save(str(tmp_path / "m"), arrays)
    _, got = ckpt.load(path, {k: (a.shape, a.dtype) for k, a in arrays.items()})
    for k, a in arrays.items():
        assert got[k].dtype == a.dtype and got[k].shape == a.shape and got[k].flags.writeable, k
        np.testing.assert_array_equal(got[k].astype(np.complex128), a.astype(np.complex128))
    with pytest.raises(sg.CheckpointError, match=r"bf16: the checkpoint has shape \(3,\) \|V2"):
        ckpt.load(path, {"bf16": ((3,), np.dtype(np.float32))})  # raw bytes fit only a dtype of that kind
