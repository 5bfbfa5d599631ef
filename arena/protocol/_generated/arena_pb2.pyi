from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_FOLD: _ClassVar[ActionKind]
    ACTION_KIND_CHECK: _ClassVar[ActionKind]
    ACTION_KIND_CALL: _ClassVar[ActionKind]
    ACTION_KIND_BET_RAISE: _ClassVar[ActionKind]
    ACTION_KIND_DISCARD: _ClassVar[ActionKind]

class Structure(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STRUCTURE_UNSPECIFIED: _ClassVar[Structure]
    STRUCTURE_FIXED_LIMIT: _ClassVar[Structure]
    STRUCTURE_POT_LIMIT: _ClassVar[Structure]
    STRUCTURE_NO_LIMIT: _ClassVar[Structure]

class ForcedBets(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORCED_BETS_UNSPECIFIED: _ClassVar[ForcedBets]
    FORCED_BETS_BLINDS: _ClassVar[ForcedBets]
    FORCED_BETS_ANTES: _ClassVar[ForcedBets]

class Opening(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OPENING_UNSPECIFIED: _ClassVar[Opening]
    OPENING_ANY: _ClassVar[Opening]
    OPENING_JACKS_OR_BETTER: _ClassVar[Opening]

class JokerMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JOKER_MODE_UNSPECIFIED: _ClassVar[JokerMode]
    JOKER_MODE_OFF: _ClassVar[JokerMode]
    JOKER_MODE_BUG: _ClassVar[JokerMode]
    JOKER_MODE_WILD: _ClassVar[JokerMode]

class ShowdownReveal(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SHOWDOWN_REVEAL_UNSPECIFIED: _ClassVar[ShowdownReveal]
    SHOWDOWN_REVEAL_ALL: _ClassVar[ShowdownReveal]
    SHOWDOWN_REVEAL_MUCK: _ClassVar[ShowdownReveal]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_PREDRAW_BETTING: _ClassVar[Phase]
    PHASE_DRAW: _ClassVar[Phase]
    PHASE_POSTDRAW_BETTING: _ClassVar[Phase]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_POST_ANTE: _ClassVar[EventKind]
    EVENT_KIND_POST_SMALL_BLIND: _ClassVar[EventKind]
    EVENT_KIND_POST_BIG_BLIND: _ClassVar[EventKind]
    EVENT_KIND_POST_DEAD_BLIND: _ClassVar[EventKind]
    EVENT_KIND_DEAL: _ClassVar[EventKind]
    EVENT_KIND_FOLDED: _ClassVar[EventKind]
    EVENT_KIND_CHECKED: _ClassVar[EventKind]
    EVENT_KIND_CALLED: _ClassVar[EventKind]
    EVENT_KIND_BET_RAISED: _ClassVar[EventKind]
    EVENT_KIND_DREW: _ClassVar[EventKind]
    EVENT_KIND_RESHUFFLED: _ClassVar[EventKind]
    EVENT_KIND_UNCALLED_RETURNED: _ClassVar[EventKind]
    EVENT_KIND_SHOWN: _ClassVar[EventKind]
    EVENT_KIND_MUCKED: _ClassVar[EventKind]
    EVENT_KIND_WON: _ClassVar[EventKind]
    EVENT_KIND_DEAD_HAND: _ClassVar[EventKind]
    EVENT_KIND_STREET: _ClassVar[EventKind]

class FaultReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_REASON_UNSPECIFIED: _ClassVar[FaultReason]
    FAULT_REASON_TIMEOUT: _ClassVar[FaultReason]
    FAULT_REASON_ILLEGAL_ACTION: _ClassVar[FaultReason]
    FAULT_REASON_WRONG_DECISION_ID: _ClassVar[FaultReason]
    FAULT_REASON_MALFORMED: _ClassVar[FaultReason]
    FAULT_REASON_DISCONNECTED: _ClassVar[FaultReason]
    FAULT_REASON_SAT_OUT: _ClassVar[FaultReason]
    FAULT_REASON_MEMORY_LIMIT: _ClassVar[FaultReason]
    FAULT_REASON_PROCESS_LIMIT: _ClassVar[FaultReason]
    FAULT_REASON_RATE_LIMITED: _ClassVar[FaultReason]
    FAULT_REASON_BOT_ERROR: _ClassVar[FaultReason]
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_FOLD: ActionKind
ACTION_KIND_CHECK: ActionKind
ACTION_KIND_CALL: ActionKind
ACTION_KIND_BET_RAISE: ActionKind
ACTION_KIND_DISCARD: ActionKind
STRUCTURE_UNSPECIFIED: Structure
STRUCTURE_FIXED_LIMIT: Structure
STRUCTURE_POT_LIMIT: Structure
STRUCTURE_NO_LIMIT: Structure
FORCED_BETS_UNSPECIFIED: ForcedBets
FORCED_BETS_BLINDS: ForcedBets
FORCED_BETS_ANTES: ForcedBets
OPENING_UNSPECIFIED: Opening
OPENING_ANY: Opening
OPENING_JACKS_OR_BETTER: Opening
JOKER_MODE_UNSPECIFIED: JokerMode
JOKER_MODE_OFF: JokerMode
JOKER_MODE_BUG: JokerMode
JOKER_MODE_WILD: JokerMode
SHOWDOWN_REVEAL_UNSPECIFIED: ShowdownReveal
SHOWDOWN_REVEAL_ALL: ShowdownReveal
SHOWDOWN_REVEAL_MUCK: ShowdownReveal
PHASE_UNSPECIFIED: Phase
PHASE_PREDRAW_BETTING: Phase
PHASE_DRAW: Phase
PHASE_POSTDRAW_BETTING: Phase
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_POST_ANTE: EventKind
EVENT_KIND_POST_SMALL_BLIND: EventKind
EVENT_KIND_POST_BIG_BLIND: EventKind
EVENT_KIND_POST_DEAD_BLIND: EventKind
EVENT_KIND_DEAL: EventKind
EVENT_KIND_FOLDED: EventKind
EVENT_KIND_CHECKED: EventKind
EVENT_KIND_CALLED: EventKind
EVENT_KIND_BET_RAISED: EventKind
EVENT_KIND_DREW: EventKind
EVENT_KIND_RESHUFFLED: EventKind
EVENT_KIND_UNCALLED_RETURNED: EventKind
EVENT_KIND_SHOWN: EventKind
EVENT_KIND_MUCKED: EventKind
EVENT_KIND_WON: EventKind
EVENT_KIND_DEAD_HAND: EventKind
EVENT_KIND_STREET: EventKind
FAULT_REASON_UNSPECIFIED: FaultReason
FAULT_REASON_TIMEOUT: FaultReason
FAULT_REASON_ILLEGAL_ACTION: FaultReason
FAULT_REASON_WRONG_DECISION_ID: FaultReason
FAULT_REASON_MALFORMED: FaultReason
FAULT_REASON_DISCONNECTED: FaultReason
FAULT_REASON_SAT_OUT: FaultReason
FAULT_REASON_MEMORY_LIMIT: FaultReason
FAULT_REASON_PROCESS_LIMIT: FaultReason
FAULT_REASON_RATE_LIMITED: FaultReason
FAULT_REASON_BOT_ERROR: FaultReason

class DealerMessage(_message.Message):
    __slots__ = ("match_start", "hand_start", "decision", "fault", "hand_end", "match_end")
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    HAND_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    HAND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    match_start: MatchStart
    hand_start: HandStart
    decision: DecisionRequest
    fault: Fault
    hand_end: HandEnd
    match_end: MatchEnd
    def __init__(self, match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., hand_start: _Optional[_Union[HandStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., fault: _Optional[_Union[Fault, _Mapping]] = ..., hand_end: _Optional[_Union[HandEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("hello", "action")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action: Action
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("name", "version", "protocol_version", "wants_hand_start")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    WANTS_HAND_START_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    protocol_version: int
    wants_hand_start: bool
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., wants_hand_start: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("decision_id", "kind", "amount", "cards", "error")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    kind: ActionKind
    amount: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    error: str
    def __init__(self, decision_id: _Optional[str] = ..., kind: _Optional[_Union[ActionKind, str]] = ..., amount: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., error: _Optional[str] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "table_id", "seat", "players", "config", "clock", "hands", "starting_stack", "protocol_version", "resume_ticket", "seat_seed")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    STARTING_STACK_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    RESUME_TICKET_FIELD_NUMBER: _ClassVar[int]
    SEAT_SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    table_id: str
    seat: int
    players: _containers.RepeatedCompositeFieldContainer[Player]
    config: GameConfig
    clock: ClockSettings
    hands: int
    starting_stack: int
    protocol_version: int
    resume_ticket: str
    seat_seed: int
    def __init__(self, match_id: _Optional[str] = ..., table_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., config: _Optional[_Union[GameConfig, _Mapping]] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ..., hands: _Optional[int] = ..., starting_stack: _Optional[int] = ..., protocol_version: _Optional[int] = ..., resume_ticket: _Optional[str] = ..., seat_seed: _Optional[int] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("seat", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class GameConfig(_message.Message):
    __slots__ = ("structure", "small_blind", "big_blind", "small_bet", "big_bet", "ante", "max_draw", "forced_bets", "opening", "joker", "showdown_reveal", "uncapped_heads_up", "max_bets_per_round")
    STRUCTURE_FIELD_NUMBER: _ClassVar[int]
    SMALL_BLIND_FIELD_NUMBER: _ClassVar[int]
    BIG_BLIND_FIELD_NUMBER: _ClassVar[int]
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    ANTE_FIELD_NUMBER: _ClassVar[int]
    MAX_DRAW_FIELD_NUMBER: _ClassVar[int]
    FORCED_BETS_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    JOKER_FIELD_NUMBER: _ClassVar[int]
    SHOWDOWN_REVEAL_FIELD_NUMBER: _ClassVar[int]
    UNCAPPED_HEADS_UP_FIELD_NUMBER: _ClassVar[int]
    MAX_BETS_PER_ROUND_FIELD_NUMBER: _ClassVar[int]
    structure: Structure
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    ante: int
    max_draw: int
    forced_bets: ForcedBets
    opening: Opening
    joker: JokerMode
    showdown_reveal: ShowdownReveal
    uncapped_heads_up: bool
    max_bets_per_round: int
    def __init__(self, structure: _Optional[_Union[Structure, str]] = ..., small_blind: _Optional[int] = ..., big_blind: _Optional[int] = ..., small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ..., ante: _Optional[int] = ..., max_draw: _Optional[int] = ..., forced_bets: _Optional[_Union[ForcedBets, str]] = ..., opening: _Optional[_Union[Opening, str]] = ..., joker: _Optional[_Union[JokerMode, str]] = ..., showdown_reveal: _Optional[_Union[ShowdownReveal, str]] = ..., uncapped_heads_up: _Optional[bool] = ..., max_bets_per_round: _Optional[int] = ...) -> None: ...

class ClockSettings(_message.Message):
    __slots__ = ("action_timeout_ms", "time_bank_ms")
    ACTION_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    action_timeout_ms: int
    time_bank_ms: int
    def __init__(self, action_timeout_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class HandStart(_message.Message):
    __slots__ = ("hand_id", "hand_number", "button", "hole_cards", "stacks")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    HOLE_CARDS_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    hand_number: int
    button: int
    hole_cards: _containers.RepeatedScalarFieldContainer[str]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand_id: _Optional[str] = ..., hand_number: _Optional[int] = ..., button: _Optional[int] = ..., hole_cards: _Optional[_Iterable[str]] = ..., stacks: _Optional[_Iterable[int]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("decision_id", "hand_id", "hand_number", "seat", "button", "phase", "hole_cards", "seats", "pot", "current_bet", "history", "legal", "time_left_ms", "time_bank_ms")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HOLE_CARDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_BET_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    hand_id: str
    hand_number: int
    seat: int
    button: int
    phase: Phase
    hole_cards: _containers.RepeatedScalarFieldContainer[str]
    seats: _containers.RepeatedCompositeFieldContainer[SeatState]
    pot: int
    current_bet: int
    history: _containers.RepeatedCompositeFieldContainer[PublicEvent]
    legal: LegalActions
    time_left_ms: int
    time_bank_ms: int
    def __init__(self, decision_id: _Optional[str] = ..., hand_id: _Optional[str] = ..., hand_number: _Optional[int] = ..., seat: _Optional[int] = ..., button: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., hole_cards: _Optional[_Iterable[str]] = ..., seats: _Optional[_Iterable[_Union[SeatState, _Mapping]]] = ..., pot: _Optional[int] = ..., current_bet: _Optional[int] = ..., history: _Optional[_Iterable[_Union[PublicEvent, _Mapping]]] = ..., legal: _Optional[_Union[LegalActions, _Mapping]] = ..., time_left_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class SeatState(_message.Message):
    __slots__ = ("seat", "name", "stack", "bet", "committed", "folded", "all_in", "draw_count", "in_hand")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    BET_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_FIELD_NUMBER: _ClassVar[int]
    FOLDED_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    DRAW_COUNT_FIELD_NUMBER: _ClassVar[int]
    IN_HAND_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    stack: int
    bet: int
    committed: int
    folded: bool
    all_in: bool
    draw_count: int
    in_hand: bool
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., stack: _Optional[int] = ..., bet: _Optional[int] = ..., committed: _Optional[int] = ..., folded: _Optional[bool] = ..., all_in: _Optional[bool] = ..., draw_count: _Optional[int] = ..., in_hand: _Optional[bool] = ...) -> None: ...

class LegalActions(_message.Message):
    __slots__ = ("can_fold", "can_check", "call_amount", "can_raise", "min_raise_to", "max_raise_to", "max_discard")
    CAN_FOLD_FIELD_NUMBER: _ClassVar[int]
    CAN_CHECK_FIELD_NUMBER: _ClassVar[int]
    CALL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CAN_RAISE_FIELD_NUMBER: _ClassVar[int]
    MIN_RAISE_TO_FIELD_NUMBER: _ClassVar[int]
    MAX_RAISE_TO_FIELD_NUMBER: _ClassVar[int]
    MAX_DISCARD_FIELD_NUMBER: _ClassVar[int]
    can_fold: bool
    can_check: bool
    call_amount: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    max_discard: int
    def __init__(self, can_fold: _Optional[bool] = ..., can_check: _Optional[bool] = ..., call_amount: _Optional[int] = ..., can_raise: _Optional[bool] = ..., min_raise_to: _Optional[int] = ..., max_raise_to: _Optional[int] = ..., max_discard: _Optional[int] = ...) -> None: ...

class PublicEvent(_message.Message):
    __slots__ = ("kind", "seat", "amount", "to", "count", "cards", "all_in")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    kind: EventKind
    seat: int
    amount: int
    to: int
    count: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    all_in: bool
    def __init__(self, kind: _Optional[_Union[EventKind, str]] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., to: _Optional[int] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., all_in: _Optional[bool] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("decision_id", "reason", "detail", "applied", "faults_so_far", "fault_limit", "code")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    FAULTS_SO_FAR_FIELD_NUMBER: _ClassVar[int]
    FAULT_LIMIT_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    reason: FaultReason
    detail: str
    applied: Action
    faults_so_far: int
    fault_limit: int
    code: str
    def __init__(self, decision_id: _Optional[str] = ..., reason: _Optional[_Union[FaultReason, str]] = ..., detail: _Optional[str] = ..., applied: _Optional[_Union[Action, _Mapping]] = ..., faults_so_far: _Optional[int] = ..., fault_limit: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class HandEnd(_message.Message):
    __slots__ = ("hand_id", "shown", "payoffs", "stacks", "history")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    PAYOFFS_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    shown: _containers.RepeatedCompositeFieldContainer[ShownHand]
    payoffs: _containers.RepeatedScalarFieldContainer[int]
    stacks: _containers.RepeatedScalarFieldContainer[int]
    history: _containers.RepeatedCompositeFieldContainer[PublicEvent]
    def __init__(self, hand_id: _Optional[str] = ..., shown: _Optional[_Iterable[_Union[ShownHand, _Mapping]]] = ..., payoffs: _Optional[_Iterable[int]] = ..., stacks: _Optional[_Iterable[int]] = ..., history: _Optional[_Iterable[_Union[PublicEvent, _Mapping]]] = ...) -> None: ...

class ShownHand(_message.Message):
    __slots__ = ("seat", "cards", "description")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    description: str
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "hands_played", "chips_won", "reason")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    CHIPS_WON_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hands_played: int
    chips_won: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    def __init__(self, match_id: _Optional[str] = ..., hands_played: _Optional[int] = ..., chips_won: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ...) -> None: ...
