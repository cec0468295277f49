"""``station-master serve``: the table in a browser, on a local web server (uvicorn)."""

from __future__ import annotations

import argparse
import socket

from experiments.command import Command

DEFAULT_HOST = "127.0.0.1"  # a table is for this machine unless told otherwise
DEFAULT_PORT = 8765
DEFAULT_GAMES = "station-master-games"


def _add_serve_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}: this machine only)",
    )
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument(
        "--games",
        default=DEFAULT_GAMES,
        metavar="DIR",
        help=f"folder of the saved games, saved after every decision (default {DEFAULT_GAMES})",
    )


def _run_serve(args: argparse.Namespace) -> int:
    import uvicorn  # noqa: PLC0415 (the server's stack loads only for this command)

    from experiments.play.web.games import GameStore  # noqa: PLC0415
    from experiments.play.web.server import make_app  # noqa: PLC0415

    if not 0 < args.port < 65536:
        raise OSError(f"--port must be 1..65535, got {args.port}")
    try:  # a clear error for a port in use or an address not of this machine, before the server starts
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as err:
        raise OSError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    app = make_app(GameStore(args.games))
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(
        f"Station Master table: open http://{host}:{args.port}/ (games saved in {args.games}; Ctrl-C stops)",
        flush=True,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


SERVE = Command(
    "serve", "play at a table in your browser (a local web server)", _add_serve_arguments, _run_serve
)
