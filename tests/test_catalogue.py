"""The card catalogue: the packaged default matches the components sheet and rules, and the
loader rejects malformed catalogues with a message naming the file, the place and the problem."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from sm_env.core.cars import CAR_TYPES, car_code
from sm_env.core.catalogue import (
    CardKind,
    Catalogue,
    Deck,
    load_catalogue,
    parse_catalogue,
)
from sm_env.core.errors import CatalogueError

DEFAULT_TEXT = resources.files("sm_env.core.data").joinpath("cards.json").read_text(encoding="utf-8")
DEFAULT_DATA: dict[str, Any] = json.loads(DEFAULT_TEXT)
INDEX = {card["id"]: i for i, card in enumerate(DEFAULT_DATA["cards"])}


def at(card_id: str) -> str:
    """Error location of a default card, e.g. "cards[17] ('freight-house')"."""
    return f"cards[{INDEX[card_id]}] ({card_id!r})"


def card(data: dict[str, Any], card_id: str) -> dict[str, Any]:
    found: dict[str, Any] = data["cards"][INDEX[card_id]]
    return found


@pytest.fixture(scope="module")
def cat() -> Catalogue:
    return load_catalogue()


# --- the default catalogue ----------------------------------------------------------------------


def test_default_loads_once_and_equals_a_fresh_parse(cat: Catalogue) -> None:
    assert load_catalogue() is cat
    assert parse_catalogue(copy.deepcopy(DEFAULT_DATA), "copy") == cat
    assert cat.source.endswith("cards.json")


def test_loads_from_an_explicit_path(tmp_path: Path, cat: Catalogue) -> None:
    path = tmp_path / "mine.json"
    path.write_text(DEFAULT_TEXT, encoding="utf-8")
    loaded = load_catalogue(path)
    assert loaded == cat
    assert loaded.source == str(path)


def test_rolling_stock_supply_per_type_C_stock_1(cat: Catalogue) -> None:
    # the components table's rows; its "Total" row says 78 (35 empty), but the rows add up to
    # 80 (37 empty): the per-type rows are what the catalogue carries
    table = {
        "coach": (8, 8),
        "boxcar": (10, 10),
        "hopper": (8, 8),
        "reefer": (5, 5),
        "tank": (6, 6),
        "caboose": (6, 0),
    }
    assert tuple(zip(cat.stock_loaded, cat.stock_empty, strict=True)) == tuple(table[t] for t in CAR_TYPES)
    supply = cat.car_supply()
    assert len(supply) == 2 * len(CAR_TYPES)
    for type_index, name in enumerate(CAR_TYPES):
        assert supply[car_code(type_index, True)] == table[name][0]
        assert supply[car_code(type_index, False)] == table[name][1]
    assert sum(cat.stock_loaded) == 43


@pytest.mark.parametrize(
    ("card_id", "outbound", "inbound"),
    [
        ("freight-house", ["boxcar"], ["boxcar"]),
        ("mine-tipple", ["hopper"], []),
        ("packing-sheds", ["reefer"], []),
        ("grocers-warehouse", [], ["boxcar", "reefer"]),
        ("refinery", ["tank"], []),
        ("power-plant", [], ["hopper", "tank"]),
    ],
)
def test_freight_facility_box_types_C_stock_1(
    cat: Catalogue, card_id: str, outbound: list[str], inbound: list[str]
) -> None:
    """C-stock.1: each freight facility's green and red boxes take the car types of the table."""
    facility = cat.card(card_id).facility
    assert facility is not None and facility.category == "freight"
    assert [CAR_TYPES[t] for t in facility.outbound] == outbound
    assert [CAR_TYPES[t] for t in facility.inbound] == inbound


def test_freight_facilities_are_exactly_the_six_of_the_table(cat: Catalogue) -> None:
    ids = {cat.cards[i].id for i in cat.of_kind(CardKind.FACILITY)}
    assert ids == {
        "freight-house",
        "mine-tipple",
        "packing-sheds",
        "grocers-warehouse",
        "refinery",
        "power-plant",
    }


def test_timetabled_trains_odd_west_even_east_R2_3_1(cat: Catalogue) -> None:
    """R2.3.1: trains 1-12, odd numbers westbound, even numbers eastbound."""
    assert sorted(cat.train_by_number) == list(range(1, 13))
    for number, index in cat.train_by_number.items():
        train = cat.cards[index]
        assert train.id == f"train-{number}" and train.kind is CardKind.TRAIN
        assert train.train is not None and train.train.number == number
        assert train.train.direction == ("west" if number % 2 else "east")


