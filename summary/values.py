"""Summary values TensorBoard's plugins read: scalars, histograms, images, text (summary layer).

Each function turns a value the user fetched into one ``Summary.Value``: a
tensor plus the metadata naming the plugin that shows it (the layout
TensorBoard's own summary writers use: a float32 scalar; a ``[k, 3]`` float64
table of bucket (left edge, right edge, count); ``[width, height, png...]``
strings; a string). Bad values are errors naming the tag, never a record
TensorBoard would drop or misdraw.
"""

from __future__ import annotations

import numbers
import struct
import zlib

import numpy as np

from ..graph.dtypes import dtype as graph_dtype
from ..graph.errors import GraphError, located
from ..graph.location import user_location
from ..graph.tensor import Tensor
from .events import protos


def bad(kind: type[Exception], message: str) -> Exception:
    """A ``kind`` error whose message starts with the user's file:line (the call that passed the value)."""
    return kind(located(message, user_location()))


def _kind(dtype: np.dtype) -> str | None:
    """ "b", "i", "u" or "f" for a real number type (ml_dtypes' bfloat16 and float8 too, which
    numpy files under kind "V"), None for any other (complex, strings, objects)."""
    if dtype.kind in "biuf":
        return dtype.kind
    try:
        kind = graph_dtype(dtype).kind
    except (GraphError, TypeError):
        return None
    return kind if kind in "biuf" else None


def _array(tag: str, value, what: str) -> np.ndarray:
    """``value`` as a numpy array (device arrays and numbers too), or a TypeError naming the tag."""
    if isinstance(value, Tensor):
        raise bad(
            TypeError,
            f"summary {what} {tag!r}: {value!r} is a graph tensor; summaries take values, so fetch it "
            f"first: writer.{what}({tag!r}, sess.run(tensor), step)",
        )
    try:
        return np.asarray(value)
    except Exception as e:  # an object numpy cannot read: say which summary it was for
        raise bad(
            TypeError, f"summary {what} {tag!r}: cannot read {type(value).__name__} as an array ({e})"
        ) from None


def _tensor(array: np.ndarray, dtype_enum: int):
    """A TensorProto holding ``array`` (numeric, little-endian bytes) with type ``dtype_enum``."""
    pb = protos()
    shape = pb.tensor_shape.TensorShapeProto(
        dim=[pb.tensor_shape.TensorShapeProto.Dim(size=n) for n in array.shape]
    )
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return pb.tensor.TensorProto(dtype=dtype_enum, tensor_shape=shape, tensor_content=little.tobytes())


def _strings(items, shape) -> object:
    """A string TensorProto of ``shape`` holding the byte strings ``items``."""
    pb = protos()
    dims = [pb.tensor_shape.TensorShapeProto.Dim(size=n) for n in shape]
    return pb.tensor.TensorProto(
        dtype=pb.types.DT_STRING,
        tensor_shape=pb.tensor_shape.TensorShapeProto(dim=dims),
        string_val=list(items),
    )


def _metadata(plugin: str, content: bytes = b""):
    """SummaryMetadata naming the TensorBoard plugin that shows the value."""
    summary_pb2 = protos().summary
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin, content=content)
    )


def _check_tag(tag) -> str:
    if not isinstance(tag, str) or not tag:
        raise bad(TypeError, f"a summary tag is a non-empty string, not {tag!r}")
    return tag


def scalar(tag: str, value):
    """A scalars-plugin value: ``value`` (a real number, 0-d or one-element array) as float32."""
    _check_tag(tag)
    if isinstance(value, numbers.Number) and not isinstance(value, numbers.Real):
        raise bad(TypeError, f"summary scalar {tag!r}: {value!r} is not a real number")
    array = _array(tag, value, "scalar")
    if array.size != 1:
        raise bad(
            ValueError,
            f"summary scalar {tag!r}: a scalar is one number, got an array of shape {array.shape} "
            "(reduce it first, e.g. .mean(), or write it with histogram)",
        )
    if _kind(array.dtype) is None:
        raise bad(TypeError, f"summary scalar {tag!r}: {array.dtype} is not a real number type")
    summary_pb2, types_pb2 = protos().summary, protos().types
    with np.errstate(over="ignore"):  # beyond float32's range is inf, as TensorBoard stores it
        tensor = _tensor(array.reshape(()).astype(np.float32), types_pb2.DT_FLOAT)
    return summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=_metadata("scalars"))


