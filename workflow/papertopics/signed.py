"""Fitted models kept as pickles, signed with this installation's key, and loaded only when the
signature holds.

A pickle runs whatever code it carries when it is loaded, and a results folder travels (copied
to a colleague, restored from a backup, downloaded): loading ``results/fit/`` from elsewhere
would run someone else's program with the user's rights. So every fitted model the pipeline
keeps starts with an HMAC-SHA256 of its pickle under a key kept outside the results, in the
user's config folder (``$XDG_CONFIG_HOME/papertopics/fit.key``, or ``~/.config/...``; the
folder ``PAPERTOPICS_KEY_DIR`` names instead, where set), made on first use and readable by
its owner alone. A file whose signature does not hold (written elsewhere, edited, truncated,
or kept before fits were signed) is refused before a byte of it is unpickled: ``Refused``
names it, and the stage fits afresh. The check is of the bytes, so it also holds for a hard
link or copy of a signed file.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import os
import secrets
from pathlib import Path

from papertopics import storage
from papertopics.errors import PipelineInputError

KEY_FOLDER_VARIABLE = "PAPERTOPICS_KEY_DIR"
KEY_NAME = "fit.key"
# The first line of a signed file: what it is, then a line holding the signature's hex digest.
MAGIC = b"papertopics signed pickle, hmac-sha256\n"
_DIGEST_HEX = 2 * hashlib.sha256().digest_size


class Refused(Exception):
    """A kept model this installation did not sign (or not in this form): not loaded."""


def key_folder() -> Path:
    """Where this installation's key is kept: ``PAPERTOPICS_KEY_DIR``, else the user's config folder."""
    chosen = os.environ.get(KEY_FOLDER_VARIABLE)
    if chosen:
        return Path(chosen)
    config = os.environ.get("XDG_CONFIG_HOME", "")
    # The XDG specification ignores a relative XDG_CONFIG_HOME.
    base = Path(config) if os.path.isabs(config) else Path.home() / ".config"
    return base / "papertopics"


def _read_key(path: Path) -> bytes:
    text = path.read_text(encoding="ascii", errors="replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 32:
        raise PipelineInputError(
            f"{path} is not a papertopics key (64 hex digits); delete it and a new one is made "
            "(the fits it signed are then refitted by the next update: place)"
        )
    return key


def installation_key() -> bytes:
    """This installation's signing key, made (32 random bytes, mode 0600) where there is none yet."""
    folder = key_folder()
    path = folder / KEY_NAME
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise _unusable(folder, error) from error
    temporary = folder / f".{KEY_NAME}.{secrets.token_hex(6)}.part"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(handle, "w", encoding="ascii") as stream:
            stream.write(secrets.token_hex(32) + "\n")
        # A link, not a rename: where two jobs make the key at once, the first one's stays.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    except OSError as error:
        raise _unusable(folder, error) from error
    finally:
        temporary.unlink(missing_ok=True)
    return _read_key(path)


def _unusable(folder: Path, error: OSError) -> PipelineInputError:
    return PipelineInputError(
        f"cannot keep the key that signs fitted models in {folder} ({error.strerror or error}); "
        f"set {KEY_FOLDER_VARIABLE} to a folder this user may write"
    )


def _signature(payload: bytes) -> bytes:
    return hmac.new(installation_key(), payload, hashlib.sha256).hexdigest().encode("ascii")


def dump(value, path: str | os.PathLike, compress: int = 3) -> None:
    """Write ``value`` to ``path`` (atomically) as joblib's pickle, signed with this installation's key."""
    # Joblib loads only where a fitted model is saved or read.
    import joblib

    buffer = io.BytesIO()
    joblib.dump(value, buffer, compress=compress)
    payload = buffer.getvalue()
    with storage.atomic_path(path) as temporary:
        temporary.write_bytes(MAGIC + _signature(payload) + b"\n" + payload)


def load(path: str | os.PathLike):
    """What ``dump`` wrote to ``path``, unpickled only if this installation's key signed it.

    Raises:
        Refused: the file is not signed, or not by this key, or changed since (the message
            names it and says which).
    """
    data = Path(path).read_bytes()
    head = len(MAGIC) + _DIGEST_HEX + 1
    if not data.startswith(MAGIC) or len(data) < head or data[head - 1 : head] != b"\n":
        raise Refused(
            f"{path} carries no signature of this installation (a fit from another program, or "
            "one kept before fits were signed): not loaded"
        )
    payload = data[head:]
    if not hmac.compare_digest(data[len(MAGIC) : head - 1], _signature(payload)):
        raise Refused(
            f"{path} was not signed by this installation's key (written elsewhere, edited or "
            "truncated): not loaded"
        )
    # Joblib loads only where a fitted model is saved or read.
    import joblib

    return joblib.load(io.BytesIO(payload))
