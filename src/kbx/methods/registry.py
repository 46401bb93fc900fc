"""Methods: the ways kbx produces candidates, by `--method` name, each owning its options and defaults.

A method is a `Method` subclass registered with `@method("name")`; the CLI, the Python API (`kbx.run`) and the
runner all look methods up here, so a method behaves the same from each of them. Adding a method is one module
that defines and registers its class (the built-in ones are imported by `kbx.methods`).

Two kinds:
- **up-front** methods list every candidate before the run starts (`candidates`), e.g. `reference`;
- **generating** methods (`needs_model`) ask a model while the run goes, as chains of (ask → evaluate) steps driven
  by `kbx.generate.methods.Session`; a method that `iterates` takes up to `settings.iterations` steps a chain.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from kbx.candidates.source import Candidate
from kbx.errors import KbxError
from kbx.generate.settings import GenerationSettings
from kbx.tasks.spec import Task


class Method:
    """A way to produce candidates; subclass it and register the subclass with `@method(NAME)`."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    """One line for `--help`."""
    needs_model: ClassVar[bool] = False
    """Asks a model (`--model KIND:MODEL`) for its candidates while the run goes."""
    iterates: ClassVar[bool] = False
    """A chain takes up to `settings.iterations` steps, each candidate named by its iteration."""
    default_iterations: ClassVar[int] = 1

    def settings(self, given: GenerationSettings | None) -> GenerationSettings | None:
        """The generation settings a run of this method uses: its defaults filled in, the options it does not take
        refused (KbxError). None for a method that asks no model."""
        if not self.needs_model:
            if given is not None:
                raise KbxError(f"--method {self.name} asks no model; leave out --model")
            return None
        if given is None:
            raise KbxError(f"--method {self.name} needs --model KIND:MODEL")
        if given.iterations is not None and given.iterations != 1 and not self.iterates:
            raise KbxError(f"--iterations is for methods that iterate ({', '.join(iterating())}), not {self.name}")
        return given if given.iterations is not None else replace(given, iterations=self.default_iterations)

    def candidates(self, tasks: Sequence[Task]) -> list[tuple[Task, Candidate]]:
        """An up-front method's candidates for `tasks`; a generating method makes its own as the run goes."""
        raise NotImplementedError(f"{self.name} generates its candidates during the run")

    def steps(self, settings: GenerationSettings) -> int:
        """Model calls a chain takes at most."""
        return int(settings.iterations or 1) if self.iterates else 1

    def run_summary(self, rows: Iterable[Mapping[str, Any]], settings: GenerationSettings) -> dict[str, Any]:
        """What this method adds to a run's run.json beyond every generating run's figures."""
        return {}


_METHODS: dict[str, Method] = {}


def method(name: str) -> Callable[[type[Method]], type[Method]]:
    """Register a `Method` subclass under `name` (its `name` is set to it)."""

    def register(cls: type[Method]) -> type[Method]:
        if name in _METHODS:
            raise ValueError(f"a method named {name!r} is registered already")
        cls.name = name
        _METHODS[name] = cls()
        return cls

    return register


def get_method(name: str) -> Method:
    """The registered method `name`; KbxError naming the available ones (and the closest) otherwise."""
    found = _METHODS.get(name)
    if found is None:
        close = difflib.get_close_matches(name, list(_METHODS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise KbxError(f"unknown method {name!r}{hint}; available: {', '.join(_METHODS)}")
    return found


def method_names() -> tuple[str, ...]:
    return tuple(_METHODS)


def iterating() -> tuple[str, ...]:
    return tuple(name for name, m in _METHODS.items() if m.iterates)


def described() -> str:
    """`name: summary` of every method, for `--help`."""
    ordered = sorted(_METHODS.items(), key=lambda item: item[1].needs_model)  # up-front ones (the default) first
    return "; ".join(f"{name}: {m.summary}" for name, m in ordered)