def _buckets(flat: np.ndarray, bins: int) -> np.ndarray:
    """The ``[bins, 3]`` table (left edge, right edge, count) of finite float64 values: equal-width
    buckets from the least value to the greatest, each holding [left, right), the last also its right
    edge. As TensorBoard's own writer lays them out, no values are ``bins`` empty buckets at 0 and
    one value repeated is ``bins`` buckets [v, v], the last holding them all. The edges are mixtures
    of the ends, so a range wider than float64's largest number still has finite edges; a range of a
    few ulps repeats edges (those buckets stay empty) rather than failing."""
    table = np.zeros((bins, 3), np.float64)
    if flat.size == 0:
        return table
    lo, hi = flat.min(), flat.max()
    if lo == hi:
        table[:, :2] = lo
        table[-1, 2] = flat.size
        return table
    t = np.linspace(0.0, 1.0, bins + 1)
    edges = np.maximum.accumulate(lo * (1.0 - t) + hi * t)  # rounding never makes an edge go back
    edges[0], edges[-1] = lo, hi
    index = np.minimum(np.searchsorted(edges, flat, side="right") - 1, bins - 1)
    table[:, 0], table[:, 1], table[:, 2] = edges[:-1], edges[1:], np.bincount(index, minlength=bins)
    return table


def histogram(tag: str, values, bins: int = 30):
    """A histograms-plugin value: ``bins`` equal-width buckets over the finite ``values`` (any shape)."""
    _check_tag(tag)
    if not isinstance(bins, numbers.Integral) or isinstance(bins, bool) or bins < 1:
        raise bad(ValueError, f"summary histogram {tag!r}: bins is a positive integer, not {bins!r}")
    array = _array(tag, values, "histogram")
    if _kind(array.dtype) is None:
        raise bad(TypeError, f"summary histogram {tag!r}: {array.dtype} values are not real numbers")
    flat = array.astype(np.float64).ravel()
    nonfinite = ~np.isfinite(flat)
    if nonfinite.any():
        raise bad(
            ValueError,
            f"summary histogram {tag!r}: {int(np.isnan(flat).sum())} nan and {int(np.isinf(flat).sum())} "
            f"inf among its {flat.size} values (a histogram has finite edges; check the values first)",
        )
    summary_pb2, types_pb2 = protos().summary, protos().types
    return summary_pb2.Summary.Value(
        tag=tag,
        tensor=_tensor(_buckets(flat, int(bins)), types_pb2.DT_DOUBLE),
        metadata=_metadata("histograms"),
    )


def _png(pixels: np.ndarray) -> bytes:
    """PNG bytes of an ``[h, w, c]`` uint8 image (c = 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA)."""
    h, w, c = pixels.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), pixels.reshape(h, w * c)], axis=1)  # filter 0 per row

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
        + chunk(b"IEND", b"")
    )  # fmt: skip


def _pixels(tag: str, image: np.ndarray) -> np.ndarray:
    """``image`` as uint8 pixels: uint8 as it is, floats (and bools) in [0, 1] scaled to 0..255."""
    if image.dtype == np.uint8:
        return image
    if image.dtype == np.bool_:
        return image.astype(np.uint8) * 255
    if _kind(image.dtype) != "f":
        raise bad(
            TypeError, f"summary image {tag!r}: pixels are uint8 (0..255) or floats (0..1), not {image.dtype}"
        )
    if np.isnan(image).any():
        raise bad(ValueError, f"summary image {tag!r}: {int(np.isnan(image).sum())} nan pixels")
    return np.round(np.clip(image.astype(np.float64), 0.0, 1.0) * 255.0).astype(np.uint8)


def image(tag: str, values, max_images: int = 3):
    """An images-plugin value: ``values`` is one image ``[h, w]`` / ``[h, w, c]`` or a batch
    ``[n, h, w, c]`` (the first ``max_images`` are kept); c is 1, 2, 3 or 4 channels."""
    _check_tag(tag)
    array = _array(tag, values, "image")
    if array.ndim == 2:
        array = array[None, :, :, None]
    elif array.ndim == 3:
        array = array[None]
    if array.ndim != 4 or array.shape[-1] not in (1, 2, 3, 4) or 0 in array.shape[1:3]:
        raise bad(
            ValueError,
            f"summary image {tag!r}: an image is [height, width], [height, width, channels] or a batch "
            f"[n, height, width, channels] with 1-4 channels and no empty side; got shape {np.shape(values)}",
        )
    pixels = _pixels(tag, array[:max_images])
    n, h, w, _ = pixels.shape
    encoded = [str(w).encode(), str(h).encode()] + [_png(pixels[i]) for i in range(n)]
    summary_pb2 = protos().summary
    return summary_pb2.Summary.Value(
        tag=tag, tensor=_strings(encoded, (n + 2,)), metadata=_metadata("images")
    )


def text(tag: str, value: str):
    """A text-plugin value: ``value`` (markdown, as TensorBoard renders it)."""
    _check_tag(tag)
    if not isinstance(value, str):
        raise bad(TypeError, f"summary text {tag!r}: the text is a str, not {type(value).__name__}")
    summary_pb2 = protos().summary
    return summary_pb2.Summary.Value(
        tag=tag, tensor=_strings([value.encode()], ()), metadata=_metadata("text")
    )
