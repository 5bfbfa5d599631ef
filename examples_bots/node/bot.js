#!/usr/bin/env node
// node-pairs: an arena bot in Node.js. Your whole strategy is `decide` below: change it,
// then run `arena check-bot .` (every kind of decision) and `arena match . builtin:random`.
// The plumbing (the gRPC server, the health check, dialling in, errors) is in arena.js:
// you need not read it.
'use strict';

const { run, cards } = require('./arena');

// Called once for every decision. `request` holds (field names as in arena.proto):
//   request.hole_cards  your five cards, e.g. ['As', 'Td', '9c', '9h', '2s'] ('Jk': joker)
//   request.phase       'PHASE_PREDRAW_BETTING', 'PHASE_DRAW' or 'PHASE_POSTDRAW_BETTING'
//   request.legal       what you may do now: call_amount (0: checking is free), can_fold,
//                       can_raise, min_raise_to, max_raise_to, max_discard
//   request.pot         chips in the pot
// Return one action:
//   { kind: 'ACTION_KIND_FOLD' }, { kind: 'ACTION_KIND_CHECK' }, { kind: 'ACTION_KIND_CALL' }
//   { kind: 'ACTION_KIND_BET_RAISE', amount: 8 }        bet or raise TO 8 chips
//   { kind: 'ACTION_KIND_DISCARD', cards: ['2s', '7c'] } at the draw ([] stands pat)
// If decide throws, the error and its line go to stderr and the bot checks or folds.
function decide(request) {
  const hand = request.hole_cards;
  const legal = request.legal;

  // The draw: throw away what cards.chooseDiscards picks (it keeps pairs and better,
  // four to a flush, or else the highest card).
  if (request.phase === 'PHASE_DRAW') {
    return { kind: 'ACTION_KIND_DISCARD', cards: cards.chooseDiscards(hand, legal.max_discard) };
  }

  // cards.strength: 0 nothing, 1 one pair, 2 two pair, 3 three of a kind, 4 better.
  const made = cards.strength(hand);

  // Two pair or better: raise by as little as the rules allow.
  if (made >= 2 && legal.can_raise) {
    return { kind: 'ACTION_KIND_BET_RAISE', amount: legal.min_raise_to };
  }

  // Facing a bet: call with a pair (or four to a flush before the draw), else fold.
  if (legal.call_amount > 0) {
    const drawing = request.phase === 'PHASE_PREDRAW_BETTING' && cards.analyse(hand).fourFlush;
    const call = made >= 1 || drawing || !legal.can_fold;
    return { kind: call ? 'ACTION_KIND_CALL' : 'ACTION_KIND_FOLD' };
  }

  // Nothing to call: checking is free.
  return { kind: 'ACTION_KIND_CHECK' };
}

if (require.main === module) run({ name: 'node-pairs', version: '1.0.0', decide });

module.exports = { decide };
