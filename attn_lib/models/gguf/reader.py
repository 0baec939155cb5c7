"""Reading a GGUF file: its metadata and its tensors as float32 numpy arrays (its tokenizer: gguf.vocab).

GGUF is llama.cpp's single-file format: a header of key/value metadata (the model's sizes, the
tokenizer's vocabulary and merges, the chat template), a table of tensors (name, shape, type, offset),
then the tensors' bytes. The header is parsed here (see "Time"), and the tensors are dequantized by the numpy
code of ``gguf``, ggml's own Python package (``gguf.quants.dequantize``). Most weights of
SmolLM2-135M-Instruct.Q4_1.gguf are quantized:

    Q4_1   blocks of 32 weights: a float16 scale d, a float16 minimum m, then 32 codes q of 4 bits each
           (0 .. 15): w = d * q + m                          20 bytes per 32 weights, 5 bits per weight
    Q8_0   blocks of 32 weights: a float16 scale d, 32 signed 8-bit codes q: w = d * q     (34 bytes)
    F32    plain float32 (the RMSNorm gains)

These are the weights as shipped: the numbers a llama.cpp user runs, not the float32 or bfloat16 numbers
the model was trained with (the quantization rounded those once, when the file was made).

Shapes. GGUF lists a tensor's dimensions fastest first (ne[0] is the contiguous one); numpy lists them
slowest first. A linear layer with n_in inputs and n_out outputs is stored with ne = [n_in, n_out], which
numpy reads as [n_out, n_in]: one row per output, PyTorch's nn.Linear layout. `read_tensor` returns that
numpy layout (or writes it into any float32 array of that shape, e.g. a slice of rows of a larger array that
holds several matrices one after the other, as attn_lib.models.smollm2.model keeps W_Q, W_K and W_V).

Memory. The reader memory-maps the file and touches only the header's pages; the tensors' bytes are then
read a few MiB at a time and dequantized into one preallocated float32 array per tensor, so no tensor
exists twice and the file never sits in memory as a whole.

Time. The header holds the vocabulary: 49,152 strings and 48,900 merges for SmolLM2, 262,144 strings, their
scores and types for Gemma 3. gguf's own reader (``gguf.GGUFReader``) makes two numpy views of every string and
took 2.5-4 s for SmolLM2's header, 9.8 s and a peak of 734 MiB for Gemma 3's (on an AMD EPYC); `read_header`
therefore reads the header itself (`_HeaderParser`, the very values gguf's reader gives, checked key by key on
both files): 0.35 s for Gemma 3's, and no peak of memory. It also keeps what it read in a small JSON file beside
the GGUF file (``.<name>.header.json``, 1.6 MB for SmolLM2, 5.7 MB for Gemma 3) and reads that instead next time
(0.06 s), as long as the GGUF file has the same size and modification time; where the folder cannot be written,
it parses every time.

Damage. Each count, length and offset the header gives is checked against the file's size, and the readers check
that a tensor's bytes are there: a file cut short or with bytes changed gives a `DamagedGGUFError` that names the
file and says what to do (delete it, fetch it again), not an IndexError or a numpy reshape error.
"""

import contextlib
import json
import math
import os
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CONTROL = 3  # tokenizer.ggml.token_type of a special (control) token such as <|im_start|>
TOKENIZER_KEYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges")
Q4_1_BLOCK = 32  # weights per block of Q4_1 (and of Q8_0)
_CHUNK_BYTES = 4 << 20  # quantized bytes read and dequantized at a time
MAX_DIMS = 4  # ggml's GGML_MAX_DIMS: a tensor has 1 to 4 dimensions


class DamagedGGUFError(ValueError):
    """A GGUF file cut short or damaged: its header, or a tensor's bytes, do not fit in the file."""


def _damaged(path, what):
    return DamagedGGUFError(
        f"{path} is truncated or damaged: {what}. Delete it and run `python -m attn_lib.models.fetch` again,"
        " which fetches the file anew and checks its SHA-256."
    )


class _Damage(Exception):
    """What _HeaderParser found wrong; _parse_header, which knows the file's path, raises the DamagedGGUFError."""


def _past_end(info, size):
    a, b = info.offset, info.offset + info.n_bytes
    return f"the bytes of tensor {info.name!r}, {a:,} to {b:,}, run past the end of the file at byte {size:,}"


@dataclass(frozen=True)
class TensorInfo:
    """Where one tensor lies in the file: its name, numpy shape (slowest axis first), type and bytes."""

    name: str
    shape: tuple  # numpy order: GGUF's ne reversed
    kind: str  # the quantization type's name: "Q4_1", "Q8_0", "F32", ...
    offset: int  # absolute byte offset of its data in the file
    n_bytes: int

    @property
    def size(self):
        """The number of weights."""
        return int(np.prod(self.shape))


