#!/usr/bin/env node
// An arena bot in Node.js, written from proto/arena/v1/arena.proto alone.
//
// It hosts arena.v1.Bot/Play and grpc.health.v1.Health, listens at --address or
// $ARENA_BOT_ADDRESS (default 127.0.0.1:50051), and plays a simple, sensible game:
// raise with two pair or better, call or check with a pair, fold junk facing a bet,
// and at the draw keep pairs (or four to a flush, or a made hand).
//
//   npm ci && node bot.js --address 127.0.0.1:50051
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const NAME = 'node-pairs';
const VERSION = '1.0.0';
const PROTOCOL_VERSION = 1;

const LOAD_OPTIONS = {
  keepCase: true, // field names exactly as in the .proto (decision_id, hole_cards, ...)
  longs: Number, // chips are int64; small enough for a JavaScript number
  enums: String, // enum values by name: 'PHASE_DRAW', 'ACTION_KIND_BET_RAISE', ...
  defaults: true, // unset fields read as 0, '' or [] (proto3 semantics)
  oneofs: true, // message.kind names the field set in a oneof
};

// A copy of proto/arena/v1/arena.proto ships next to this file (scripts/gen_proto keeps it
// current), as any bot's would: in the arena's sandbox a bot sees only its own folder.
const arenaProto = path.join(__dirname, 'arena.proto');
const arena = grpc.loadPackageDefinition(protoLoader.loadSync(arenaProto, LOAD_OPTIONS)).arena.v1;
const health = grpc.loadPackageDefinition(
  protoLoader.loadSync(path.join(__dirname, 'health.proto'), LOAD_OPTIONS),
).grpc.health.v1;

// --- cards -------------------------------------------------------------------------

const RANKS = '23456789TJQKA';
const JOKER = 'Jk';

const rankOf = (card) => RANKS.indexOf(card[0]); // 0 (deuce) .. 12 (ace)
const suitOf = (card) => card[1];

// Rank counts, pair structure and made hands of five cards (the joker pairs the top card).
function analyse(cards) {
  const real = cards.filter((card) => card !== JOKER);
  const jokers = cards.length - real.length;
  const counts = new Map();
  for (const card of real) counts.set(rankOf(card), (counts.get(rankOf(card)) || 0) + 1);
  const groups = [...counts.values()].sort((a, b) => b - a);
  if (groups.length === 0) groups.push(0);
  groups[0] += jokers;
  const suits = new Map();
  for (const card of real) suits.set(suitOf(card), (suits.get(suitOf(card)) || 0) + 1);
  const topSuit = Math.max(0, ...suits.values());
  const ranks = [...counts.keys()].sort((a, b) => a - b);
  const distinct = ranks.length === real.length && jokers === 0;
  const wheel = distinct && ranks.join(',') === '0,1,2,3,12';
  const straight = distinct && real.length === 5 && (ranks[4] - ranks[0] === 4 || wheel);
  const flush = jokers === 0 && topSuit === 5;
  return { counts, groups, straight, flush, fourFlush: topSuit === 4 };
}

// 0 junk, 1 one pair, 2 two pair, 3 trips, 4 straight or better.
function strength(cards) {
  const { groups, straight, flush } = analyse(cards);
  if (straight || flush || groups[0] >= 4 || (groups[0] === 3 && groups[1] === 2)) return 4;
  if (groups[0] === 3) return 3;
  if (groups[0] === 2 && groups[1] === 2) return 2;
  if (groups[0] === 2) return 1;
  return 0;
}

// The cards to throw: keep pairs and better (and the joker), a made hand, or four to a
// flush; with nothing, keep the highest card. Never more than maxDiscard, lowest first.
function chooseDiscards(cards, maxDiscard) {
  const { counts, fourFlush } = analyse(cards);
  if (strength(cards) === 4) return [];
  const high = Math.max(...cards.filter((card) => card !== JOKER).map(rankOf));
  let keep;
  if (cards.some((card) => card !== JOKER && counts.get(rankOf(card)) >= 2)) {
    keep = (card) => card === JOKER || counts.get(rankOf(card)) >= 2;
  } else if (cards.includes(JOKER)) {
    keep = (card) => card === JOKER || rankOf(card) === high; // the joker pairs the top card
  } else if (fourFlush) {
    const suit = [...'cdhs'].find((s) => cards.filter((card) => suitOf(card) === s).length === 4);
    keep = (card) => suitOf(card) === suit;
  } else {
    keep = (card) => rankOf(card) === high;
  }
  return cards
    .filter((card) => !keep(card))
    .sort((a, b) => rankOf(a) - rankOf(b))
    .slice(0, maxDiscard);
}

// --- decisions -----------------------------------------------------------------------