@pytest.mark.parametrize(
    ("numbers", "allowed", "caboose"),
    [
        ((1, 2), {"coach": 4}, "forbidden"),
        ((3, 4), {"coach": 2, "boxcar": 2}, "forbidden"),
        ((5, 6), {"coach": 2, "boxcar": 1, "reefer": 1}, "required"),
        ((7, 8), {"boxcar": 3, "reefer": 3}, "required"),
        ((9, 10), {"hopper": 3}, "required"),
        ((11, 12), {"boxcar": 3, "hopper": 3, "reefer": 3, "tank": 3}, "permitted"),
    ],
)
def test_timetabled_consists(
    cat: Catalogue, numbers: tuple[int, int], allowed: dict[str, int], caboose: str
) -> None:
    for number in numbers:
        train = cat.cards[cat.train_by_number[number]].train
        assert train is not None
        consist = train.consist
        assert (consist.max_cars, consist.caboose) == (4, caboose)
        assert {CAR_TYPES[t]: n for t, n in consist.allowed} == allowed


def test_extras(cat: Catalogue) -> None:
    extras = [cat.cards[i] for i in cat.of_kind(CardKind.EXTRA_TRAIN)]
    assert [(c.id, c.name) for c in extras] == [
        ("extra-3", "Extra X3"),
        ("extra-6", "Extra X6"),
        ("extra-9", "Extra X9"),
        ("extra-11", "Extra X11"),
    ]
    for extra in extras:
        assert extra.train is not None
        assert extra.train.extra and extra.train.direction == "either"
        assert extra.train.number == int(extra.id.removeprefix("extra-"))


EXPECTED_DECKS = {
    Deck.SETUP: {"whistle-post": 6, "limits": 12, "division-point-east": 1, "division-point-west": 1},
    Deck.MAINLINE: {"mainline-1": 4, "mainline-2": 4},
    Deck.HOME_OFFICE: {
        "depot": 4,
        "station": 3,
        "terminal": 2,
        "straight": 8,
        "straight-plain": 4,
        "turnout-right": 3,
        "turnout-right-plain": 3,
        "turnout-left": 3,
        "turnout-left-plain": 3,
        "junction": 2,
        "freight-house": 3,
        "mine-tipple": 2,
        "packing-sheds": 2,
        "grocers-warehouse": 2,
        "refinery": 2,
        "power-plant": 2,
        "loading-dock": 2,
        "warehouse-annex": 2,
        "baggage-room": 2,
        "waiting-room": 2,
        **{f"train-{n}": 1 for n in range(1, 13)},
        **{f"extra-{n}": 1 for n in (3, 6, 9, 11)},
    },
    Deck.TOOLBOX: {"red-flag": 6},
}


@pytest.mark.parametrize("deck", list(Deck))
def test_deck_contents(cat: Catalogue, deck: Deck) -> None:
    cards = cat.deck(deck)
    assert Counter(cat.cards[i].id for i in cards) == EXPECTED_DECKS[deck]
    assert cards == sorted(cards)  # catalogue order, copies together


def test_offices(cat: Catalogue) -> None:
    rows = []
    for index in cat.of_kind(CardKind.OFFICE):
        office = cat.cards[index]
        assert office.office is not None and office.track is not None
        assert office.track.ends == ("W", "E") and office.track.wheel
        facility = office.facility
        boxes = None
        if facility is not None:
            assert facility.outbound == facility.inbound == (CAR_TYPES.index("coach"),)
            boxes = (facility.outbound_capacity, facility.inbound_capacity, facility.shared_capacity)
            assert (facility.laborers, facility.men_at_work) == (0, False)
        porters = facility.porters if facility else 0
        rows.append(
            (
                office.id,
                office.office.tier,
                office.office.control_point,
                office.office.ad_tracks,
                porters,
                boxes,
            )
        )
    assert rows == [
        ("whistle-post", 0, False, 1, 0, None),
        ("depot", 1, True, 2, 1, (2, 2, 2)),  # R2.1.11: a Depot has 2 A/D tracks (edition 2)
        ("station", 2, True, 2, 2, (2, 2, None)),
        ("terminal", 3, True, 3, 3, (3, 3, None)),
    ]


