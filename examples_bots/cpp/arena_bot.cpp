// The arena's plumbing for a C++ bot: you need not read this file to write a bot. Your
// strategy is Decide in bot.cpp; arena_bot.hpp is what it may call. Written from
// arena.proto alone (a copy ships in this folder).
//
// arena_bot::Run hosts arena.v1.Bot/Play and the standard gRPC health service (its own,
// from health.proto: see "the Bot and Health services" below for why), listens at
// --address or $ARENA_BOT_ADDRESS ("127.0.0.1:PORT" or "unix:PATH"; default
// 127.0.0.1:50051), or with --dial HOST:PORT connects to an arena's Arena service instead
// (token from $ARENA_TOKEN or --token; --ca FILE, --insecure for loopback only, --tables N).
//
// Policies (--policy):
//   pairs (default)  the strategy: bot.cpp's Decide.
//   call             always check or call, stand pat at the draw: as little work per
//                    decision as a bot can do (for benchmarks of the dealer).
//
// Whatever the dealer sends is the other side's text: cards are read only by ParseCard
// and ParseHand, which check every index, and a request the strategy would not
// understand gets PlaySafe (check, call, stand pat) without calling Decide. An exception
// out of Decide is printed to stderr (its type and what()), that decision gets the
// dealer's default (check when free, else fold; stand pat at the draw) with the Action's
// error saying so (the dealer records a BOT_ERROR fault), and the match goes on: the
// exception never reaches gRPC.
//
// The same file in every C++ bot folder (arena new-bot --lang cpp, examples_bots/cpp).

#include "arena_bot.hpp"

#include <cxxabi.h>
#include <grpcpp/grpcpp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "arena.grpc.pb.h"
#include "health.grpc.pb.h"

namespace {

using arena::v1::Action;
using arena::v1::ActionKind;
using arena::v1::BotMessage;
using arena::v1::DealerMessage;
using arena::v1::DecisionRequest;

using arena_bot::Card;

const char* kName = "cpp-bot";   // set by arena_bot::Run
const char* kVersion = "1.0.0";
arena_bot::Strategy g_decide = nullptr;
constexpr uint32_t kProtocolVersion = 1;
constexpr int kMaxMessageBytes = 1 << 20;

enum class Policy { kPairs, kCall };

// Text the other side chose, safe to print on one line (controls escaped, at most 200 bytes).
std::string Printable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < 200; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  return out;
}

// A fault reason's name, or its number when this copy of arena.proto has no such name.
std::string FaultName(arena::v1::FaultReason reason) {
  const std::string& name = arena::v1::FaultReason_Name(reason);
  return name.empty() ? "reason " + std::to_string(static_cast<int>(reason)) : name;
}

// --- cards -----------------------------------------------------------------------------
//
// The dealer writes cards as text: "As", "Td", "9c" (rank 23456789TJQKA, suit cdhs), and
// "Jk" for the joker. That text is the other side's: it is read only by ParseCard and
// ParseHand, which check every index. Anything else (a NUL byte, a lower-case letter, a
// third character, a card twice, a hand that is not five cards) is not understood, and
// Decide then plays safe rather than guess.

constexpr int kHandSize = 5;
constexpr int kRankCount = 13;
constexpr int kSuitCount = 4;

// Where `c` is in `alphabet`, or -1 (a NUL byte is in no alphabet).
int IndexIn(const char* alphabet, char c) {
  for (int i = 0; alphabet[i] != '\0'; ++i) {
    if (alphabet[i] == c) return i;
  }
  return -1;
}

// Whether `text` is a card; if so, `card` is it.
bool ParseCard(const std::string& text, Card* card) {
  if (text.size() != 2) return false;
  card->text = text;
  card->joker = text == "Jk";
  card->rank = card->joker ? 0 : IndexIn("23456789TJQKA", text[0]);
  card->suit = card->joker ? 0 : IndexIn("cdhs", text[1]);
  return card->rank >= 0 && card->suit >= 0;
}

// Whether `texts` is a hand: five cards, none twice; if so, `hand` holds them.
bool ParseHand(const google::protobuf::RepeatedPtrField<std::string>& texts, std::vector<Card>* hand) {
  hand->clear();
  if (texts.size() != kHandSize) return false;
  bool seen[kRankCount * kSuitCount + 1] = {};  // the last one is the joker
  for (const std::string& text : texts) {
    Card card;
    if (!ParseCard(text, &card)) return false;
    const int id = card.joker ? kRankCount * kSuitCount : card.rank * kSuitCount + card.suit;
    if (seen[id]) return false;
    seen[id] = true;
    hand->push_back(card);
  }
  return true;
}