def _check_gguf(path):
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path {str(path)!r} is not a file (expected a .gguf model file)")
    with open(path, "rb") as f:
        magic = f.read(4)
    if len(magic) < 4 and b"GGUF".startswith(magic):  # an empty file, or one cut inside the magic
        raise _damaged(path, f"it has only {len(magic)} byte(s), not even the 24 of a GGUF header's start")
    if magic != b"GGUF":
        raise ValueError(f"{path} is not a GGUF file: it starts with {magic!r}, not b'GGUF'")
    return path


def read_header(path, array_keys=(), keep=True):
    """path -> (metadata dict, list of TensorInfo). Array values are kept only for the keys in `array_keys`.

    Scalars come back as str, int, float or bool; kept arrays as lists. With `keep`, what was read is kept
    beside the file and read from there next time (see "Time" above); keep=False always parses the file.
    """
    path = _check_gguf(path)
    kept = _kept_header(path, array_keys) if keep else None
    if kept is not None:
        return kept
    metadata, infos = _parse_header(path, array_keys)
    if keep:
        _keep_header(path, array_keys, metadata, infos)
    return metadata, infos


def _sidecar(path):
    return path.with_name(f".{path.name}.header.json")


def _stamp(path, array_keys):
    stat = path.stat()
    return {"format": 1, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "array_keys": sorted(array_keys)}


def _kept_header(path, array_keys):
    """The header kept beside `path` by an earlier read, or None if there is none or it is not this file's."""
    try:
        kept = json.loads(_sidecar(path).read_text(encoding="utf-8"))
        if kept.get("stamp") != _stamp(path, array_keys):
            return None
        infos = [TensorInfo(name, tuple(shape), kind, at, n) for name, shape, kind, at, n in kept["tensors"]]
        return kept["metadata"], infos
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # none, or not a header kept by this module
        return None


