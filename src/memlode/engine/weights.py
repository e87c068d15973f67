"""The ranking weights a user sets at run time: stored in the store (so every process that
opens it ranks alike), over the configured ones (config file, environment), over the defaults."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from memlode.config import Settings, normalise_weights
from memlode.errors import InvalidInput
from memlode.storage.store_settings import delete_setting, get_setting, put_setting

if TYPE_CHECKING:
    from memlode.storage.store import Store

__all__ = ["WEIGHTS_KEY", "effective", "reset", "store"]

WEIGHTS_KEY = "weights"  # store_settings: the ranking weights set at run time


def effective(conn: sqlite3.Connection, settings: Settings) -> dict[str, float]:
    """Effective signal weights: set at run time (stored) > config/env > defaults."""
    stored = get_setting(conn, WEIGHTS_KEY)
    if stored is not None:
        try:
            return normalise_weights(json.loads(stored))
        except (InvalidInput, ValueError, TypeError):
            pass  # a damaged setting falls back to the configured weights
    return settings.effective_weights


def store(
    db: Store, settings: Settings, weights: dict[str, float], *, merge: bool = True
) -> dict[str, float]:
    """Store new weights (merged over the current ones unless ``merge`` is False)."""
    if not isinstance(weights, dict) or not weights:
        raise InvalidInput('give weights as {"signal": number}, e.g. {"bm25": 0.4}')
    try:
        numbers = {str(k): float(v) for k, v in weights.items()}
    except (TypeError, ValueError):
        raise InvalidInput("every weight must be a number") from None
    base = effective(db.conn, settings) if merge else {}
    result = normalise_weights({**base, **numbers})
    with db.write() as conn:
        put_setting(conn, WEIGHTS_KEY, json.dumps(result))
    return result


def reset(db: Store, settings: Settings) -> dict[str, float]:
    """Forget the weights set at run time; return the configured ones."""
    with db.write() as conn:
        delete_setting(conn, WEIGHTS_KEY)
    return effective(db.conn, settings)