// Rank counts and made hands of a parsed hand (the joker counts as more of the top group).
struct Shape {
  int counts[kRankCount] = {};
  int suits[kSuitCount] = {};
  int jokers = 0;
  int top = 0;     // the largest group (pair: 2, trips: 3), jokers included
  int second = 0;  // the next group
  bool straight = false;
  bool flush = false;
  int four_flush_suit = -1;
};

Shape Analyse(const std::vector<Card>& hand) {
  Shape shape;
  int real = 0;
  for (const Card& card : hand) {  // ParseCard made every rank and suit an index in range
    if (card.joker) {
      ++shape.jokers;
      continue;
    }
    ++real;
    ++shape.counts[card.rank];
    ++shape.suits[card.suit];
  }
  int low = kRankCount, high = -1, distinct = 0;
  for (int rank = 0; rank < kRankCount; ++rank) {
    const int n = shape.counts[rank];
    if (n == 0) continue;
    ++distinct;
    low = std::min(low, rank);
    high = std::max(high, rank);
    if (n > shape.top) {
      shape.second = shape.top;
      shape.top = n;
    } else if (n > shape.second) {
      shape.second = n;
    }
  }
  shape.top += shape.jokers;
  const bool five_distinct = real == 5 && distinct == 5;
  const bool wheel = five_distinct && shape.counts[12] && shape.counts[0] && shape.counts[1] &&
                     shape.counts[2] && shape.counts[3];
  shape.straight = five_distinct && (high - low == 4 || wheel);
  for (int suit = 0; suit < kSuitCount; ++suit) {
    if (shape.suits[suit] == 5 && shape.jokers == 0) shape.flush = true;
    if (shape.suits[suit] == 4) shape.four_flush_suit = suit;
  }
  return shape;
}

// 0 junk, 1 one pair, 2 two pair, 3 trips, 4 a straight or better.
int Strength(const Shape& shape) {
  if (shape.straight || shape.flush || shape.top >= 4 || (shape.top == 3 && shape.second == 2)) {
    return 4;
  }
  if (shape.top == 3) return 3;
  if (shape.top == 2 && shape.second == 2) return 2;
  return shape.top == 2 ? 1 : 0;
}

// The cards to throw, lowest first, at most max_discard: keep pairs and better (and the
// joker), stand pat with a made hand, keep four to a flush, else keep the highest card.
std::vector<Card> ChooseDiscards(const std::vector<Card>& hand, uint32_t max_discard) {
  const Shape shape = Analyse(hand);
  std::vector<Card> throw_away;
  if (Strength(shape) == 4) return throw_away;
  bool paired = false;
  int high = -1;
  for (int rank = 0; rank < kRankCount; ++rank) {
    if (shape.counts[rank] >= 2) paired = true;
    if (shape.counts[rank] > 0) high = rank;
  }
  for (const Card& card : hand) {
    bool keep;
    if (card.joker) {
      keep = true;
    } else if (paired) {
      keep = shape.counts[card.rank] >= 2;
    } else if (shape.jokers == 0 && shape.four_flush_suit >= 0) {
      keep = card.suit == shape.four_flush_suit;
    } else {
      keep = card.rank == high;  // with the joker too: it pairs the top card
    }
    if (!keep) throw_away.push_back(card);
  }
  std::stable_sort(throw_away.begin(), throw_away.end(),
                   [](const Card& a, const Card& b) { return a.rank < b.rank; });
  if (throw_away.size() > max_discard) throw_away.resize(max_discard);
  return throw_away;
}

// --- decisions -------------------------------------------------------------------------

// The answer when the bot does not understand the request (cards it cannot read, a phase
// it does not know, amounts that make no sense): check, or call (a call is always legal
// facing a bet, all-in for less included); at the draw, keep every card.
void PlaySafe(const DecisionRequest& request, Action* action) {
  if (request.phase() == arena::v1::PHASE_DRAW) {
    action->set_kind(arena::v1::ACTION_KIND_DISCARD);  // no cards: stand pat
  } else if (request.legal().call_amount() == 0) {
    action->set_kind(arena::v1::ACTION_KIND_CHECK);
  } else {
    action->set_kind(arena::v1::ACTION_KIND_CALL);
  }
}

