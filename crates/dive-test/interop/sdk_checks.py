"""What every provider's interop scripts share: judging our JSON with the official SDKs' types.

Imported by the scripts under crates/*/tests/interop (each puts this directory on sys.path):
  errors(e)                 a pydantic ValidationError in one line
  dropped(raw, dumped)      keys a model with extra='ignore' lost on validate + dump (unknown keys)
  StrictTypedDicts(kinds)   request TypedDicts validated with unknown keys REJECTED and strict
                            types; an item that only matched a *response* model (which allows
                            extra keys) is re-validated against its request twin (Foo -> FooParam)
  run_dir(validate, self_check)
                            the command line of a request validator: self-check first, then
                            every DIR/*.json, one [PASS]/[FAIL] line each and a total line
"""
from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any, Callable, List

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

STRICT = ConfigDict(extra="forbid", strict=True)


def errors(e: ValidationError, most: int = 6) -> str:
    return "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['type']}" for err in e.errors()[:most])


def dropped(raw: Any, dumped: Any, path: str = "") -> list[str]:
    """Keys present in the input but absent after validate + dump(by_alias) (extra='ignore' models)."""
    out: list[str] = []
    if isinstance(raw, dict) and isinstance(dumped, dict):
        for k, v in raw.items():
            if k not in dumped:
                out.append(f"{path}.{k}".lstrip("."))
            else:
                out += dropped(v, dumped[k], f"{path}.{k}")
    elif isinstance(raw, list) and isinstance(dumped, list):
        for i, (a, b) in enumerate(zip(raw, dumped)):
            out += dropped(a, b, f"{path}[{i}]")
    return out


class StrictTypedDicts:
    """Validates bodies against request TypedDicts by kind. Wrapping the TypedDict in List[...]
    makes the config reach nested TypedDicts; lazily validated iterables are consumed so that
    their items are checked too."""

    def __init__(self, kinds: dict[str, Any]):
        self.kinds = kinds
        self._adapters: dict[str, TypeAdapter] = {}

    def _adapter(self, kind: str) -> TypeAdapter:
        if kind not in self._adapters:
            self._adapters[kind] = TypeAdapter(List[self.kinds[kind]], config=STRICT)
        return self._adapters[kind]

    def validate(self, kind: str, body: dict) -> str | None:
        try:
            _consume(self._adapter(kind).validate_python([body]))
        except ValidationError as e:
            return errors(e)
        except ValueError as e:
            return str(e)
        return None


def _consume(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _consume(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_consume(v) for v in x]
    if isinstance(x, (str, bytes, int, float, bool)) or x is None:
        return x
    if isinstance(x, BaseModel):
        param = _param_twin(type(x))
        if param is None:
            raise ValueError(f"item only matched response model {type(x).__name__}: {x.model_dump(exclude_none=True)}")
        raw = x.model_dump(mode="python", exclude_unset=True, by_alias=True)
        return _consume(TypeAdapter(List[param], config=STRICT).validate_python([raw]))[0]
    if hasattr(x, "__iter__"):
        return [_consume(v) for v in x]
    return x


def _param_twin(model: type) -> Any:
    module = importlib.import_module(model.__module__ + "_param")
    return getattr(module, model.__name__ + "Param", None)



def run_dir(validate: Callable[[str, dict], Any], self_check: Callable[[], bool]) -> int:
    """Self-check, then validate every DIR/*.json (DIR is argv[1]). `validate(name, body)`
    returns None or "" when valid, a problem string, or (problems, notes) lists. Exit code 0
    when every file is valid (and there is at least one), 1 otherwise, 2 when the self-check
    fails (the validator would accept what it must reject)."""
    if not self_check():
        print("SELF-CHECK FAILED: the validator accepts unknown keys or wrong types")
        return 2
    folder = sys.argv[1]
    failures = 0
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    for name in names:
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            body = json.load(f)
        result = validate(name, body)
        problems, notes = result if isinstance(result, tuple) else ([result] if result else [], [])
        print(f"[{'PASS' if not problems else 'FAIL'}] {name}" + "".join(f"\n    {p}" for p in problems)
              + "".join(f"\n    note: {n}" for n in notes))
        failures += bool(problems)
    print(f"{len(names) - failures} valid, {failures} invalid")
    return 1 if failures or not names else 0


def kind_of(name: str) -> str:
    """The kind in a body file's name: the second-to-last dot part (NAME.KIND.json)."""
    return name.rsplit(".", 2)[-2]
