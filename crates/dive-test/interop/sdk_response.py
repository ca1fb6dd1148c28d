"""Parse a JSON file as one of an official SDK's response models and print what the SDK read.

Usage: python3 sdk_response.py MODULE:CLASS FILE
  e.g. anthropic.types.beta:BetaMessage answer.json
       openai.types.responses:CompactedResponse compacted.json

The file is validated with the model's own `model_validate` in strict mode (wrong types are
rejected; the models admit extra keys, as the SDKs do for forward compatibility). On success the
model is printed as JSON (`model_dump(mode="json", exclude_unset=True)`), so the caller compares
what the SDK read with what it expected. Exit 1 with the validation errors otherwise.
"""
from __future__ import annotations

import importlib
import json
import sys

from pydantic import ValidationError


def main() -> int:
    if len(sys.argv) != 3 or ":" not in sys.argv[1]:
        print(__doc__, file=sys.stderr)
        return 2
    module, name = sys.argv[1].split(":", 1)
    model = getattr(importlib.import_module(module), name)
    with open(sys.argv[2], encoding="utf-8") as f:
        raw = json.load(f)
    try:
        parsed = model.model_validate(raw, strict=True)
    except ValidationError as e:
        print(f"{sys.argv[2]}: not a valid {name}: {e}")
        return 1
    print(json.dumps(parsed.model_dump(mode="json", exclude_unset=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
