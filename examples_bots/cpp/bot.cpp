// cpp-pairs: an arena bot in C++. Your whole strategy is Decide below: change it, then
// run `arena check-bot .` (it builds the bot with CMake, then tries every kind of
// decision) and `arena match . builtin:random`. The plumbing is in arena_bot.cpp; what
// Decide may use (Card, Strength, Fold, RaiseTo, ...) is listed in arena_bot.hpp.
#include "arena_bot.hpp"

using namespace arena_bot;

// Called once for every decision. `request` is arena.proto's DecisionRequest:
//   request.phase()   arena::v1::PHASE_PREDRAW_BETTING, PHASE_DRAW or PHASE_POSTDRAW_BETTING
//   request.legal()   what you may do now: call_amount() (0: checking is free),
//                     can_fold(), can_raise(), min_raise_to(), max_raise_to(), max_discard()
//   request.pot()     chips in the pot
// `hand` is your five cards (card.rank 0 = deuce .. 12 = ace, card.joker).
// Return Fold(), Check(), Call(), RaiseTo(chips) or, at the draw, Discard(cards).
// If Decide throws, the error goes to stderr and the bot checks or folds.
Action Decide(const DecisionRequest& request, const Hand& hand) {
  const auto& legal = request.legal();

  // The draw: throw away what ChooseDiscards picks (it keeps pairs and better, four to
  // a flush, or else the highest card).
  if (request.phase() == arena::v1::PHASE_DRAW) {
    return Discard(ChooseDiscards(hand, legal.max_discard()));
  }

  // Strength: 0 nothing, 1 one pair, 2 two pair, 3 three of a kind, 4 better.
  const int made = Strength(hand);

  // A pair or better: bet or raise by as little as the rules allow.
  if (made >= 1 && CanRaise(legal)) return RaiseTo(legal.min_raise_to());

  // Nothing to call: checking is free.
  if (legal.call_amount() == 0) return Check();

  // Facing a bet after the draw with nothing: fold. Otherwise call.
  if (made == 0 && request.phase() == arena::v1::PHASE_POSTDRAW_BETTING && legal.can_fold()) {
    return Fold();
  }
  return Call();
}

int main(int argc, char** argv) { return Run(argc, argv, "cpp-pairs", "1.0.0", Decide); }