// Whether a raise to min_raise_to is one the dealer offers (an empty range, or one that
// starts at no chips, is a dealer's mistake, not an offer).
bool CanRaise(const arena::v1::LegalActions& legal) {
  return legal.can_raise() && legal.min_raise_to() > 0 && legal.min_raise_to() <= legal.max_raise_to();
}

// Whether this strategy understands `request`: a phase it knows, five cards it can read,
// an amount to call of no fewer than 0 chips. If so, `hand` holds the cards.
bool Understood(const DecisionRequest& request, std::vector<Card>* hand) {
  const arena::v1::Phase phase = request.phase();
  const bool known = phase == arena::v1::PHASE_PREDRAW_BETTING || phase == arena::v1::PHASE_DRAW ||
                     phase == arena::v1::PHASE_POSTDRAW_BETTING;
  return known && request.legal().call_amount() >= 0 && ParseHand(request.hole_cards(), hand);
}

// The dealer's default (R23), played when Decide throws: check when free, else fold
// (call when folding is not offered); stand pat at the draw.
void PlayDefault(const DecisionRequest& request, Action* action) {
  if (request.phase() == arena::v1::PHASE_DRAW) {
    action->set_kind(arena::v1::ACTION_KIND_DISCARD);
  } else if (request.legal().call_amount() > 0) {
    action->set_kind(request.legal().can_fold() ? arena::v1::ACTION_KIND_FOLD : arena::v1::ACTION_KIND_CALL);
  } else {
    action->set_kind(arena::v1::ACTION_KIND_CHECK);
  }
}

// The name of the exception being handled, demangled ("std::out_of_range").
std::string CurrentExceptionType() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (type == nullptr) return "an unknown exception";
  int status = 0;
  char* name = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
  std::string text = status == 0 && name != nullptr ? name : type->name();
  std::free(name);
  return text;
}

// Fill `action` (its decision_id already set) with the answer to `request`: the
// strategy's, or PlaySafe for a request it would not understand, or the default when
// the strategy throws (reported on stderr for its author).
void Decide(const DecisionRequest& request, Policy policy, Action* action) {
  std::vector<Card> hand;
  if (policy == Policy::kCall || !Understood(request, &hand)) return PlaySafe(request, action);
  const std::string decision_id = action->decision_id();
  std::string what, type;
  try {
    *action = g_decide(request, hand);
    action->set_decision_id(decision_id);
    return;
  } catch (const std::exception& error) {
    what = error.what();
    type = CurrentExceptionType();
  } catch (...) {
    what = "(not a std::exception)";
    type = CurrentExceptionType();
  }
  action->Clear();
  action->set_decision_id(decision_id);
  PlayDefault(request, action);
  const char* played = action->kind() == arena::v1::ACTION_KIND_DISCARD ? "stand pat"
                       : action->kind() == arena::v1::ACTION_KIND_FOLD  ? "fold"
                       : action->kind() == arena::v1::ACTION_KIND_CALL  ? "call"
                                                                        : "check";
  const std::string summary = "Decide threw " + type + ": " + Printable(what);
  action->set_error(summary.substr(0, 1024));  // the dealer records a BOT_ERROR fault with it
  std::cerr << kName << ": " << summary << "; played " << played << " (decision "
            << Printable(decision_id) << ")" << std::endl;
}

// Whether `ticket` can go back as the `arena-resume` header: gRPC C++ aborts the process
// on a header value with a byte outside 0x20..0x7e, so a ticket is kept only when it is a
// plausible one (the arena's are 32 URL-safe characters; at most 256 visible ASCII ones).
bool UsableTicket(const std::string& ticket) {
  if (ticket.size() > 256) return false;
  for (const char c : ticket) {
    if (c < 0x21 || c > 0x7e) return false;  // a char may be signed: bytes >= 0x80 are < 0
  }
  return true;
}