def test_track_pieces(cat: Catalogue) -> None:
    pieces = {}
    for index in cat.of_kind(CardKind.TRACK):
        track = cat.cards[index].track
        assert track is not None
        pieces[cat.cards[index].id] = (track.shape, track.ends, track.wheel, track.points)
    assert pieces == {
        "straight": ("straight", ("W", "E"), True, None),
        "straight-plain": ("straight", ("W", "E"), False, None),
        "turnout-right": ("turnout", ("W", "E", "NE"), True, ("W", "NE", "E")),
        "turnout-right-plain": ("turnout", ("W", "E", "NE"), False, ("W", "NE", "E")),
        "turnout-left": ("turnout", ("W", "E", "SE"), True, ("W", "SE", "E")),
        "turnout-left-plain": ("turnout", ("W", "E", "SE"), False, ("W", "SE", "E")),
        "junction": ("junction", ("W", "SW", "E", "SE"), True, None),
    }
    industry = cat.card("mine-tipple").track
    assert industry is not None and (industry.ends, industry.wheel, industry.track_capacity) == (
        ("W",),
        True,
        4,
    )


def test_modifiers_and_workers(cat: Catalogue) -> None:
    mods = {}
    for i in cat.of_kind(CardKind.MODIFIER):
        spec = cat.cards[i].modifier
        assert spec is not None
        mods[cat.cards[i].id] = (spec.applies_to, spec.laborers, spec.porters, spec.capacity)
    assert mods == {
        "loading-dock": ("freight", 1, 0, 0),
        "warehouse-annex": ("freight", 0, 0, 1),
        "baggage-room": ("passenger", 0, 1, 0),
        "waiting-room": ("passenger", 0, 0, 1),
    }
    assert [(w.id, w.icon, w.uses_per_stage) for w in cat.workers] == [
        ("laborer", "blue", 1),
        ("porter", "black", 1),
        ("freight-agent", "none", 1),
    ]


def test_card_lookup(cat: Catalogue) -> None:
    assert cat.card("red-flag").kind is CardKind.RED_FLAG
    with pytest.raises(KeyError, match="no card type 'caboose'"):
        cat.card("caboose")
    with pytest.raises(TypeError):
        cat.by_id["x"] = 0  # type: ignore[index]  # the shared default must stay read-only