def _keep_header(path, array_keys, metadata, infos):
    """Write the header beside `path` (atomically: a temporary file renamed); skip quietly where one cannot write."""
    record = {"stamp": _stamp(path, array_keys), "metadata": metadata,
              "tensors": [[i.name, list(i.shape), i.kind, i.offset, i.n_bytes] for i in infos]}  # fmt: skip
    try:
        handle, temporary = tempfile.mkstemp(prefix=".header-", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.replace(temporary, _sidecar(path))
    except OSError:  # a read-only folder (an installed package): parse again next time
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(temporary)


def _parse_header(path, array_keys):
    """The header parsed from the file itself (see "Time" above): (metadata, [TensorInfo]), the same values
    gguf.GGUFReader's fields give (`field.contents()`), GGUF.version, GGUF.tensor_count and GGUF.kv_count included.
    A file in the other byte order is left to gguf's reader. A file cut short or damaged: DamagedGGUFError."""
    import mmap

    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        if len(buf) < 24:  # magic, version, tensor count, key/value count
            raise _damaged(path, f"it has only {len(buf)} bytes, not even the 24 of a GGUF header's start")
        version = int.from_bytes(buf[4:8], "little")
        if version not in (2, 3) and int.from_bytes(buf[4:8], "big") in (2, 3):  # a big-endian file (it happens)
            return _parse_header_gguf(path, array_keys)  # gguf's reader handles the byte order
        if version not in (2, 3):
            raise _damaged(path, f"its header gives GGUF version {version}, where versions 2 and 3 are read")
        parser = _HeaderParser(buf, set(array_keys))
        try:
            return parser.parse(version)
        except _Damage as exc:
            raise _damaged(path, str(exc)) from None
        except (struct.error, ValueError, KeyError, TypeError, OverflowError, ZeroDivisionError, RecursionError) as exc:
            error = f"an unknown value type {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
            raise _damaged(path, f"its header cannot be read at byte {parser.offset:,} ({error})") from None


class _HeaderParser:
    """GGUF's header, read in order from a buffer: its key/value pairs, then its tensor table (little-endian).

    Every value is read with struct or np.frombuffer, and only the arrays in `array_keys` are kept (a string
    array not kept is walked over, its strings never decoded): 262,144 strings take about 0.1 s, where
    gguf's reader, which makes two numpy views of every string, took 10 s and 700 MiB for Gemma 3's header.
    """

    SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
    STRING, ARRAY = 8, 9

    def __init__(self, buf, array_keys):
        self.buf, self.array_keys, self.offset, self.end = buf, array_keys, 4, len(buf)  # after the magic
        self.unpack = struct.unpack_from
        self.numbers = {code: np.dtype(fmt) for code, fmt in self.SCALARS.items()}  # "<f" -> little-endian float32

    def _need(self, n, what):
        """_Damage unless the n bytes of `what` from the current offset lie within the file."""
        if n > self.end - self.offset:
            raise _Damage(f"{what} from byte {self.offset:,} would take {n:,} bytes; the file ends at {self.end:,}")

    def _take(self, fmt, size):
        self._need(size, "a number")
        (value,) = self.unpack(fmt, self.buf, self.offset)
        self.offset += size
        return value

    def _string(self):
        n = self._take("<Q", 8)
        self._need(n, "a string")
        self.offset += n
        return str(self.buf[self.offset - n : self.offset], encoding="utf-8")

    def _value(self, kind):
        if kind == self.STRING:
            return self._string()
        dtype = self.numbers[kind]  # a scalar: the Python number numpy's tolist() gives, as gguf's contents()
        self._need(dtype.itemsize, "a number")
        value = np.frombuffer(self.buf, dtype, 1, self.offset).tolist()[0]
        self.offset += dtype.itemsize
        return value

    def _array(self, keep):
        kind, count = self._take("<I", 4), self._take("<Q", 8)
        smallest = {self.STRING: 8, self.ARRAY: 12}.get(kind) or self.numbers[kind].itemsize  # bytes per item
        self._need(count * smallest, f"an array of {count:,} items")  # an absurd count fails here, at once
        if kind == self.STRING:
            if not keep:  # walked over: only the lengths are read
                unpack, buf, offset = self.unpack, self.buf, self.offset
                for _ in range(count):
                    offset += 8 + unpack("<Q", buf, offset)[0]  # struct.error past the end of the file
                self._need(offset - self.offset, f"an array of {count:,} strings")  # the last one's length
                self.offset = offset
                return None
            return [self._string() for _ in range(count)]
        if kind == self.ARRAY:
            items = [self._array(keep) for _ in range(count)]  # nested arrays (none in the course's files)
            return items if keep else None
        dtype = self.numbers[kind]
        values = np.frombuffer(self.buf, dtype, count, self.offset).tolist() if keep else None
        self.offset += dtype.itemsize * count
        return values

    def parse(self, version):
        n_tensors, n_kv = self.unpack("<QQ", self.buf, 8)
        self.offset = 24
        # each pair takes at least 12 bytes (a key's length, a type); each tensor 24 (a name's length, n_dims, ...)
        self._need(12 * n_kv + 24 * n_tensors, f"{n_kv:,} key/value pairs and {n_tensors:,} tensors")
        metadata = {"GGUF.version": version, "GGUF.tensor_count": n_tensors, "GGUF.kv_count": n_kv}
        for _ in range(n_kv):
            key, kind = self._string(), self._take("<I", 4)
            if kind == self.ARRAY:
                value = self._array(key in self.array_keys)
                if key in self.array_keys:
                    metadata[key] = value
            else:
                metadata[key] = self._value(kind)
        table = [self._tensor() for _ in range(n_tensors)]
        alignment = metadata.get("general.alignment", 32)
        start = -(-self.offset // alignment) * alignment  # the tensors' data begins at the next multiple
        infos = [TensorInfo(name, _numpy_shape(ne), kind.name, start + offset, n_bytes)
                 for name, ne, kind, offset, n_bytes in table]  # fmt: skip
        self._check_data(infos, start)
        return metadata, infos

    def _tensor(self):
        """One entry of the tensor table: (name, ne, quantization type, offset after the header, bytes)."""
        from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

        name, n_dims = self._string(), self._take("<I", 4)
        if not 1 <= n_dims <= MAX_DIMS:
            raise _Damage(f"tensor {name!r} has {n_dims:,} dimensions, where a tensor has 1 to {MAX_DIMS}")
        ne = self.unpack(f"<{n_dims}Q", self.buf, self.offset)
        self.offset += 8 * n_dims
        kind, offset = GGMLQuantizationType(self._take("<I", 4)), self._take("<Q", 8)  # ValueError: an unknown type
        block, block_bytes = GGML_QUANT_SIZES[kind]
        if 0 in ne or ne[0] % block:  # ne[0]: a row's weights, whole blocks
            raise _Damage(f"tensor {name!r} has the shape {ne}: not rows of whole {kind.name} blocks of {block}")
        return name, ne, kind, offset, math.prod(ne) // block * block_bytes

    def _check_data(self, infos, start):
        """_Damage unless every tensor's bytes lie after the header and within the file, none overlapping another."""
        previous, end = "the header", start
        for info in sorted(infos, key=lambda i: i.offset):
            if info.offset + info.n_bytes > self.end:
                raise _Damage(_past_end(info, self.end))
            if info.offset < end:
                raise _Damage(f"the bytes of tensor {info.name!r}, from byte {info.offset:,}, overlap {previous}")
            previous, end = f"those of tensor {info.name!r}", info.offset + info.n_bytes


def _parse_header_gguf(path, array_keys):
    """The header parsed by gguf.GGUFReader (any byte order; slow and memory-hungry on a large vocabulary)."""
    import gguf

    try:
        reader = gguf.GGUFReader(path)
    except (struct.error, ValueError, KeyError, IndexError, OverflowError) as exc:
        raise _damaged(path, f"its header cannot be read ({type(exc).__name__}: {exc})") from None
    metadata = {}
    for key, field in reader.fields.items():
        is_array = field.types and field.types[0] == gguf.GGUFValueType.ARRAY
        if not is_array or key in array_keys:
            metadata[key] = field.contents()
    infos = [
        TensorInfo(t.name, _numpy_shape(t.shape), t.tensor_type.name, int(t.data_offset), int(t.n_bytes))
        for t in reader.tensors
    ]
    del reader  # closes the memory map
    return metadata, infos


def _numpy_shape(ne):
    """GGUF's ne (fastest axis first) -> a numpy shape (slowest first)."""
    return tuple(int(n) for n in reversed(ne))


def read_tensor(f, info, out=None):
    """An open binary file, a TensorInfo -> float32 array of shape info.shape (numpy order, [n_out, n_in]).

    Rows are read and dequantized a few MiB at a time into `out` (a new array if None), which may be any
    writable float32 array of that shape, a transposed view included. A file too short for the tensor's bytes
    gives DamagedGGUFError.
    """
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize

    _check_extent(f, info)
    rows, cols = int(np.prod(info.shape[:-1])), info.shape[-1]
    row_bytes = info.n_bytes // rows  # quantized bytes of one row (Q4_1: cols / 32 * 20)
    out = np.empty(info.shape, np.float32) if out is None else out
    if out.shape != info.shape or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape {info.shape}, got {out.dtype} {out.shape}")
    kind = GGMLQuantizationType[info.kind]
    flat = out.reshape(rows, cols)  # [..., cols] -> [rows, cols]: a view for 1-D and 2-D tensors
    step = max(1, _CHUNK_BYTES // row_bytes)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        f.seek(info.offset + r0 * row_bytes)
        raw = _read_exactly(f, info, np.uint8, (r1 - r0) * row_bytes).reshape(r1 - r0, row_bytes)  # [chunk, row_bytes]
        if kind == GGMLQuantizationType.F32:
            flat[r0:r1] = raw.view(np.float32)
        elif kind == GGMLQuantizationType.Q5_0 and flat[r0:r1].flags.c_contiguous:
            _dequantize_q5_0(raw, flat[r0:r1])  # Gemma 3's most common type, written straight into `out`
        else:
            flat[r0:r1] = dequantize(raw, kind)  # [chunk, row_bytes] -> [chunk, cols]
    return out


def _check_extent(f, info):
    """DamagedGGUFError unless the open file `f` holds every byte of the tensor `info` (its header promised them)."""
    if info.offset + info.n_bytes > (size := os.fstat(f.fileno()).st_size):
        raise _damaged(f.name, _past_end(info, size))


def _read_exactly(f, info, dtype, count):
    """`count` items of `dtype` from the open file `f`, else DamagedGGUFError (the file shrank while it was read)."""
    if (raw := np.fromfile(f, dtype, count)).size != count:
        what = f"{raw.nbytes:,} of the {count * np.dtype(dtype).itemsize:,} bytes asked for could be read"
        raise _damaged(f.name, f"the bytes of tensor {info.name!r} end early: only {what}")
    return raw


def _dequantize_q5_0(raw, out):
    """Q5_0 blocks [chunk, row_bytes] (uint8) -> written into out, float32 [chunk, cols] (C-contiguous).

    A block of 32 weights, 22 bytes: a float16 scale d, 4 bytes qh holding bit 4 of each code (code j's in bit j of
    the little-endian uint32), then 16 bytes holding bits 0-3 (byte j: code j in its low half, code j + 16 in its
    high half): w = d * (code - 16). The same numbers as gguf.quants (checked bit for bit on every Q5_0 tensor of
    gemma-3-270m-q4_k_m.gguf), in a third to a fifth of its time: a few passes over uint8 arrays, the float32 result
    written once, where gguf shifts a uint32 per weight and makes several float32 temporaries.
    """
    blocks = raw.reshape(-1, 22)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # [n, 1]
    low = blocks[:, 6:]  # [n, 16]
    codes = np.empty((len(blocks), Q4_1_BLOCK), np.uint8)
    np.bitwise_and(low, 0x0F, out=codes[:, :16])
    np.right_shift(low, 4, out=codes[:, 16:])
    codes |= np.unpackbits(blocks[:, 2:6], axis=1, bitorder="little") << 4  # bit 4 of code j: bit j of qh
    w = out.reshape(len(blocks), Q4_1_BLOCK)
    np.subtract(codes, 16, out=w, dtype=np.float32)  # code - 16, exact in float32
    w *= scale


def read_q8_0(f, info):
    """An open binary file, the TensorInfo of a Q8_0 tensor [rows, cols] -> (int8 codes [rows, cols], float32
    scales [rows, cols / 32]), the blocks as stored (w = code x scale), read a few MiB at a time. A file too short
    for the tensor's bytes gives DamagedGGUFError."""
    if info.kind != "Q8_0" or len(info.shape) != 2:
        raise ValueError(f"tensor {info.name} is {info.kind} {info.shape}, not a Q8_0 matrix")
    rows, cols = info.shape
    blocks = cols // Q4_1_BLOCK  # a Q8_0 block: a float16 scale (2 bytes), then 32 int8 codes
    if info.n_bytes != rows * blocks * 34:
        raise ValueError(f"tensor {info.name}: {info.n_bytes} bytes is not {rows} x {blocks} Q8_0 blocks of 34")
    _check_extent(f, info)
    codes, scales = np.empty((rows, cols), np.int8), np.empty((rows, blocks), np.float32)
    step = max(1, _CHUNK_BYTES // (blocks * 34))
    f.seek(info.offset)
    for r0 in range(0, rows, step):  # the rows one after the other, as stored
        r1 = min(rows, r0 + step)
        raw = _read_exactly(f, info, _Q8_0, (r1 - r0) * blocks).reshape(r1 - r0, blocks)  # [chunk, blocks]: fields
        scales[r0:r1] = raw["scale"]  # float16 -> float32
        codes[r0:r1].reshape(r1 - r0, blocks, Q4_1_BLOCK)[...] = raw["codes"]  # one copy, no intermediate array
    return codes, scales


_Q8_0 = np.dtype([("scale", "<f2"), ("codes", "i1", (Q4_1_BLOCK,))])  # one Q8_0 block, 34 bytes


def read_block(path, info, index=0):
    """The 20 raw bytes of Q4_1 block `index` of a tensor (block 0: the first 32 weights of its first row)."""
    if info.kind != "Q4_1":
        raise ValueError(f"tensor {info.name} is {info.kind}, not Q4_1")
    with open(path, "rb") as f:
        f.seek(info.offset + 20 * index)
        return f.read(20)


def q4_1_block(raw):
    """20 bytes -> (d, m, codes [32], weights [32]): one Q4_1 block decoded by hand, w = d * q + m.

    Bytes 0-1: the scale d (float16); 2-3: the minimum m (float16); 4-19: the 32 codes, two per byte: byte
    4 + j holds code j in its low 4 bits and code j + 16 in its high 4 bits. Computed in float32, as ggml.
    """
    raw = np.frombuffer(bytes(raw), np.uint8)
    if raw.shape != (20,):
        raise ValueError(f"a Q4_1 block is 20 bytes (2 + 2 + 16), got {raw.size}")
    d, m = raw[:2].view(np.float16).astype(np.float32)[0], raw[2:4].view(np.float16).astype(np.float32)[0]
    packed = raw[4:]  # [16]
    codes = np.concatenate([packed & 0x0F, packed >> 4])  # [32]: codes 0..15 from the low halves, 16..31 from the high
    return d, m, codes, d * codes.astype(np.float32) + m


def return_freed_memory():
    """Give the memory freed after reading a model back to the system (glibc's malloc_trim; elsewhere nothing).

    Reading the header and building the tokenizer make and drop millions of small Python objects; glibc keeps the
    freed pages for later small allocations, which a model's large arrays never use (30-40 MiB of Gemma 3's load).
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c") if sys.platform.startswith("linux") else None
    with contextlib.suppress(OSError, AttributeError):
        if name:
            ctypes.CDLL(name).malloc_trim(0)