function decide(request) {
  const legal = request.legal;
  const cards = request.hole_cards;
  if (request.phase === 'PHASE_DRAW') {
    return { kind: 'ACTION_KIND_DISCARD', cards: chooseDiscards(cards, legal.max_discard) };
  }
  const made = strength(cards);
  if (made >= 2 && legal.can_raise) {
    return { kind: 'ACTION_KIND_BET_RAISE', amount: legal.min_raise_to };
  }
  if (legal.call_amount > 0) {
    const drawing = request.phase === 'PHASE_PREDRAW_BETTING' && analyse(cards).fourFlush;
    return { kind: made >= 1 || drawing || !legal.can_fold ? 'ACTION_KIND_CALL' : 'ACTION_KIND_FOLD' };
  }
  return { kind: 'ACTION_KIND_CHECK' };
}

// --- the services ----------------------------------------------------------------------

// One Play stream per (table, seat): Hello after MatchStart, one Action per DecisionRequest.
function play(call) {
  call.on('data', (message) => {
    switch (message.kind) {
      case 'match_start':
        call.write({ hello: { name: NAME, version: VERSION, protocol_version: PROTOCOL_VERSION } });
        break;
      case 'decision': {
        const request = message.decision;
        let action;
        try {
          action = decide(request);
        } catch (error) {
          console.error(`${NAME}: decide failed (${error}); checking or folding`);
          action = { kind: request.legal.can_check ? 'ACTION_KIND_CHECK' : 'ACTION_KIND_FOLD' };
        }
        call.write({ action: { decision_id: request.decision_id, amount: 0, cards: [], ...action } });
        break;
      }
      case 'fault':
        console.error(`${NAME}: fault ${message.fault.reason}: ${message.fault.detail}`);
        break;
      case 'match_end':
        call.end();
        break;
      default: // hand_start, hand_end: a stateless bot needs nothing from them
        break;
    }
  });
  call.on('end', () => call.end());
  call.on('error', () => {}); // the dealer hung up; nothing to clean
}

const SERVING = new Set(['', 'arena.v1.Bot']);

function check(call, callback) {
  if (SERVING.has(call.request.service)) {
    callback(null, { status: 'SERVING' });
  } else {
    callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${call.request.service}` });
  }
}

function watch(call) {
  call.write({ status: SERVING.has(call.request.service) ? 'SERVING' : 'SERVICE_UNKNOWN' });
  // the status never changes; the stream stays open until the client cancels
}

// --- not outliving the arena ---------------------------------------------------------------

// Whether the process `pid` still runs (a zombie does not count).
function running(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code === 'ESRCH') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch (error) {
    return true; // no /proc here: trust kill(pid, 0)
  }
}

// Launched by the arena ($ARENA_BOT_ADDRESS set): call stop() once the arena is gone, even
// if it was killed while this bot was still starting. The arena puts its pid in
// $ARENA_PARENT_PID and gives us a stdin pipe it never writes to: end-of-file means it died.
function watchTheArena(stop) {
  if (!process.env.ARENA_BOT_ADDRESS) return;
  const arena = /^[0-9]+$/.test(process.env.ARENA_PARENT_PID || '')
    ? Number(process.env.ARENA_PARENT_PID)
    : 0;
  const firstParent = process.ppid;
  const gone = () => (arena > 1 ? !running(arena) : process.ppid !== firstParent);
  setInterval(() => {
    if (gone()) stop();
  }, 500).unref();
  let stdinIsPipe = false;
  try {
    stdinIsPipe = fs.fstatSync(0).isFIFO();
  } catch (error) {
    stdinIsPipe = false;
  }
  if (arena > 1 && stdinIsPipe) {
    process.stdin.on('data', () => {}); // the arena never writes; ignore anything else
    process.stdin.on('end', stop);
    process.stdin.on('error', () => {});
  }
}

// --- main --------------------------------------------------------------------------------

function addressFromArgs(argv) {
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--address' && i + 1 < argv.length) return argv[i + 1];
    if (argv[i].startsWith('--address=')) return argv[i].slice('--address='.length);
  }
  return process.env.ARENA_BOT_ADDRESS || '127.0.0.1:50051';
}

function main() {
  let server = null;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (server === null) process.exit(0);
    server.tryShutdown(() => process.exit(0));
    setTimeout(() => {
      server.forceShutdown();
      process.exit(0);
    }, 500).unref();
  };
  watchTheArena(stop); // first: the arena may already be gone
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const address = addressFromArgs(process.argv.slice(2));
  server = new grpc.Server({
    'grpc.max_receive_message_length': 1 << 20,
    'grpc.max_send_message_length': 1 << 20,
    'grpc.so_reuseport': 0, // a second server on our port must fail, not share it
  });
  server.addService(arena.Bot.service, { Play: play });
  server.addService(health.Health.service, { Check: check, Watch: watch });
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) {
      console.error(`${NAME}: cannot listen on ${address}: ${error.message}`);
      process.exit(1);
    }
    console.error(`${NAME} ${VERSION} listening on ${address}`);
  });
}

if (require.main === module) main();

module.exports = { chooseDiscards, decide, strength };
