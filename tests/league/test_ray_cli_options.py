"""``arena league run``'s Ray options reach the executor's settings."""

from __future__ import annotations

import pytest
import typer

from league.cli.leagues import _ray_options


def test_ship_bots_reaches_the_ray_options() -> None:
    options = _ray_options("ray", "auto", 0.5, None, True)
    assert options is not None
    assert (options.address, options.cpus_per_match, options.ship_bots) == ("auto", 0.5, True)
    options = _ray_options("ray", None, 1.0, None, False)
    assert options is not None and options.ship_bots is False


def test_ray_only_options_need_the_ray_executor(capsys: pytest.CaptureFixture[str]) -> None:
    assert _ray_options("local", None, 1.0, None, False) is None
    with pytest.raises(typer.Exit) as refused:
        _ray_options("local", None, 1.0, None, True)
    assert refused.value.exit_code == 2
    assert "--ray-ship-bots need --executor ray" in capsys.readouterr().err
