#!/usr/bin/env node
// A Liar's Dice bot for Bluff Arena in JavaScript (Node.js).
//
// Written from docs/protocol.md and docs/rules/liars_dice.md alone: it serves
// arena.v1.BotService (proto/arena/v1/bot.proto, loaded at start-up with
// @grpc/proto-loader), asks for observation deltas and rebuilds whole
// observations itself, and answers every TurnRequest with a legal action that
// echoes the request's turn number and nonce (protocol 3).
//
// Policy: score every legal move by the exact chance it is true given only our
// own dice (binomial over the unseen dice); raise with the likeliest bid, or
// challenge when the standing bid is more likely false than our best raise is true.
//
// Run: node bot.js [--listen ADDRESS]   (default: $ARENA_LISTEN, set by the referee)
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTOCOL_VERSION = 3;
const NAME = "node_liars_dice";
// Repository layout: this file is example_bots/node_liars_dice/bot.js, the
// protos are proto/arena/v1/*.proto. ARENA_PROTO_DIR overrides (a copy elsewhere).
const PROTO_ROOT = process.env.ARENA_PROTO_DIR || path.resolve(__dirname, "..", "..", "proto");

const definition = protoLoader.loadSync("arena/v1/bot.proto", {
  includeDirs: [PROTO_ROOT],
  keepCase: true, // field names as in the .proto (own_dice, observation_deltas)
  longs: String, // uint64 turn numbers, echoed back unchanged
  enums: String, // "LIARS_DICE_RAISE_RULE_RESET_FACE"
  defaults: true, // absent repeated fields are [], absent scalars 0/false
  oneofs: true, // req.kind === "start" | "turn" | "end"
});
const arena = grpc.loadPackageDefinition(definition).arena.v1;

// Log fields of liars_dice (docs/protocol.md, "Observation deltas").
const LOG_FIELDS = ["bids", "history"];

// ---------------------------------------------------------------- deltas

/** Rebuilds whole observations from delta messages, one decoder per match. */
class DeltaDecoder {
  constructor() {
    this.previous = null;
  }

  /** `message` is an arena.v1.Observation; returns the whole LiarsDiceObservation. */
  decode(message) {
    const observation = { ...message.liars_dice };
    const kept = message.kept || {};
    for (const field of LOG_FIELDS) {
      const sent = observation[field] || [];
      if (Object.prototype.hasOwnProperty.call(kept, field)) {
        const n = kept[field];
        const held = this.previous ? this.previous[field] : [];
        if (held.length < n) {
          throw new Error(`delta keeps ${n} ${field} but only ${held.length} are held`);
        }
        observation[field] = held.slice(0, n).concat(sent);
      } else {
        observation[field] = sent;
      }
    }
    this.previous = observation;
    return observation;
  }
}

// ---------------------------------------------------------------- odds

