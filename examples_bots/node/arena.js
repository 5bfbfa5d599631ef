// The arena's plumbing for a Node.js bot: you need not read this file to write a bot.
// Your strategy is `decide` in bot.js; this file runs it. Written from arena.proto alone.
//
// `run({ name, version, decide })` hosts arena.v1.Bot/Play and grpc.health.v1.Health,
// listens at --address or $ARENA_BOT_ADDRESS (default 127.0.0.1:50051), or with --dial
// HOST:PORT connects to an arena's Arena service instead (token from $ARENA_TOKEN or
// --token; --ca FILE, --insecure for loopback only, --tables N). Each DecisionRequest goes
// to `decide`; if decide throws (or returns no action), the error and its stack go to
// stderr and the default is played (check when free, else fold; stand pat at the draw),
// with the Action's `error` saying where (the dealer records a BOT_ERROR fault), and the
// match goes on. `cards` holds helpers for five-card hands (strength, discards).
//
// The same file in every Node bot folder (arena new-bot --lang node, examples_bots/node).
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

let NAME = 'node-bot';
let VERSION = '1.0.0';
let decide = () => ({ kind: 'ACTION_KIND_CHECK' });
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

// --- the services ----------------------------------------------------------------------

// The reply to one dealer message, or null: Hello after MatchStart, one Action per
// DecisionRequest. The same whichever side connected (Bot service or dialling in).
function answer(message) {
  switch (message.kind) {
    case 'match_start':
      return { hello: { name: NAME, version: VERSION, protocol_version: PROTOCOL_VERSION } };
    case 'decision': {
      const request = message.decision;
      let action;
      try {
        action = decide(request);
        if (action === null || typeof action !== 'object' || typeof action.kind !== 'string') {
          throw new TypeError(`decide returned ${printable(JSON.stringify(action))}, not an action`);
        }
      } catch (error) {
        action = defaultAction(request);
        // `error` tells the dealer too: it records a BOT_ERROR fault saying where
        action.error = report(error, `played ${DEFAULT_NAMES[action.kind]}`).slice(0, 1024);
      }
      return { action: { decision_id: request.decision_id, amount: 0, cards: [], ...action } };
    }
    case 'fault':
      console.error(`${NAME}: fault ${message.fault.reason}: ${printable(message.fault.detail)}`);
      return null;
    default: // hand_start, hand_end, match_end: a stateless bot needs nothing from them
      return null;
  }
}

// The dealer's default (R23): check when free, else fold; stand pat at the draw.
function defaultAction(request) {
  if (request.phase === 'PHASE_DRAW') return { kind: 'ACTION_KIND_DISCARD', cards: [] };
  if (request.legal.call_amount > 0) {
    return { kind: request.legal.can_fold ? 'ACTION_KIND_FOLD' : 'ACTION_KIND_CALL' };
  }
  return { kind: 'ACTION_KIND_CHECK' };
}
const DEFAULT_NAMES = {
  ACTION_KIND_DISCARD: 'stand pat',
  ACTION_KIND_FOLD: 'fold',
  ACTION_KIND_CALL: 'call',
  ACTION_KIND_CHECK: 'check',
};

// An error in decide, for its author: the stack on stderr, then one line naming the
// innermost place outside this file ("decide threw TypeError at bot.js:31; played fold").
// Returns that line without the name and outcome, for the Action's `error`.
function report(error, outcome) {
  const stack = error instanceof Error && error.stack ? error.stack : `thrown: ${String(error)}`;
  console.error(stack);
  const type = error instanceof Error ? error.constructor.name : typeof error;
  const frames = (error instanceof Error && error.stack ? error.stack : '').split('\n').slice(1);
  const places = frames
    .map((line) => /\(?([^\s()]+):(\d+):\d+\)?\s*$/.exec(line))
    .filter((m) => m !== null && m[1] !== __filename);
  const place = places.length > 0 ? ` at ${path.basename(places[0][1])}:${places[0][2]}` : '';
  const summary = `decide threw ${type}${place}`;
  console.error(`${NAME}: ${summary}; ${outcome}`);
  return summary;
}

