"""Every rule id that code or tests cite is defined in docs/rules.md (docs/rules.md §1.1), and every
entry names the code that carries it out on its **Code:** line (docs/rules.md §1.2)."""

import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
RULE_ID = re.compile(r"\b(R\d+(?:\.\d+)+|R[ABC]\.\d+(?:\.\d+)?|[CD]-[a-z]+\.\d+)\b")
HEADING = re.compile(r"^### (\S+) —")
PACKAGES = ("sm_env", "agents", "experiments")  # the repository's packages (pyproject.toml)
CODE = "- **Code:** "
NAMES = re.compile(r"`[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+`(?:, `[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+`)*")

# Entries whose Code line may say "none — <reason>": nothing in the code carries them out.
# A new entry names its code; it joins this list only with a reason as good as these.
NO_CODE = {
    "R1.1": "the seed's historical setting: flavour, no rule and no state",
}


def rules_text() -> str:
    return (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def defined_ids() -> set[str]:
    return set(re.findall(r"^### (\S+) —", rules_text(), re.MULTILINE))


def entries() -> dict[str, list[str]]:
    """Each entry's id and its lines, up to the next heading of any level."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in rules_text().splitlines():
        match = HEADING.match(line)
        if match:
            current = out.setdefault(match.group(1), [])
        elif line.startswith("#"):
            current = None
        elif current is not None and line.strip():
            current.append(line)
    return out


def code_lines() -> dict[str, str]:
    """Each entry's Code line, without its label (test_every_entry_has_one_code_line checks
    there is exactly one)."""
    return {
        rule_id: next(line for line in lines if line.startswith(CODE))[len(CODE) :]
        for rule_id, lines in entries().items()
        if any(line.startswith(CODE) for line in lines)
    }


def resolve(name: str) -> object:
    """Import the longest importable module prefix of ``name``, then get the rest as
    attributes (a class, then its method). AttributeError or ModuleNotFoundError if it does
    not resolve; a function or class must be named in the module that defines it."""
    parts = name.split(".")
    module: ModuleType | None = None
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        try:
            module = importlib.import_module(prefix)
        except ModuleNotFoundError as err:
            if err.name is None or not (prefix == err.name or prefix.startswith(err.name + ".")):
                raise  # a module that exists failed to import: that is not a wrong name
            continue
        break
    if module is None:
        raise ModuleNotFoundError(f"no module {parts[0]!r}")
    rest = parts[i:]
    if not rest:
        return module
    obj: object = module
    for attr in rest:
        obj = getattr(obj, attr)
    top = getattr(module, rest[0])
    defined = inspect.isfunction(top) or inspect.isbuiltin(top) or inspect.isclass(top)  # builtin: compiled
    if defined and top.__module__ != module.__name__:
        raise AttributeError(f"{module.__name__}.{rest[0]} is defined in {top.__module__}, name it there")
    return obj


def is_defined(rule_id: str, ids: set[str]) -> bool:
    # A bare group such as R6.1 or RA.4 cites every rule under it (docs/rules.md §1.1).
    return rule_id in ids or any(i.startswith(rule_id + ".") for i in ids)


def test_rule_ids_are_unique() -> None:
    headings = re.findall(r"^### (\S+) —", rules_text(), re.MULTILINE)
    assert len(headings) == len(set(headings))


def test_cited_rule_ids_exist() -> None:
    ids = defined_ids()
    missing = []
    for folder in ("sm_env", "agents", "experiments", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for rule_id in RULE_ID.findall(line):
                    if not is_defined(rule_id, ids):
                        missing.append(f"{path.relative_to(ROOT)}:{lineno}: {rule_id}")
    assert not missing, "rule ids not defined in docs/rules.md:\n" + "\n".join(missing)


def test_every_entry_has_one_code_line_after_its_engine_line() -> None:
    found = entries()
    assert len(found) == len(defined_ids()) > 100
    wrong = []
    for rule_id, lines in found.items():
        code = [i for i, line in enumerate(lines) if line.startswith("- **Code:**")]
        engine = [i for i, line in enumerate(lines) if line.startswith("- **Engine:**")]
        if len(code) != 1:
            wrong.append(f"{rule_id}: {len(code)} Code lines")
        elif len(engine) == 1 and code[0] != engine[0] + 1:
            wrong.append(f"{rule_id}: the Code line does not follow the Engine line")
    assert not wrong, "docs/rules.md §1.2: one Code line per entry, after Engine:\n" + "\n".join(wrong)


def test_code_lines_are_backticked_dotted_names_or_none() -> None:
    wrong = []
    for rule_id, text in code_lines().items():
        if text.startswith("none — "):
            continue
        if not NAMES.fullmatch(text):
            wrong.append(f"{rule_id}: {text!r} is not `pkg.module.name`, `...` (or 'none — <reason>')")
            continue
        for name in re.findall(r"`([^`]+)`", text):
            if name.split(".")[0] not in PACKAGES:
                wrong.append(f"{rule_id}: {name} is not in a repository package ({', '.join(PACKAGES)})")
    assert not wrong, "\n".join(wrong)


def test_code_names_resolve() -> None:
    unresolved = []
    for rule_id, text in code_lines().items():
        for name in re.findall(r"`([^`]+)`", text):
            try:
                resolve(name)
            except (AttributeError, ModuleNotFoundError) as err:
                unresolved.append(f"{rule_id}: {name} ({err})")
    assert not unresolved, "names on Code lines that do not resolve:\n" + "\n".join(unresolved)


def test_only_listed_entries_have_no_code() -> None:
    none = {rule_id for rule_id, text in code_lines().items() if text.startswith("none")}
    for rule_id in none:
        assert code_lines()[rule_id].startswith("none — "), f"{rule_id}: write 'none — <reason>'"
    assert none == set(NO_CODE), (
        f"Code 'none' not on the allow-list: {sorted(none - set(NO_CODE))}; "
        f"on the allow-list but naming code (or gone): {sorted(set(NO_CODE) - none)}"
    )
    assert all(reason for reason in NO_CODE.values())


def test_resolve_rejects_what_does_not_exist() -> None:
    assert resolve("sm_env.core.state.GameState.winners") is not None
    for name in (
        "sm_env.core.nosuch.thing",
        "sm_env.core.state.GameState.no_such_method",
        "sm_env.core.local_ops.reshuffle",  # imported there, defined in sm_env.core.decks
    ):
        try:
            resolve(name)
        except (AttributeError, ModuleNotFoundError):
            continue
        raise AssertionError(f"{name} should not resolve")
