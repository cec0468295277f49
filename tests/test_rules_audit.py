"""The audit table of docs/rules.md §9: one row per decision (every ``D-…`` entry of §6, every
entry with a **Decision:** line, every variant of §8), each row's kind one of four words, every
quoted seed sentence found verbatim in a seed file, and the rows that contradict the seeds
exactly the ones listed here (issue 22)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
HEADING = re.compile(r"^### (\S+) —")
SECTION = re.compile(r"^## (\d+)\. ")
AUDIT_HEADING = "## 9. Audit: every decision against the seeds"
DECISION = "- **Decision:** "
KINDS = {"open point", "reads a sentence", "variant", "contradicts"}
NONE = "none: the seeds are silent on "
QUOTE = re.compile(r'"([^"]+)"')

# The seed files, in the project's shared/ folder beside the checkout (CI lays it there too).
SEED_DIRS = (Path(__file__).resolve().parents[2] / "shared" / "seeds",)

# The decisions whose default edition goes against a quoted seed sentence: none since rules
# edition 3 (issue 22). A decision that comes to contradict one must say so in its row and here.
CONTRADICTS: set[str] = set()


def rules_lines() -> list[str]:
    return RULES.read_text(encoding="utf-8").splitlines()


def decision_ids() -> list[str]:
    """Every entry of §6 and §8, and every entry anywhere with a Decision line, in file order."""
    ids: list[str] = []
    section = 0
    current: str | None = None
    for line in rules_lines():
        sec = SECTION.match(line)
        if sec:
            section = int(sec.group(1))
            current = None
            continue
        head = HEADING.match(line)
        if head:
            current = head.group(1)
            if section in (6, 8):
                ids.append(current)
        elif line.startswith("#"):
            current = None
        elif current is not None and line.startswith(DECISION) and current not in ids:
            ids.append(current)
    return ids


def defined_ids() -> set[str]:
    return {m.group(1) for line in rules_lines() if (m := HEADING.match(line))}


def audit_rows() -> list[list[str]]:
    """The cells of every row of the §9 table (header and separator left out)."""
    lines = rules_lines()
    assert AUDIT_HEADING in lines, f"docs/rules.md has no heading {AUDIT_HEADING!r}"
    rows: list[list[str]] = []
    for line in lines[lines.index(AUDIT_HEADING) + 1 :]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        assert len(cells) == 4, f"an audit row has {len(cells)} cells, not 4: {line!r}"
        rows.append(cells)
    assert rows[0] == ["id", "seed sentence(s) it reads", "kind", "why"], rows[0]
    assert set(rows[1][0]) == {"-"}, rows[1]
    return rows[2:]


def normalise(text: str) -> str:
    for typographic, plain in (("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"')):
        text = text.replace(typographic, plain)
    return " ".join(text.split())


def seed_texts() -> list[str]:
    for folder in SEED_DIRS:
        files = sorted(folder.glob("*.txt")) if folder.is_dir() else []
        if files:
            return [normalise(path.read_text(encoding="utf-8")) for path in files]
    pytest.skip(
        "the seed files are not here: neither "
        + " nor ".join(str(folder) for folder in SEED_DIRS)
        + " holds *.txt files"
    )


def test_every_decision_has_exactly_one_row() -> None:
    ids = decision_ids()
    assert len(ids) == len(set(ids))
    named = [row[0] for row in audit_rows()]
    duplicated = sorted({i for i in named if named.count(i) > 1})
    assert not duplicated, f"ids with more than one audit row: {duplicated}"
    missing = [i for i in ids if i not in named]
    assert not missing, f"decisions with no audit row: {missing}"
    unknown = [i for i in named if i not in defined_ids()]
    assert not unknown, f"audit rows naming no entry of docs/rules.md: {unknown}"
    extra = [i for i in named if i not in ids]
    assert not extra, f"audit rows for entries that are no decision: {extra}"


def test_decision_ids_cover_the_three_kinds_of_entry() -> None:
    ids = decision_ids()
    assert "D-seat.1" in ids and "D-view.1" in ids  # §6
    assert "V-yards.1" in ids  # §8
    assert "R7.4" in ids and "C-stock.2" in ids  # Decision lines in §4 and §5
    assert "R8.1.3" not in ids  # an entry with no Decision line


def test_every_kind_is_one_of_four_words() -> None:
    wrong = {row[0]: row[2] for row in audit_rows() if row[2] not in KINDS}
    assert not wrong, f"kinds not in {sorted(KINDS)}: {wrong}"


def test_every_row_quotes_a_sentence_or_says_none() -> None:
    for rule_id, sentences, kind, why in audit_rows():
        quotes = QUOTE.findall(sentences)
        assert quotes or sentences.startswith(NONE), f"{rule_id}: no quote and no {NONE!r}"
        assert not (quotes and sentences.startswith(NONE)), f"{rule_id}: quotes after 'none'"
        assert sentences.count('"') % 2 == 0, f"{rule_id}: an unbalanced double quote"
        if kind in ("contradicts", "reads a sentence"):
            assert quotes, f"{rule_id}: a {kind!r} row must quote the sentence"
        assert why, f"{rule_id}: no reason given"


def test_every_quote_is_verbatim_in_a_seed_file() -> None:
    seeds = seed_texts()
    missing = [
        (row[0], quote)
        for row in audit_rows()
        for quote in QUOTE.findall(row[1])
        if not any(normalise(quote) in seed for seed in seeds)
    ]
    assert not missing, f"quotes found in no seed file: {missing}"


def test_the_contradicting_rows_are_the_listed_ones() -> None:
    marked = {row[0] for row in audit_rows() if row[2] == "contradicts"}
    assert marked == CONTRADICTS


def test_normalise_folds_whitespace_and_typographic_quotes() -> None:
    assert normalise("Grocer’s\n  Warehouse “in”") == 'Grocer\'s Warehouse "in"'
    assert normalise("Case") != normalise("case")