// One conversation on one stream, whichever side connected: Hello after MatchStart, one
// Action per DecisionRequest. The messages are reused from one decision to the next (no
// allocation per decision).
class Conversation {
 public:
  explicit Conversation(Policy policy) : policy_(policy) {
    auto* hello = hello_.mutable_hello();
    hello->set_name(policy == Policy::kCall ? "cpp-call" : kName);
    hello->set_version(kVersion);
    hello->set_protocol_version(kProtocolVersion);
    answer_.mutable_action();
  }

  // The reply to `message`, or nullptr when it needs none.
  const BotMessage* Answer(const DealerMessage& message) {
    switch (message.kind_case()) {
      case DealerMessage::kMatchStart: {
        const std::string& ticket = message.match_start().resume_ticket();
        ticket_ = UsableTicket(ticket) ? ticket : "";
        if (ticket_ != ticket) {
          std::cerr << kName << ": the resume ticket is no header value (" << ticket.size()
                    << " bytes): a broken stream will not resume" << std::endl;
        }
        return &hello_;
      }
      case DealerMessage::kDecision: {
        const DecisionRequest& request = message.decision();
        Action* action = answer_.mutable_action();
        action->Clear();
        action->set_decision_id(request.decision_id());
        Decide(request, policy_, action);
        return &answer_;
      }
      case DealerMessage::kFault:
        std::cerr << kName << ": fault " << FaultName(message.fault().reason()) << ": "
                  << Printable(message.fault().detail()) << std::endl;
        return nullptr;
      default:  // hand_start, hand_end, match_end: a stateless bot needs nothing from them
        return nullptr;
    }
  }

  const std::string& ticket() const { return ticket_; }

 private:
  Policy policy_;
  BotMessage hello_;
  BotMessage answer_;
  std::string ticket_;
};

// --- the Bot and Health services (the dealer connects to us) ----------------------------
//
// gRPC's asynchronous API, one completion queue and one thread: the thread that polls the
// sockets also answers, so a message costs no hand-over between threads (answering takes
// microseconds, so one thread serves every table). The health service is ours, on the same
// queue, rather than grpc::EnableDefaultHealthCheckService(): that one is built on the
// callback API, whose two extra polling threads take the socket wake-ups and hand each
// message over, measured at 1.4x the CPU per hand and 2.7x the context switches.

// Something waiting on the completion queue: `Proceed` is called when its operation ends.
class Pending {
 public:
  virtual ~Pending() = default;
  virtual void Proceed(bool ok) = 0;  // ok: the operation succeeded
};

// One Play stream per (table, seat), sharing nothing with the others. One operation
// pending at a time: a read, then its reply written, then the next read.
class PlayStream final : public Pending {
 public:
  PlayStream(arena::v1::Bot::AsyncService* service, grpc::ServerCompletionQueue* queue, Policy policy)
      : service_(service), queue_(queue), policy_(policy), stream_(&context_), conversation_(policy) {
    service_->RequestPlay(&context_, &stream_, queue_, queue_, this);
  }

  void Proceed(bool ok) override {
    switch (step_) {
      case Step::kWaitingForCall:
        if (!ok) return delete this;  // the server is shutting down
        new PlayStream(service_, queue_, policy_);  // be ready for the next stream
        return Read();
      case Step::kReading: {
        if (!ok) return Finish();  // any end of the request stream is the end of the match
        const BotMessage* reply = conversation_.Answer(message_);
        last_ = message_.kind_case() == DealerMessage::kMatchEnd;
        if (reply != nullptr) {
          step_ = Step::kWriting;
          return stream_.Write(*reply, this);
        }
        return last_ ? Finish() : Read();
      }
      case Step::kWriting:
        return !ok || last_ ? Finish() : Read();
      case Step::kFinishing:
        return delete this;
    }
  }

 private:
  enum class Step { kWaitingForCall, kReading, kWriting, kFinishing };

  void Read() {
    step_ = Step::kReading;
    stream_.Read(&message_, this);
  }

  void Finish() {
    step_ = Step::kFinishing;
    stream_.Finish(grpc::Status::OK, this);
  }

  arena::v1::Bot::AsyncService* service_;
  grpc::ServerCompletionQueue* queue_;
  Policy policy_;
  grpc::ServerContext context_;
  grpc::ServerAsyncReaderWriter<BotMessage, DealerMessage> stream_;
  Conversation conversation_;
  DealerMessage message_;
  Step step_ = Step::kWaitingForCall;
  bool last_ = false;
};

