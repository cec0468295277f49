"""Rolling stock as small ints (C-stock.1).

Pieces of one type and load state are interchangeable, so a car is its code:
``code = type_index * 2 + loaded``. Containers hold codes; yards hold counts per code.
A car loaded or boarded on this visit is "flipped onto its roof" (R9.3.4): its code carries
the ``FLIPPED`` bit until its train highballs. Flipped cars stand in stations and ride in
trays only; a car leaving play is always stored unflipped.
"""

CAR_TYPES: tuple[str, ...] = ("coach", "boxcar", "hopper", "reefer", "tank", "caboose")
COACH, BOXCAR, HOPPER, REEFER, TANK, CABOOSE = range(6)
N_CAR_CODES = 2 * len(CAR_TYPES)
CABOOSE_CODE = CABOOSE * 2 + 1  # cabooses are red: always "loaded" (C-stock.1)
EMPTY_COACH = COACH * 2
LOADED_COACH = COACH * 2 + 1  # passengers (R9.2)
FLIPPED = 16  # R9.3.4: loaded this visit, may not be unloaded before its train highballs
ENGINE = -1  # marks the engine in a consist; not rolling stock (C-stock.3)


def car_code(type_index: int, loaded: bool) -> int:
    return type_index * 2 + int(loaded)


def car_type(code: int) -> int:
    return (code & ~FLIPPED) >> 1


def unflipped(code: int) -> int:
    return code & ~FLIPPED


def is_flipped(code: int) -> bool:
    return code >= 0 and bool(code & FLIPPED)


def car_name(code: int) -> str:
    """'loaded boxcar', 'empty coach', 'caboose', 'loaded coach (flipped)' ('car code 99' for
    a code that is none)."""
    if code >= 0 and code & FLIPPED and 0 <= code - FLIPPED < N_CAR_CODES:
        return f"{car_name(code - FLIPPED)} (flipped)"
    if not 0 <= code < N_CAR_CODES:
        return f"car code {code}"
    if code >> 1 == CABOOSE:
        return "caboose"
    return f"{'loaded' if code & 1 else 'empty'} {CAR_TYPES[code >> 1]}"


def car_type_index(name: str) -> int:
    """Index of a car type by name; ValueError names the known types."""
    try:
        return CAR_TYPES.index(name)
    except ValueError:
        raise ValueError(f"unknown car type {name!r} (known: {', '.join(CAR_TYPES)})") from None
