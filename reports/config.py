"""Settings the command line takes from the environment and the config file (docs/sync.md)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path

from analyze.errors import UsageError
from analyze.limits import Limits


def limits_from_env(environ: Mapping[str, str] | None = None) -> Limits:
    """The default limits, overridden by `PATCHPERF_LIMIT_<FIELD>` variables (positive
    integers), e.g. `PATCHPERF_LIMIT_DECOMPRESSED_BYTES=1073741824` for a large backfill or
    `PATCHPERF_LIMIT_REQUESTS=20000` for a long first sync."""
    env = os.environ if environ is None else environ
    values: dict[str, int] = {}
    for f in fields(Limits):
        name = f"PATCHPERF_LIMIT_{f.name.upper()}"
        text = env.get(name)
        if text is None:
            continue
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            value = 0
        if value <= 0:
            raise UsageError(f"{name}={text!r}: expected a positive whole number")
        values[f.name] = value
    return Limits(**values)


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$PATCHPERF_CONFIG`, else `config.toml` in the user's config directory."""
    env = os.environ if environ is None else environ
    if env.get("PATCHPERF_CONFIG"):
        return Path(env["PATCHPERF_CONFIG"])
    from platformdirs import user_config_dir

    return Path(user_config_dir("patchperf")) / "config.toml"


def sync_settings(environ: Mapping[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The feeds `patchperf sync` runs when none is named, and the environment its feeds
    read base URLs from: the config file's `[urls]` (lore, openwall, patchwork), which the
    `PATCHPERF_<KIND>_URL` variables override. A missing file is no feeds; a bad one a
    UsageError naming it.

        feeds = ["lore:netdev", "openwall:netdev", "patchwork:netdevbpf"]
        [urls]
        lore = "https://lore.example.org"   # a public-inbox mirror of one's own
    """
    env = dict(os.environ if environ is None else environ)
    path = config_path(env)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], env
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the config file ({exc})") from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise UsageError(f"{path}: not TOML ({exc})") from None
    feeds = data.get("feeds", [])
    urls = data.get("urls", {})
    if not (isinstance(feeds, list) and all(isinstance(f, str) for f in feeds)):
        raise UsageError(f"{path}: `feeds` must be a list of names such as \"lore:netdev\"")
    if not (isinstance(urls, dict) and all(isinstance(v, str) for v in urls.values())):
        raise UsageError(f"{path}: `[urls]` must map lore, openwall, patchwork to URLs")
    unknown = set(data) - {"feeds", "urls"}
    if unknown:
        raise UsageError(f"{path}: unknown settings {', '.join(sorted(unknown))}")
    merged = {f"PATCHPERF_{kind.upper()}_URL": url for kind, url in urls.items()}
    merged.update({k: v for k, v in env.items()})
    return feeds, merged
