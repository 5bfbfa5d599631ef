// What a C++ bot's strategy may use: the cards of its hand, a few helpers, and the
// actions it can answer with. The plumbing (the gRPC server, the health check, dialling
// in, errors) is in arena_bot.cpp: you need not read it. The same file in every C++ bot
// folder (arena new-bot --lang cpp, examples_bots/cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arena.pb.h"

namespace arena_bot {

using arena::v1::Action;
using arena::v1::DecisionRequest;
using arena::v1::LegalActions;

// One card of your hand. The dealer writes cards as "As", "Td", "9c" (rank 23456789TJQKA,
// suit cdhs) and "Jk" for the joker; the plumbing has checked every one.
struct Card {
  int rank = 0;       // 0 (deuce) .. 12 (ace); 0 for the joker
  int suit = 0;       // 0 clubs, 1 diamonds, 2 hearts, 3 spades; 0 for the joker
  bool joker = false;
  std::string text;   // as the dealer wrote it: a discard names the card by it
};
using Hand = std::vector<Card>;  // your five cards

// The answers. RaiseTo is the total you bet this round after the action, within
// [legal.min_raise_to(), legal.max_raise_to()]; Discard({}) stands pat.
Action Fold();
Action Check();
Action Call();
Action RaiseTo(int64_t amount);
Action Discard(const std::vector<Card>& cards);

// 0 nothing, 1 one pair, 2 two pair, 3 three of a kind, 4 a straight or better.
int Strength(const Hand& hand);
// The cards to throw, lowest first, at most max_discard: keep pairs and better (and the
// joker), stand pat with a made hand, keep four to a flush, else keep the highest card.
std::vector<Card> ChooseDiscards(const Hand& hand, uint32_t max_discard);
// Whether a raise to legal.min_raise_to() is on offer.
bool CanRaise(const LegalActions& legal);

// Your strategy: the answer to one decision, given the request and your parsed hand.
using Strategy = Action (*)(const DecisionRequest& request, const Hand& hand);

// Serve (or dial in) until stopped, answering every decision with `decide`.
int Run(int argc, char** argv, const char* name, const char* version, Strategy decide);

}  // namespace arena_bot