// One call of grpc.health.v1.Health: Check says SERVING for "" (the server as a whole)
// and "arena.v1.Bot", NOT_FOUND for other names; Watch is UNIMPLEMENTED (the arena only
// calls Check; gRPC clients take an UNIMPLEMENTED Watch as "healthy").
class HealthCall final : public Pending {
 public:
  using Health = grpc::health::v1::Health;

  HealthCall(Health::AsyncService* service, grpc::ServerCompletionQueue* queue, bool watch)
      : service_(service), queue_(queue), watch_(watch), check_(&context_), watching_(&context_) {
    if (watch_) {
      service_->RequestWatch(&context_, &request_, &watching_, queue_, queue_, this);
    } else {
      service_->RequestCheck(&context_, &request_, &check_, queue_, queue_, this);
    }
  }

  void Proceed(bool ok) override {
    if (answered_ || !ok) return delete this;  // answered, or the server is shutting down
    new HealthCall(service_, queue_, watch_);
    answered_ = true;
    if (watch_) return watching_.Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "use Check"), this);
    if (request_.service().empty() || request_.service() == "arena.v1.Bot") {
      grpc::health::v1::HealthCheckResponse response;
      response.set_status(grpc::health::v1::HealthCheckResponse::SERVING);
      return check_.Finish(response, grpc::Status::OK, this);
    }
    check_.FinishWithError(grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service"), this);
  }

 private:
  Health::AsyncService* service_;
  grpc::ServerCompletionQueue* queue_;
  bool watch_;
  bool answered_ = false;
  grpc::ServerContext context_;
  grpc::health::v1::HealthCheckRequest request_;
  grpc::ServerAsyncResponseWriter<grpc::health::v1::HealthCheckResponse> check_;
  grpc::ServerAsyncWriter<grpc::health::v1::HealthCheckResponse> watching_;
};

// --- not outliving the arena ------------------------------------------------------------

// Whether `pid` runs (a zombie does not count).
bool Running(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return true;  // no /proc here
  return text[paren + 2] != 'Z';
}

// Launched by the arena ($ARENA_BOT_ADDRESS set): whether the arena is gone. It puts its
// pid in $ARENA_PARENT_PID (not inside the sandbox's PID namespace, where a change of
// parent tells instead).
class ArenaWatch {
 public:
  ArenaWatch() : launched_(std::getenv("ARENA_BOT_ADDRESS") != nullptr), first_parent_(getppid()) {
    const char* text = std::getenv("ARENA_PARENT_PID");
    if (text != nullptr && *text != '\0' && std::strspn(text, "0123456789") == std::strlen(text) &&
        std::strlen(text) < 10) {
      arena_ = static_cast<pid_t>(std::atol(text));
    }
  }

  bool Gone() const {
    if (!launched_) return false;
    return arena_ > 1 ? !Running(arena_) : getppid() != first_parent_;
  }

  // The arena's stdin pipe, never written to, reaches end-of-file when the arena dies:
  // then SIGTERM to ourselves (the main thread waits for it).
  void WatchStdin() const {
    struct stat st;
    if (!launched_ || fstat(0, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
    std::thread([] {
      char buffer[4096];
      for (;;) {
        const ssize_t n = read(0, buffer, sizeof buffer);
        if (n > 0) continue;  // the arena never writes; anything else is ignored
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return;  // stdin unusable: rely on the pid watch
        kill(getpid(), SIGTERM);
        return;
      }
    }).detach();
  }

 private:
  bool launched_;
  pid_t first_parent_;
  pid_t arena_ = 0;
};

// SIGTERM and SIGINT, blocked in every thread (before gRPC starts any), are taken here.
// Returns when one arrives or the arena is gone.
void WaitForStop(const sigset_t& stop_signals, const ArenaWatch& watch) {
  const timespec half_second{0, 500 * 1000 * 1000};
  for (;;) {
    if (watch.Gone()) return;
    const int got = sigtimedwait(&stop_signals, nullptr, &half_second);
    if (got == SIGTERM || got == SIGINT) return;
  }
}

int Serve(const std::string& address, Policy policy, const sigset_t& stop_signals) {
  ArenaWatch watch;
  watch.WatchStdin();
  arena::v1::Bot::AsyncService bot;
  HealthCall::Health::AsyncService health;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&bot);
  builder.RegisterService(&health);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a second server here must fail
  std::unique_ptr<grpc::ServerCompletionQueue> queue = builder.AddCompletionQueue();
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || (port == 0 && address.rfind("unix:", 0) != 0)) {
    std::cerr << kName << ": cannot listen on " << Printable(address) << std::endl;
    return 1;
  }
  new PlayStream(&bot, queue.get(), policy);
  new HealthCall(&health, queue.get(), false);
  new HealthCall(&health, queue.get(), true);
  std::thread serving([&queue] {
    void* tag = nullptr;
    bool ok = false;
    while (queue->Next(&tag, &ok)) static_cast<Pending*>(tag)->Proceed(ok);
  });
  std::cerr << kName << " " << kVersion << " listening on " << Printable(address) << std::endl;
  WaitForStop(stop_signals, watch);
  // open streams get half a second, then are cancelled; the queue drains and the thread ends
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  queue->Shutdown();
  serving.join();
  return 0;
}