# --- malformed catalogues -----------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _set(card_id: str, path: str, value: object) -> Mutation:
    """Set a (dotted) field of a default card."""

    def mutate(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = card(data, card_id)
        for key in parents:
            target = target[key]
        target[last] = value

    return mutate


def _drop(card_id: str, key: str) -> Mutation:
    return lambda data: card(data, card_id).pop(key)


def _top(key: str, value: object) -> Mutation:
    return lambda data: data.__setitem__(key, value)


MALFORMED: list[tuple[str, Mutation, str]] = [
    ("unknown top key", _top("extras", 1), 'top level: unknown key "extras"'),
    ("missing top key", lambda d: d.pop("workers"), 'top level: missing key "workers"'),
    ("empty object", lambda d: d.clear(), 'top level: missing key "format"'),
    ("format", _top("format", "cards"), 'format must be "station-master-catalogue", got "cards"'),
    ("bool version", _top("version", True), "version must be 1 (the only format version), got true"),
    ("rules version", _top("rules_version", "0.1"), 'rules_version must be "0.4.5"'),
    ("cards not a list", _top("cards", {}), "cards must be a JSON list, got {}"),
    ("card not an object", lambda d: d["cards"].__setitem__(0, 5), "cards[0]: must be a JSON object, got 5"),
    ("stock order", lambda d: d["rolling_stock"].reverse(), 'rolling_stock[0]: type must be "coach"'),
    ("stock short", lambda d: d["rolling_stock"].pop(), "rolling_stock must list the 6 car types"),
    (
        "stock negative",
        lambda d: d["rolling_stock"][1].update(loaded=-1),
        "rolling_stock[1]: loaded must be an integer >= 0, got -1",
    ),
    (
        "empty caboose",
        lambda d: d["rolling_stock"][5].update(empty=1),
        "rolling_stock[5]: empty must be 0 (a caboose is always red",
    ),
    (
        "stock unknown key",
        lambda d: d["rolling_stock"][0].update(colour="blue"),
        'rolling_stock[0]: unknown key "colour"',
    ),
    (
        "worker repeated",
        lambda d: d["workers"][1].update(id="laborer"),
        "workers[1] ('laborer'): id repeats workers[0]",
    ),
    (
        "worker missing",
        lambda d: d["workers"].pop(2),
        "workers: must include laborer, porter, freight-agent; missing freight-agent",
    ),
    (
        "worker uses float",
        lambda d: d["workers"][0].update(uses_per_stage=1.0),
        "workers[0] ('laborer'): uses_per_stage must be an integer >= 1, got 1.0",
    ),
    (
        "laborers negative",
        _set("freight-house", "facility.laborers", -1),
        f"{at('freight-house')}: facility.laborers must be an integer >= 1 for a freight facility, got -1",
    ),
    (
        "id not kebab",
        _set("depot", "id", "Depot"),
        f"cards[{INDEX['depot']}]: id must be lower-case kebab-case",
    ),
    (
        "id repeated",
        _set("station", "id", "depot"),
        f"cards[{INDEX['station']}] ('depot'): id repeats cards[{INDEX['depot']}]",
    ),
    ("count bool", _set("depot", "count", True), f"{at('depot')}: count must be an integer >= 0, got true"),
    ("count string", _set("depot", "count", "4"), f'{at("depot")}: count must be an integer >= 0, got "4"'),
    ("empty name", _set("depot", "name", " "), f'{at("depot")}: name must be a non-empty string, got " "'),
    ("bad kind", _set("depot", "kind", "station"), f'{at("depot")}: kind must be one of "office", "limits"'),
    (
        "bad deck",
        _set("depot", "deck", "discard"),
        f'{at("depot")}: deck must be one of "home_office", "setup"',
    ),
    (
        "wrong deck",
        _set("train-1", "deck", "setup"),
        f'{at("train-1")}: deck must be "home_office" for this train card, got "setup"',
    ),
    (
        "key of other kind",
        _set("mainline-2", "tier", 1),
        f'{at("mainline-2")}: unknown key "tier" for kind "mainline"',
    ),
    ("missing kind key", _drop("train-3", "consist"), f'{at("train-3")}: missing key "consist"'),
    (
        "regions",
        _set("mainline-2", "regions", 0),
        f"{at('mainline-2')}: regions must be an integer >= 1, got 0",
    ),
    ("tier", _set("terminal", "tier", 4), f"{at('terminal')}: tier must be an integer in 0..3, got 4"),
    (
        "whistle post control point",
        _set("whistle-post", "control_point", True),
        f"{at('whistle-post')}: control_point must be false",
    ),
    (
        "whistle post facility",
        _set("whistle-post", "facility", {}),
        f"{at('whistle-post')}: facility must be absent",
    ),
    ("office missing facility", _drop("station", "facility"), f'{at("station")}: missing key "facility"'),
    (
        "office track",
        _set("depot", "track.ends", ["W"]),
        f'{at("depot")}: track.ends must be ["W", "E"] on the Running Track',
    ),
    (
        "wheel int",
        _set("limits", "track.wheel", 1),
        f"{at('limits')}: track.wheel must be true (the Running Track is Operational Rail), got 1",
    ),
    (
        "passenger boxes",
        _set("depot", "facility.outbound", ["boxcar"]),
        f'{at("depot")}: facility.outbound must be ["coach"] for a passenger facility',
    ),
    (
        "passenger porters",
        _set("station", "facility.porters", 0),
        f"{at('station')}: facility.porters must be an integer >= 1 for a passenger facility, got 0",
    ),
    (
        "passenger laborers",
        _set("station", "facility.laborers", 1),
        f"{at('station')}: facility.laborers must be 0 for a passenger facility, got 1",
    ),
    (
        "freight coach",
        _set("grocers-warehouse", "facility.inbound", ["boxcar", "coach"]),
        f"{at('grocers-warehouse')}: facility.inbound must not take coaches or cabooses",
    ),
    (
        "unknown car type",
        _set("refinery", "facility.outbound", ["oil"]),
        f"{at('refinery')}: facility.outbound[0] must be a car type (coach, boxcar",
    ),
    (
        "repeated car type",
        _set("power-plant", "facility.inbound", ["tank", "tank"]),
        f'{at("power-plant")}: facility.inbound[1] repeats car type "tank"',
    ),
    (
        "no boxes",
        _set("refinery", "facility.outbound", []),
        f"{at('refinery')}: facility: needs an outbound or an inbound box",
    ),
    (
        "men at work",
        _set("mine-tipple", "facility.men_at_work", False),
        f"{at('mine-tipple')}: facility.men_at_work must be true for a freight facility, got false",
    ),
    (
        "freight porters",
        _set("mine-tipple", "facility.porters", 1),
        f"{at('mine-tipple')}: facility.porters must be 0 for a freight facility, got 1",
    ),
    (
        "wrong category",
        _set("mine-tipple", "facility.category", "passenger"),
        f'{at("mine-tipple")}: facility.category must be "freight" on this card',
    ),
    (
        "capacity missing",
        _set("mine-tipple", "facility.capacity", {}),
        f'{at("mine-tipple")}: facility.capacity: missing key "outbound"',
    ),
    (
        "capacity of empty box",
        _set("mine-tipple", "facility.capacity.inbound", 2),
        f"{at('mine-tipple')}: facility.capacity.inbound must be 0 (the inbound box list is empty), got 2",
    ),
    (
        "shared one box",
        _set("mine-tipple", "facility.capacity", {"shared": 3}),
        f"{at('mine-tipple')}: facility.capacity.shared needs both an outbound and an inbound box",
    ),
    (
        "shared and own",
        _set("freight-house", "facility.capacity.outbound", 3),
        f'{at("freight-house")}: facility.capacity: unknown key "outbound" beside "shared"',
    ),
    (
        "industry capacity",
        _set("refinery", "track", {"ends": ["W"], "wheel": True}),
        f'{at("refinery")}: track: missing key "track_capacity"',
    ),
    (
        "track capacity on plain track",
        _set("straight", "track.track_capacity", 4),
        f'{at("straight")}: track: unknown key "track_capacity"; track_capacity is only',
    ),
    (
        "bad end",
        _set("straight", "track.ends", ["W", "N"]),
        f'{at("straight")}: track.ends[1] must be a track end (W, E, NW, NE, SW, SE), got "N"',
    ),
    (
        "repeated end",
        _set("straight", "track.ends", ["W", "W"]),
        f'{at("straight")}: track.ends[1] repeats end "W"',
    ),
    (
        "no ends",
        _set("straight", "track.ends", []),
        f"{at('straight')}: track.ends must list at least one end",
    ),
    (
        "straight sides",
        _set("straight", "track.ends", ["W", "NW"]),
        f"{at('straight')}: track.ends must have 1 west-side and 1 east-side end(s) for a straight",
    ),
    (
        "junction sides",
        _set("junction", "track.ends", ["W", "SW", "E"]),
        f"{at('junction')}: track.ends must have 2 west-side and 2 east-side end(s) for a junction",
    ),
    (
        "bad shape",
        _set("junction", "shape", "crossing"),
        f'{at("junction")}: shape must be one of "straight", "turnout", "junction"',
    ),
    (
        "points on straight",
        _set("straight", "points", {"a": "W", "b": "E", "c": "E"}),
        f"{at('straight')}: points must be absent: only a turnout has points",
    ),
    (
        "turnout without points",
        _drop("turnout-left", "points"),
        f'{at("turnout-left")}: missing key "points"',
    ),
    (
        "point not an end",
        _set("turnout-right", "points.b", "SE"),
        f'{at("turnout-right")}: points.b must be one of "W", "E", "NE" (one of the track\'s ends), got "SE"',
    ),
    (
        "points same side",
        _set("turnout-right", "points", {"a": "E", "b": "NE", "c": "W"}),
        f"{at('turnout-right')}: points must be three ends with b and c on the side opposite a (A.1)",
    ),
    (
        "turnout ends",
        _set("turnout-left", "track.ends", ["W", "E", "SE", "NE"]),
        f"{at('turnout-left')}: track.ends must have 3 ends for a turnout",
    ),
    (
        "modifier adds nothing",
        _set("loading-dock", "adds.laborers", 0),
        f"{at('loading-dock')}: adds: must add at least one laborer, porter or capacity",
    ),
    (
        "freight modifier porters",
        _set("warehouse-annex", "adds.porters", 1),
        f"{at('warehouse-annex')}: adds.porters must be 0 (freight facilities have no Porters), got 1",
    ),
    (
        "modifier missing key",
        _set("baggage-room", "adds", {"porters": 1}),
        f'{at("baggage-room")}: adds: missing key "laborers"',
    ),
    (
        "applies to",
        _set("waiting-room", "applies_to", "coach"),
        f'{at("waiting-room")}: applies_to must be "freight" or "passenger", got "coach"',
    ),
    (
        "train direction",
        _set("train-3", "direction", "east"),
        f'{at("train-3")}: direction must be "west" for odd train 3 (R2.3.1), got "east"',
    ),
    (
        "train number range",
        _set("train-12", "number", 13),
        f"{at('train-12')}: number must be an integer in 1..12, got 13",
    ),
    ("train count", _set("train-5", "count", 2), f"{at('train-5')}: count must be an integer in 0..1"),
    (
        "train number repeated",
        lambda d: card(d, "train-4").update(number=3, direction="west"),
        f"{at('train-4')}: number 3 repeats {at('train-3')}",
    ),
    (
        "train missing",
        lambda d: d["cards"].pop(INDEX["train-12"]),
        "cards: need one train card per timetable number 1-12 (R2.3.1); missing 12",
    ),
    ("extra direction", _set("extra-6", "direction", "west"), f'{at("extra-6")}: direction must be "either"'),
    (
        "extra number repeated",
        _set("extra-6", "number", 3),
        f"{at('extra-6')}: number 3 repeats {at('extra-3')}",
    ),
    (
        "consist too long",
        _set("train-7", "consist.allowed.boxcar", 4),
        f"{at('train-7')}: consist.allowed.boxcar must be an integer in 1..3 "
        "(max_cars 4, less the required caboose), got 4",
    ),
    (
        "consist max cars",
        _set("train-1", "consist.max_cars", 5),
        f"{at('train-1')}: consist.max_cars must be an integer in 1..4",
    ),
    (
        "consist caboose key",
        _set("train-9", "consist.allowed.caboose", 1),
        f"{at('train-9')}: consist.allowed.caboose must not be listed",
    ),
    (
        "consist car type",
        _set("train-9", "consist.allowed.plane", 1),
        f"{at('train-9')}: consist.allowed.plane must be a car type",
    ),
    (
        "consist empty",
        _set("train-9", "consist.allowed", {}),
        f"{at('train-9')}: consist.allowed must allow at least one car type",
    ),
    (
        "caboose rule",
        _set("train-9", "consist.caboose", "maybe"),
        f'{at("train-9")}: consist.caboose must be one of "required", "permitted", "forbidden"',
    ),
    (
        "two east division points",
        _set("division-point-east", "count", 2),
        "cards: need exactly one east division point, got 2",
    ),
    (
        "division points on one side",
        _set("division-point-west", "side", "east"),
        "cards: need exactly one east division point, got 2",
    ),
    (
        "division point not a control point",
        _set("division-point-west", "control_point", False),
        f"{at('division-point-west')}: control_point must be true",
    ),
    (
        "whistle posts",
        _set("whistle-post", "count", 5),
        "cards: need at least 6 whistle posts (one per office) for 6 offices, got 5",
    ),
    (
        "limits",
        _set("limits", "count", 11),
        "cards: need at least 12 limits cards (two per office) for 6 offices, got 11",
    ),
    (
        "mainline",
        _set("mainline-2", "count", 2),
        "cards: need at least 7 mainline cards (one per gap between offices) for 6 offices, got 6",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "expected"), [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_malformed_catalogue_is_rejected(mutate: Mutation, expected: str) -> None:
    data = copy.deepcopy(DEFAULT_DATA)
    mutate(data)
    with pytest.raises(CatalogueError) as raised:
        parse_catalogue(data, "bad.json")
    message = str(raised.value)
    assert message.startswith("bad.json: ")
    assert expected in message


def test_not_an_object_at_all() -> None:
    with pytest.raises(CatalogueError, match=r"^<data>: top level: must be a JSON object, got \[\]$"):
        parse_catalogue([])


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "station-master-catalogue",\n  "version": 1,,\n}\n', encoding="utf-8")
    with pytest.raises(CatalogueError) as raised:
        load_catalogue(path)
    assert str(raised.value).startswith(f"{path}: invalid JSON at line 3, column 16: ")


def test_duplicate_json_key_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    path.write_text(DEFAULT_TEXT.replace('"count": 12,', '"count": 12, "count": 11,'), encoding="utf-8")
    with pytest.raises(
        CatalogueError, match='duplicate key "count" in a JSON object \\(in the object with id "limits"\\)'
    ):
        load_catalogue(path)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(CatalogueError, match=f"^{path}: catalogue file not found$"):
        load_catalogue(str(path))


def test_unreadable_path(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="cannot read the catalogue file"):
        load_catalogue(tmp_path)


def test_d_mainline_1_mainline_cards_have_one_or_two_regions(cat: Catalogue) -> None:
    """D-mainline.1 (edition 2): four Mainline cards of one region and four of two."""
    cards = [cat.cards[i] for i in cat.deck(Deck.MAINLINE)]
    assert Counter(card.regions for card in cards) == {1: 4, 2: 4}
    assert {card.id: card.regions for card in cards} == {"mainline-1": 1, "mainline-2": 2}
