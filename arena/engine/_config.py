"""The game configuration: one frozen, keyword-only record that every layer reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from arena.engine._errors import ConfigError

MAX_CHIPS = 1 << 40
"""The most chips any amount (blind, bet, ante, stack) may be: far beyond any real game,
well inside the protocol's int64 even when seven stacks and a pot add up."""


class Structure(StrEnum):
    """Betting structure (R12)."""

    FIXED_LIMIT = "fixed_limit"
    POT_LIMIT = "pot_limit"
    NO_LIMIT = "no_limit"


class ForcedBets(StrEnum):
    """Blinds (R6, the default) or antes only (R27)."""

    BLINDS = "blinds"
    ANTES = "antes"


class Opening(StrEnum):
    """Who may open the betting (R28)."""

    ANY = "any"
    JACKS_OR_BETTER = "jacks_or_better"


class JokerMode(StrEnum):
    """The optional 53rd card (R2)."""

    OFF = "off"
    BUG = "bug"
    WILD = "wild"


class ShowdownReveal(StrEnum):
    """Which hands are shown at showdown (R19)."""

    ALL = "all"
    MUCK = "muck"


@dataclass(frozen=True, slots=True, kw_only=True)
class GameConfig:
    """Everything that defines the game at one table.

    Fixed limit: ``small_bet`` is the bet before the draw and ``big_bet`` after it
    (twice the small bet unless given); the blinds default to the small bet and half
    of it (R6). Pot and no limit: the minimum bet is ``big_blind`` (R12).
    """

    structure: Structure = Structure.FIXED_LIMIT
    small_blind: int | None = None
    big_blind: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    ante: int = 0
    max_draw: int = 5
    forced_bets: ForcedBets = ForcedBets.BLINDS
    opening: Opening = Opening.ANY
    joker: JokerMode = JokerMode.OFF
    showdown_reveal: ShowdownReveal = ShowdownReveal.ALL
    uncapped_heads_up: bool = False
    max_bets_per_round: int = field(default=4)

    def __post_init__(self) -> None:
        for key, enum in (
            ("structure", Structure),
            ("forced_bets", ForcedBets),
            ("opening", Opening),
            ("joker", JokerMode),
            ("showdown_reveal", ShowdownReveal),
        ):
            value = getattr(self, key)
            try:
                object.__setattr__(self, key, enum(value))
            except ValueError:
                allowed = ", ".join(repr(member.value) for member in enum)
                raise ConfigError(key, f"{value!r} is not one of {allowed}") from None
        for key in ("small_blind", "big_blind", "small_bet", "big_bet"):
            # Check what was given before deriving the rest, so 0 is not taken as
            # "unset" and an error names the setting the user wrote.
            value = getattr(self, key)
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value <= 0
            ):
                raise ConfigError(key, f"must be a positive whole number of chips, got {value!r}")
        if self.structure is Structure.FIXED_LIMIT:
            small_bet = self.small_bet or self.big_blind or 2
            object.__setattr__(self, "small_bet", small_bet)
            object.__setattr__(self, "big_bet", self.big_bet or 2 * small_bet)
            object.__setattr__(self, "big_blind", self.big_blind or small_bet)
            object.__setattr__(self, "small_blind", self.small_blind or max(1, small_bet // 2))
        else:
            big_blind = self.big_blind or 2
            object.__setattr__(self, "big_blind", big_blind)
            object.__setattr__(self, "small_blind", self.small_blind or max(1, big_blind // 2))
            object.__setattr__(self, "small_bet", self.small_bet or big_blind)
            object.__setattr__(self, "big_bet", self.big_bet or big_blind)
        for key in ("small_blind", "big_blind", "small_bet", "big_bet"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(key, f"must be a positive whole number of chips, got {value!r}")
            if value > MAX_CHIPS:
                raise ConfigError(key, f"must be at most {MAX_CHIPS} chips, got {value}")
        if self.small_blind > self.big_blind:  # type: ignore[operator]  # both filled and checked just above
            raise ConfigError("small_blind", "must not exceed big_blind")
        if not isinstance(self.ante, int) or self.ante < 0 or self.ante > MAX_CHIPS:
            raise ConfigError(
                "ante", f"must be a whole number from 0 to {MAX_CHIPS}, got {self.ante!r}"
            )
        if self.max_draw not in (3, 4, 5):
            raise ConfigError("max_draw", f"must be 3, 4 or 5 (R15), got {self.max_draw!r}")
        if self.max_bets_per_round < 2:
            raise ConfigError("max_bets_per_round", "must be at least 2")
        if self.forced_bets is ForcedBets.ANTES and self.ante <= 0:
            raise ConfigError("ante", "forced_bets = 'antes' needs an ante above 0 (R27)")
        if self.opening is Opening.JACKS_OR_BETTER and self.forced_bets is not ForcedBets.ANTES:
            raise ConfigError(
                "opening", "'jacks_or_better' is an ante game: set forced_bets = 'antes' (R28)"
            )

    @property
    def min_bet(self) -> int:
        """Smallest opening bet in pot and no limit (R12)."""
        return self.big_blind  # type: ignore[return-value]  # __post_init__ always fills big_blind

    @property
    def uses_joker(self) -> bool:
        return self.joker is not JokerMode.OFF