// Text the other side chose, safe to print on one line (controls escaped, at most 200 characters).
function printable(text) {
  return String(text)
    .slice(0, 200)
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// One Play stream per (table, seat), the dealer connecting to us.
function play(call) {
  call.on('data', (message) => {
    const reply = answer(message);
    if (reply !== null) call.write(reply);
    if (message.kind === 'match_end') call.end();
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

// --- dialling in to an arena (the Arena service) ----------------------------------------
//
// For a bot on another machine: the arena is the server and we connect to it. Each Play
// stream offers one table; it stays silent until the arena seats it, then the conversation
// is the Bot service's. After MatchEnd the arena ends the stream and we open another; a
// stream that breaks mid-match is reopened with `arena-resume: <MatchStart.resume_ticket>`.
// Failures back off with jitter (0.25 s doubling to 30 s); UNAUTHENTICATED stops the bot.

const DIAL_OPTIONS = {
  'grpc.max_send_message_length': 16 * 1024, // the arena takes at most 16 KiB from a bot
  'grpc.max_receive_message_length': 1 << 20,
  // the proto allows client pings no more often than every 20 s; 22 s + 5 s finds a dead
  // arena (a lost network) inside its 30 s reconnect window
  'grpc.keepalive_time_ms': 22000,
  'grpc.keepalive_timeout_ms': 5000,
  'grpc.keepalive_permit_without_calls': 0,
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 30000,
  'grpc.enable_retries': 0, // our own loop retries, with the resume ticket
};
const MAX_TABLES = 64;
const TICKET_LIFE_MS = 300000; // a ticket is offered this long after its break, at most
const AFTER_MATCH_END_MS = 5000; // then a finished stream the arena keeps open is let go
const TRANSIENT = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.CANCELLED,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.RESOURCE_EXHAUSTED,
]); // failures after which a resume ticket is still worth offering

// Refuse to go on: one line on stderr, exit status 2.
function refuse(line) {
  console.error(`${NAME}: ${line}`);
  process.exit(2);
}

// Whether `address` (HOST:PORT, [V6]:PORT or unix:PATH) stays on this machine.
function isLoopback(address) {
  if (address.startsWith('unix:')) return true;
  const colon = address.lastIndexOf(':');
  if (colon <= 0) return false;
  let host = address.slice(0, colon).toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) && host.split('.').every((n) => Number(n) < 256);
}

function backoff() {
  let delay = 0;
  return {
    reset: () => {
      delay = 0;
    },
    next: () => {
      delay = delay === 0 ? 250 : Math.min(30000, 2 * delay);
      return delay * (0.5 + Math.random() / 2);
    },
  };
}

const statusName = (code) => Object.keys(grpc.status).find((name) => grpc.status[name] === code) || `${code}`;
const describe = (o) => (o.details ? `${statusName(o.code)}: ${printable(o.details)}` : statusName(o.code));

// Open one Play stream, hold the conversation on it; resolves with how it ended.
function playStream(client, token, ticket, calls) {
  return new Promise((resolve) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    if (ticket) metadata.set('arena-resume', ticket);
    const outcome = { code: grpc.status.OK, details: '', started: false, ended: false, ticket: '' };
    const call = client.Play(metadata);
    calls.add(call);
    let timer = null;
    call.on('data', (message) => {
      if (outcome.ended) return;
      if (message.kind === 'match_start') {
        outcome.started = true;
        outcome.ticket = message.match_start.resume_ticket;
      }
      const reply = answer(message);
      if (reply !== null) call.write(reply);
      if (message.kind === 'match_end') {
        outcome.ended = true;
        call.end();
        timer = setTimeout(() => call.cancel(), AFTER_MATCH_END_MS);
      }
    });
    call.on('error', () => {}); // the status below says what happened
    call.on('status', (status) => {
      clearTimeout(timer);
      calls.delete(call);
      outcome.code = status.code;
      outcome.details = status.details || '';
      resolve(outcome);
    });
  });
}