// --- dialling in to an arena (the Arena service) ----------------------------------------
//
// For a bot on another machine: the arena is the server and we connect to it. Each Play
// stream offers one table; it stays silent until the arena seats it, then the conversation
// is the Bot service's. After MatchEnd the arena ends the stream and we open another; a
// stream that breaks mid-match is reopened with `arena-resume: <MatchStart.resume_ticket>`.
// Failures back off with jitter (0.25 s doubling to 30 s); UNAUTHENTICATED stops the bot.

constexpr int kMaxTables = 64;
constexpr auto kTicketLife = std::chrono::minutes(5);  // a ticket is offered this long after its break
constexpr auto kAfterMatchEnd = std::chrono::seconds(5);  // then a finished stream is let go

[[noreturn]] void Refuse(const std::string& line) {
  std::cerr << kName << ": " << line << std::endl;
  std::_Exit(2);
}

// Whether `host` is an IPv4 address in 127.0.0.0/8, written the one plain way: four
// decimal parts of 0..255 without leading zeros (a resolver may read "0127" as octal 87).
bool IsLoopbackIPv4(const std::string& host) {
  int part = 0, value = 0, digits = 0, first = -1;
  for (const char c : host) {
    if (c == '.') {
      if (digits == 0 || part == 3) return false;
      if (part++ == 0) first = value;
      value = digits = 0;
    } else if (c >= '0' && c <= '9') {
      if (digits == 1 && value == 0) return false;  // a leading zero
      value = value * 10 + (c - '0');               // at most 255 * 10 + 9: no overflow
      if (++digits > 3 || value > 255) return false;
    } else {
      return false;
    }
  }
  return part == 3 && digits > 0 && first == 127;
}

// Whether `address` (HOST:PORT, [V6]:PORT or unix:PATH) stays on this machine.
bool IsLoopback(const std::string& address) {
  if (address.rfind("unix:", 0) == 0) return true;
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string host = address.substr(0, colon);
  for (char& c : host) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');  // ::tolower(c < 0) is UB
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" || IsLoopbackIPv4(host);
}

bool Transient(grpc::StatusCode code) {  // failures after which a resume ticket is still worth offering
  return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::CANCELLED ||
         code == grpc::StatusCode::DEADLINE_EXCEEDED || code == grpc::StatusCode::INTERNAL ||
         code == grpc::StatusCode::UNKNOWN || code == grpc::StatusCode::RESOURCE_EXHAUSTED;
}

std::string Describe(const grpc::Status& status) {
  std::string text = "status " + std::to_string(static_cast<int>(status.error_code()));
  if (!status.error_message().empty()) text += ": " + Printable(status.error_message());
  return text;
}

struct Outcome {
  grpc::Status status;
  bool started = false;
  bool ended = false;
  std::string ticket;
};

