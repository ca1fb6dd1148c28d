"""Checks that this interpreter has the pinned official SDKs (requirements.txt beside this file).

Usage: python check_sdks.py [DISTRIBUTION ...]   (no argument: every pinned SDK)

Prints one line per SDK -- `ok NAME VERSION`, `missing NAME==PINNED (why)` or
`wrong NAME VERSION, pinned PINNED` -- and exits 1 unless every one is ok. Used by
`cargo xtask` (to decide whether to build target/interop-venv) and by `dive_test::interop`
(before each provider's interop tests), so the check is written once.
"""

import importlib
import importlib.metadata
import pathlib
import sys

# Distributions whose import name is not the distribution name.
MODULES = {"google-genai": "google.genai", "a2a-sdk": "a2a", "opentelemetry-proto": "opentelemetry.proto"}


def pins():
    out = {}
    text = pathlib.Path(__file__).with_name("requirements.txt").read_text()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[name.strip()] = version.strip()
    return out


def main(argv):
    pinned = pins()
    ok = True
    for dist in argv or list(pinned):
        if dist not in pinned:
            print(f"unpinned {dist} (not in requirements.txt)")
            ok = False
            continue
        try:
            importlib.import_module(MODULES.get(dist, dist.replace("-", "_")))
            importlib.import_module("pydantic")
            installed = importlib.metadata.version(dist)
        except Exception as e:  # noqa: BLE001 - any failure means "not usable"
            print(f"missing {dist}=={pinned[dist]} ({type(e).__name__}: {e})")
            ok = False
            continue
        if installed != pinned[dist]:
            print(f"wrong {dist} {installed}, pinned {pinned[dist]}")
            ok = False
        else:
            print(f"ok {dist} {installed}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
