"""Rolling stock as small ints (C-stock.1).

Pieces of one type and load state are interchangeable, so a car is its code:
``code = type_index * 2 + loaded``. Containers hold codes; yards hold counts per code.
"""

CAR_TYPES: tuple[str, ...] = ("coach", "boxcar", "hopper", "reefer", "tank", "caboose")
COACH, BOXCAR, HOPPER, REEFER, TANK, CABOOSE = range(6)
N_CAR_CODES = 2 * len(CAR_TYPES)
CABOOSE_CODE = CABOOSE * 2 + 1  # cabooses are red: always "loaded" (C-stock.1)


def car_code(type_index: int, loaded: bool) -> int:
    return type_index * 2 + int(loaded)


def car_type(code: int) -> int:
    return code >> 1


def car_name(code: int) -> str:
    """'loaded boxcar', 'empty coach', 'caboose' ('car code 99' for a code that is none)."""
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
