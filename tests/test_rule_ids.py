"""Every rule id that code or tests cite is defined in docs/rules.md (docs/rules.md §1.1)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULE_ID = re.compile(r"\b(R\d+(?:\.\d+)+|R[ABC]\.\d+(?:\.\d+)?|[CD]-[a-z]+\.\d+)\b")


def defined_ids() -> set[str]:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    return set(re.findall(r"^### (\S+) —", text, re.MULTILINE))


def is_defined(rule_id: str, ids: set[str]) -> bool:
    # A bare group such as R6.1 or RA.4 cites every rule under it (docs/rules.md §1.1).
    return rule_id in ids or any(i.startswith(rule_id + ".") for i in ids)


def test_rule_ids_are_unique() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### (\S+) —", text, re.MULTILINE)
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