// Open one Play stream and hold the conversation on it.
Outcome PlayStream(arena::v1::Arena::Stub* stub, const std::string& token, const std::string& ticket,
                   Policy policy) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + token);
  if (!ticket.empty()) context.AddMetadata("arena-resume", ticket);
  Outcome outcome;
  Conversation conversation(policy);
  auto stream = stub->Play(&context);
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread letting_go;
  DealerMessage message;
  while (stream->Read(&message)) {
    if (message.kind_case() == DealerMessage::kMatchStart) outcome.started = true;
    const BotMessage* reply = conversation.Answer(message);
    // nothing more once our half of the stream is closed (WritesDone): not even an answer
    if (reply != nullptr && !outcome.ended) stream->Write(*reply);
    if (message.kind_case() == DealerMessage::kMatchEnd && !outcome.ended) {
      outcome.ended = true;
      stream->WritesDone();
      letting_go = std::thread([&] {  // the arena ends the stream; if it does not, we do
        std::unique_lock<std::mutex> lock(mutex);
        if (!finished.wait_for(lock, kAfterMatchEnd, [&] { return done; })) context.TryCancel();
      });
    }
  }
  outcome.status = stream->Finish();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  finished.notify_all();
  if (letting_go.joinable()) letting_go.join();
  outcome.ticket = conversation.ticket();
  return outcome;
}

// Keep one table: reopen after each match, resume a broken one, back off on failures.
void KeepATable(arena::v1::Arena::Stub* stub, const std::string& address, const std::string& token,
                int table, Policy policy) {
  std::mt19937 jitter(std::random_device{}() + table);
  int delay_ms = 0;
  std::string ticket;
  auto ticket_until = std::chrono::steady_clock::now();
  for (;;) {
    const bool fresh = !ticket.empty() && std::chrono::steady_clock::now() < ticket_until;
    const Outcome o = PlayStream(stub, token, fresh ? ticket : "", policy);
    const grpc::StatusCode code = o.status.error_code();
    if (code == grpc::StatusCode::UNAUTHENTICATED) {
      Refuse("the arena at " + Printable(address) + " refused the token (" + Describe(o.status) +
             "): it is wrong or revoked; ask the organiser for a new one");
    }
    if (o.started) {
      const bool broke = !o.ended && code != grpc::StatusCode::OK && code != grpc::StatusCode::ABORTED;
      delay_ms = 0;
      ticket = broke ? o.ticket : "";
      ticket_until = std::chrono::steady_clock::now() + kTicketLife;
      if (broke) {
        std::cerr << kName << ": table " << table << ": the stream broke mid-match ("
                  << Describe(o.status) << "); resuming" << std::endl;
      }
      continue;
    }
    if (!Transient(code)) ticket.clear();  // the arena answered: that seat is not ours any more
    delay_ms = delay_ms == 0 ? 250 : std::min(30000, 2 * delay_ms);
    const int wait_ms = delay_ms / 2 + static_cast<int>(jitter() % (delay_ms / 2 + 1));
    std::cerr << kName << ": table " << table << ": stream failed (" << Describe(o.status)
              << "); again in " << wait_ms << " ms" << std::endl;
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  }
}

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  *ok = in.good() || in.eof();
  return text.str();
}

int Dial(const std::string& address, std::string token, const std::string& ca, bool insecure,
         const std::string& tables_text, Policy policy, const sigset_t& stop_signals) {
  if (token.empty() && std::getenv("ARENA_TOKEN") != nullptr) token = std::getenv("ARENA_TOKEN");
  if (token.empty()) Refuse("no token: pass --token or set $ARENA_TOKEN (from `arena bots add NAME`)");
  for (char c : token) {
    if (c < 0x21 || c > 0x7e) Refuse("the token has characters no arena token has (arena_<bot>_<64 hex digits>)");
  }
  char* end = nullptr;
  const long tables = std::strtol(tables_text.c_str(), &end, 10);
  if (tables_text.empty() || *end != '\0' || tables < 1 || tables > kMaxTables) {
    Refuse("--tables must be between 1 and " + std::to_string(kMaxTables) + ", not " + Printable(tables_text));
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (insecure) {
    if (!IsLoopback(address)) {
      Refuse("--insecure is refused for " + Printable(address) +
             ": plain text only on 127.0.0.1, ::1, localhost or unix:; use TLS (--ca FILE) for other addresses");
    }
    credentials = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions options;  // no --ca: the system's roots
    if (!ca.empty()) {
      bool ok = false;
      options.pem_root_certs = ReadFile(ca, &ok);
      if (!ok) Refuse("cannot read the CA file " + Printable(ca));
      if (options.pem_root_certs.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
        Refuse("the CA file " + Printable(ca) + " holds no PEM certificate");
      }
    }
    credentials = grpc::SslCredentials(options);
  }
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(16 * 1024);  // the arena takes at most 16 KiB from a bot
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  // the proto allows client pings no more often than every 20 s; 22 s + 5 s finds a dead
  // arena (a lost network) inside its 30 s reconnect window
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 22000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 250);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 30000);
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);  // our own loop retries, with the resume ticket
  auto channel = grpc::CreateCustomChannel(address, credentials, args);
  auto stub = arena::v1::Arena::NewStub(channel);
  std::cerr << kName << " " << kVersion << ": dialling " << Printable(address) << " ("
            << (insecure ? "plain text" : "TLS") << ", " << tables << " table(s))" << std::endl;
  for (int table = 1; table <= tables; ++table) {
    std::thread(KeepATable, stub.get(), address, token, table, policy).detach();
  }
  const ArenaWatch nobody;  // a dialling bot is not launched: only the signals stop it
  WaitForStop(stop_signals, nobody);
  std::_Exit(0);  // the table threads hold streams open: end them with the process
}

