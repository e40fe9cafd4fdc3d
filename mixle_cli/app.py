"""The ``mixle`` command: a thin Typer app over the ``substrate`` library."""

from __future__ import annotations

from typing import Annotated

import typer

from mixle_cli.commands import answers, audit, governance, ingest, items, secrets
from mixle_cli.context import AppState

app = typer.Typer(
    name="mixle",
    help="A local knowledge substrate: ingest, search, retrieve and answer with citations.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        from substrate import __version__

        typer.echo(f"mixle {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            envvar="MIXLE_SHARD",
            help="Shard directory. Default: $MIXLE_SHARD, the nearest .mixle/ above the "
            "working directory, or the per-user default shard.",
            show_envvar=False,
        ),
    ] = None,
    team: Annotated[
        str | None,
        typer.Option(
            "--as",
            help="Read as this team: its own scope plus the shared scopes. "
            "Default: $MIXLE_TEAM, else \\[shard] team in mixle.toml, else every scope.",
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    ctx.obj = AppState(shard_option=shard, team_option=team)
    ctx.call_on_close(ctx.obj.close)


items.register(app)
ingest.register(app)
answers.register(app)
secrets.register(app)
governance.register(app)
audit.register(app)


def main() -> None:
    app()