// Keep one table: reopen after each match, resume a broken one, back off on failures.
async function keepATable(client, address, token, table, calls) {
  const wait = backoff();
  let ticket = '';
  let ticketUntil = 0;
  for (;;) {
    const o = await playStream(client, token, ticket && Date.now() < ticketUntil ? ticket : '', calls);
    if (o.code === grpc.status.UNAUTHENTICATED) {
      refuse(`the arena at ${printable(address)} refused the token (${describe(o)}): it is wrong or revoked; ask the organiser for a new one`);
    }
    if (o.started) {
      const broke = !o.ended && o.code !== grpc.status.OK && o.code !== grpc.status.ABORTED;
      wait.reset();
      ticket = broke ? o.ticket : '';
      ticketUntil = Date.now() + TICKET_LIFE_MS;
      if (broke) console.error(`${NAME}: table ${table}: the stream broke mid-match (${describe(o)}); resuming`);
      continue;
    }
    if (!TRANSIENT.has(o.code)) ticket = ''; // the arena answered: that seat is not ours any more
    const ms = wait.next();
    console.error(`${NAME}: table ${table}: stream failed (${describe(o)}); again in ${(ms / 1000).toFixed(1)} s`);
    await new Promise((done) => setTimeout(done, ms));
  }
}

function dial(args) {
  const address = args.dial;
  const token = args.token || process.env.ARENA_TOKEN || '';
  if (!token) refuse('no token: pass --token or set $ARENA_TOKEN (from `arena bots add NAME`)');
  if (!/^[\x21-\x7e]+$/.test(token)) refuse('the token has characters no arena token has (arena_<bot>_<64 hex digits>)');
  const tables = Number(args.tables || '2'); // two tables at once by default
  if (!Number.isInteger(tables) || tables < 1 || tables > MAX_TABLES) {
    refuse(`--tables must be between 1 and ${MAX_TABLES}, not ${printable(args.tables)}`);
  }
  let credentials;
  if (args.insecure) {
    if (!isLoopback(address)) {
      refuse(`--insecure is refused for ${printable(address)}: plain text only on 127.0.0.1, ::1, localhost or unix:; use TLS (--ca FILE) for other addresses`);
    }
    credentials = grpc.credentials.createInsecure();
  } else if (args.ca) {
    let pem;
    try {
      pem = fs.readFileSync(args.ca);
    } catch (error) {
      refuse(`cannot read the CA file ${printable(args.ca)}: ${error.code || error.message}`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) refuse(`the CA file ${printable(args.ca)} holds no PEM certificate`);
    credentials = grpc.credentials.createSsl(pem);
  } else {
    credentials = grpc.credentials.createSsl(); // the system's roots
  }
  const client = new arena.Arena(address, credentials, DIAL_OPTIONS);
  const calls = new Set();
  const stop = () => {
    for (const call of calls) call.cancel();
    client.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const transport = args.insecure ? 'plain text' : 'TLS';
  console.error(`${NAME} ${VERSION}: dialling ${printable(address)} (${transport}, ${tables} table(s))`);
  for (let table = 1; table <= tables; table += 1) keepATable(client, address, token, table, calls);
}

// --- main --------------------------------------------------------------------------------

// --name VALUE, --name=VALUE, and the flag --insecure.
function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 1) {
    const match = /^--([a-z]+)(?:=(.*))?$/.exec(argv[i]);
    if (match === null) continue;
    const [, name, inline] = match;
    if (name === 'insecure') args.insecure = true;
    else if (inline !== undefined) args[name] = inline;
    else if (i + 1 < argv.length) {
      args[name] = argv[i + 1];
      i += 1;
    }
  }
  return args;
}

function serve(address) {
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

// Run a bot: `decide(request)` answers each DecisionRequest (see bot.js).
function run(bot) {
  NAME = bot.name || NAME;
  VERSION = bot.version || VERSION;
  decide = bot.decide;
  const args = parseArgs(process.argv.slice(2));
  if (args.dial !== undefined) dial(args);
  else serve(args.address || process.env.ARENA_BOT_ADDRESS || '127.0.0.1:50051');
}

module.exports = { run, cards: { RANKS, JOKER, rankOf, suitOf, analyse, strength, chooseDiscards }, isLoopback };