function choose(n, k) {
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

/** P(at least k successes in n trials of probability p). */
function atLeast(k, n, p) {
  if (k <= 0) return 1;
  if (k > n) return 0;
  let total = 0;
  for (let i = k; i <= n; i++) total += choose(n, i) * p ** i * (1 - p) ** (n - i);
  return Math.min(1, total);
}

// ---------------------------------------------------------------- rules

const RAISE = {
  LIARS_DICE_RAISE_RULE_SAME_FACE_OR_SAME_QUANTITY: (q, f, q0, f0) =>
    (f === f0 && q > q0) || (q === q0 && f > f0),
  LIARS_DICE_RAISE_RULE_QUANTITY_OR_FACE: (q, f, q0, f0) => q > q0 || f > f0,
  LIARS_DICE_RAISE_RULE_RESET_FACE: (q, f, q0, f0) => q > q0 || (q === q0 && f > f0),
};

/** Whether dice showing the wild face count for `face` if we bid it now. */
function wildsCountFor(obs, face) {
  const wild = obs.rules.wild_face;
  if (!wild || face === wild || obs.sum_round) return false;
  if (obs.bids.length === 0) {
    // Our bid opens the round: a non-wild opening leaves wilds on.
    return true;
  }
  return obs.wilds_active;
}

/** Chance that `quantity x face` is true, knowing only our own dice. */
function bidChance(obs, quantity, face, wilds) {
  const wild = obs.rules.wild_face;
  const mine = obs.own_dice.filter((d) => d === face || (wilds && d === wild)).length;
  const total = obs.dice_counts.reduce((a, b) => a + b, 0);
  const unseen = total - obs.own_dice.length;
  return atLeast(quantity - mine, unseen, wilds ? 2 / 6 : 1 / 6);
}

/** Chance the two dice of a sum round total at least `target`. */
function sumChance(obs, target) {
  const mine = obs.own_dice[0];
  let hits = 0;
  for (let other = 1; other <= 6; other++) if (mine + other >= target) hits++;
  return hits / 6;
}

function act(obs) {
  const standing = obs.bids.length ? obs.bids[obs.bids.length - 1] : null;
  const challenge = { challenge: {} };

  if (obs.sum_round) {
    const t0 = standing && standing.sum_bid ? standing.sum_bid.total : 1;
    let best = null;
    for (let t = Math.max(2, t0 + 1); t <= 12; t++) {
      const chance = sumChance(obs, t);
      if (!best || chance > best.chance) best = { total: t, chance };
    }
    if (standing && (!best || 1 - sumChance(obs, t0) > best.chance)) return challenge;
    return { sum_bid: { total: best.total } };
  }

  const total = obs.dice_counts.reduce((a, b) => a + b, 0);
  const raises = RAISE[obs.rules.raise_rule];
  if (!raises) throw new Error(`unknown raise rule ${obs.rules.raise_rule}`);
  const made = new Set(
    obs.bids.filter((b) => b.face_bid).map((b) => `${b.face_bid.quantity}x${b.face_bid.face}`),
  );
  const last = standing && standing.face_bid ? standing.face_bid : null;
  let best = null;
  for (let q = 1; q <= total; q++) {
    for (let f = 1; f <= 6; f++) {
      if (made.has(`${q}x${f}`)) continue;
      if (last && !raises(q, f, last.quantity, last.face)) continue;
      const chance = bidChance(obs, q, f, wildsCountFor(obs, f));
      // Likeliest first; among equals the lowest quantity (keeps room to raise).
      if (!best || chance > best.chance + 1e-12) best = { q, f, chance };
    }
  }
  if (last) {
    const wilds = obs.wilds_active && last.face !== obs.rules.wild_face;
    const lastTrue = bidChance(obs, last.quantity, last.face, wilds);
    if (!best || 1 - lastTrue > best.chance) return challenge;
  }
  return { bid: { quantity: best.q, face: best.f } };
}

// ---------------------------------------------------------------- service

const TOKEN = process.env.ARENA_BOT_TOKEN || "";

function authorized(call) {
  if (!TOKEN) return true;
  return call.metadata.get("authorization").includes(`Bearer ${TOKEN}`);
}

function health(call, callback) {
  if (!authorized(call)) {
    callback({ code: grpc.status.UNAUTHENTICATED, details: "bad token" });
    return;
  }
  callback(null, { name: NAME, games: ["liars_dice"], protocol_version: PROTOCOL_VERSION });
}

function play(call) {
  if (!authorized(call)) {
    call.destroy({ code: grpc.status.UNAUTHENTICATED, details: "bad token" });
    return;
  }
  const decoder = new DeltaDecoder();
  call.on("data", (request) => {
    try {
      if (request.kind === "start") {
        call.write({ ready: { observation_deltas: true } });
      } else if (request.kind === "turn") {
        const observation = decoder.decode(request.turn.observation);
        const action = act(observation);
        // Protocol 3: echo the request's nonce, or the answer is malformed_message.
        const { turn, nonce } = request.turn;
        call.write({ turn: { turn, nonce, action: { liars_dice: action } } });
      } else if (request.kind === "end") {
        call.end();
      }
    } catch (error) {
      console.error(`${NAME}: ${error.stack || error}`);
      call.destroy({ code: grpc.status.INTERNAL, details: String(error) });
    }
  });
  call.on("end", () => call.end());
  call.on("error", () => {});
}

function main() {
  const args = process.argv.slice(2);
  const flag = args.indexOf("--listen");
  const address = flag >= 0 ? args[flag + 1] : process.env.ARENA_LISTEN;
  if (!address) {
    console.error(`usage: node bot.js --listen ADDRESS (or set ARENA_LISTEN)`);
    process.exit(2);
  }
  const server = new grpc.Server();
  server.addService(arena.BotService.service, { Health: health, Play: play });
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) {
      console.error(`${NAME}: cannot listen on ${address}: ${error.message}`);
      process.exit(1);
    }
  });
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.on(signal, () => {
      server.forceShutdown();
      process.exit(0);
    });
  }
}

if (require.main === module) main();

module.exports = { act, DeltaDecoder, atLeast };