// --- main ----------------------------------------------------------------------------------

void Usage() {
  std::cerr << "usage: arena-cpp-bot [--address ADDRESS] [--policy pairs|call]\n"
               "       arena-cpp-bot --dial HOST:PORT [--token TOKEN] [--ca FILE] [--insecure] [--tables N]\n"
               "ADDRESS defaults to $ARENA_BOT_ADDRESS, else 127.0.0.1:50051 (unix:PATH works too);\n"
               "the token defaults to $ARENA_TOKEN.\n";
}

}  // namespace

// --- the public part (arena_bot.hpp) ----------------------------------------------------

namespace arena_bot {

Action Fold() {
  Action action;
  action.set_kind(arena::v1::ACTION_KIND_FOLD);
  return action;
}

Action Check() {
  Action action;
  action.set_kind(arena::v1::ACTION_KIND_CHECK);
  return action;
}

Action Call() {
  Action action;
  action.set_kind(arena::v1::ACTION_KIND_CALL);
  return action;
}

Action RaiseTo(int64_t amount) {
  Action action;
  action.set_kind(arena::v1::ACTION_KIND_BET_RAISE);
  action.set_amount(amount);
  return action;
}

Action Discard(const std::vector<Card>& cards) {
  Action action;
  action.set_kind(arena::v1::ACTION_KIND_DISCARD);
  for (const Card& card : cards) action.add_cards(card.text);
  return action;
}

int Strength(const Hand& hand) { return ::Strength(Analyse(hand)); }

std::vector<Card> ChooseDiscards(const Hand& hand, uint32_t max_discard) {
  return ::ChooseDiscards(hand, max_discard);
}

bool CanRaise(const LegalActions& legal) { return ::CanRaise(legal); }

int Run(int argc, char** argv, const char* name, const char* version, Strategy decide) {
  kName = name;
  kVersion = version;
  g_decide = decide;
  // Blocked before gRPC starts any thread, so every thread inherits the mask and only
  // WaitForStop takes them: a signal handler could not safely shut the server down.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  const char* env_address = std::getenv("ARENA_BOT_ADDRESS");
  std::string address = env_address != nullptr && *env_address ? env_address : "127.0.0.1:50051";
  std::string policy_name = "pairs", dial, token, ca, tables = "2";
  bool insecure = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      Usage();
      return 0;
    }
    if (arg == "--insecure") {
      insecure = true;
      continue;
    }
    std::string value;
    const size_t equals = arg.find('=');
    if (arg.rfind("--", 0) == 0 && equals != std::string::npos) {
      value = arg.substr(equals + 1);
      arg = arg.substr(0, equals);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      Refuse(Printable(arg) + " needs a value (--help for usage)");
    }
    if (arg == "--address") address = value;
    else if (arg == "--policy") policy_name = value;
    else if (arg == "--dial") dial = value;
    else if (arg == "--token") token = value;
    else if (arg == "--ca") ca = value;
    else if (arg == "--tables") tables = value;
    else Refuse("unknown option " + Printable(arg) + " (--help for usage)");
  }
  Policy policy;
  if (policy_name == "pairs") policy = Policy::kPairs;
  else if (policy_name == "call") policy = Policy::kCall;
  else Refuse("--policy must be pairs or call, not " + Printable(policy_name));
  if (!dial.empty()) return Dial(dial, token, ca, insecure, tables, policy, stop_signals);
  return Serve(address, policy, stop_signals);
}

}  // namespace arena_bot
