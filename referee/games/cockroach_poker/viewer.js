/* Cockroach Poker in the replay viewer: its renderer, registered in window.ArenaGames.
 *
 * Its registration names this file (ViewerSpec.script); referee/records/html_replay.py
 * inlines it after the shared kit (referee/records/viewer/games.js, window.ArenaKit).
 * It draws ONE seat's observation (protobuf JSON of the game's observation message):
 * the seat's own hidden dice or cards face up inside `.hand[data-private-of=S]`, other
 * seats' face down; public reveals in `.reveal` boxes. Every number of the table
 * (cards in hand, face up per kind, face down, in front; the cards set aside) and the
 * kinds one card from putting a seat out are the engine's (ctx.facts,
 * referee/games/cockroach_poker/viewer.py).
 *
 * In a browser game (ctx.play, the person's turn) the person clicks a card of their
 * hand to pass, then the kind to claim; or answers a pass.
 */
(function () {
  "use strict";
  var K = window.ArenaKit;
  var el = K.el, add = K.add, pretty = K.pretty, privateHand = K.privateHand, num = K.num,
      cardBack = K.cardBack, backs = K.backs, seatBox = K.seatBox, table = K.table,
      section = K.section, timeline = K.timeline, fresh = K.fresh;

  var NAMES = ["UNSPECIFIED", "COCKROACH", "SCORPION", "TOAD", "SPIDER", "RAT", "BAT",
    "CENTIPEDE", "FLY"];
  var LABELS = ["?", "cockroach", "scorpion", "toad", "spider", "rat", "bat", "centipede", "fly"];
  function kindIndex(k) {
    return Math.max(0, NAMES.indexOf(String(k).replace("COCKROACH_POKER_KIND_", "")));
  }
  /* A critter card; `count` (the engine's number of such cards) is drawn as a number
     marked `key` for seat `seat`. */
  function critter(i, count, extra, key, seat) {
    var node = el("span", "ccard k" + i + (extra ? " " + extra : ""));
    node.setAttribute("data-v", LABELS[i]);
    add(node, el("span", "label", LABELS[i]));
    if (count !== undefined) {
      add(node, add(el("span", "count"), "\u00d7", key ? num(count, key + ":" + LABELS[i], seat) :
        String(count)));
    }
    return node;
  }
  function kindWord(k) { return pretty(k); }
  /* A row of critters from counts per kind (in kind order), the counts the engine's. */
  function critters(counts, extra, key, seat) {
    var row = el("span", "cards");
    (counts || []).forEach(function (c, i) {
      if (c) { add(row, critter(i + 1, c, extra, key, seat)); }
    });
    return row;
  }
  function known(card) { return !!card && !/UNSPECIFIED/.test(card); }

  /* The person's pass: click a card of the hand, then the kind to claim. */
  function announceControls(ctx, hand) {
    var announces = K.moves(ctx, "announce");
    var box = K.controls(null);
    box.setAttribute("data-controls", "announce");
    var state = {card: null, claim: null};
    var claims = el("div", "pick-row claims");
    var send = el("span");
    var redraw = function () {
      claims.textContent = "";
      add(claims, el("span", "muted small", state.card === null ? "click a card of your hand" :
        "claim it is a"));
      if (state.card !== null) {
        for (var i = 1; i < NAMES.length; i++) {
          var c = critter(i, undefined, "pickable" + (state.claim === i ? " picked" : ""));
          c.setAttribute("data-claim", LABELS[i]);
          c.setAttribute("role", "button");
          c.setAttribute("tabindex", "0");
          c.addEventListener("click", pickClaim.bind(null, i));
          add(claims, c);
        }
      }
      send.textContent = "";
      var m = announces.filter(function (a) {
        return kindIndex(a.body.card) === state.card && kindIndex(a.body.claim) === state.claim;
      })[0];
      add(send, K.moveButton(ctx, state.card === null || state.claim === null ? "Pass" :
        ["Pass the " + LABELS[state.card] + ": \u201cit is a " + LABELS[state.claim] + "\u201d"],
        m ? m.index : null, "pass", "primary"));
    };
    var pickClaim = function (i) { state.claim = i; redraw(); };
    if (hand) {
      [].slice.call(hand.querySelectorAll(".ccard")).forEach(function (node) {
        var i = LABELS.indexOf(node.getAttribute("data-v"));
        node.classList.add("pickable");
        node.setAttribute("role", "button");
        node.setAttribute("tabindex", "0");
        node.setAttribute("data-card", LABELS[i]);
        node.addEventListener("click", function () {
          [].slice.call(hand.querySelectorAll(".ccard")).forEach(function (n) {
            n.classList.toggle("picked", n === node);
          });
          state.card = i;
          redraw();
        });
      });
    }
    redraw();
    add(box, claims, send);
    return box;
  }
  function answerControls(ctx, published) {
    var box = K.controls(null);
    box.setAttribute("data-controls", "answer");
    K.moves(ctx).forEach(function (m) {
      if (m.kind === "believe") {
        add(box, K.moveButton(ctx, published ? "Call it true" : "Believe: take it face down",
          m.index, "believe", "primary"));
      } else if (m.kind === "disbelieve") {
        add(box, K.moveButton(ctx, published ? "Call it false" : "Disbelieve: turn it up",
          m.index, "disbelieve", "danger"));
      }
    });
    return box;
  }

  function cockroachPoker(obs, ctx) {
    var out = el("div", "game cockroach-poker");
    var f = ctx.facts || {};
    var published = !!(obs.rules || {}).call_rule_published;
    /* The omniscient view reads every hidden card from the engine's state (ctx.hidden). */
    var hidden = ctx.omniscient ? ctx.hidden || {} : null;
    add(out, add(el("div", "facts"), el("span", null, pretty(obs.phase)),
      add(el("span"), "set aside unseen: ", num(f.set_aside, "set_aside"))));
    var p = obs.pending;
    var playing = !!ctx.play && obs.to_act === ctx.me;
    var felt = el("div", "felt-main");
    if (p && /RESPOND/.test(obs.phase || "")) {
      var card = hidden ? hidden.pending : p.card;
      add(felt, el("span", "muted", "seat " + p.announcer + " \u2192 seat " + p.target + ": "),
        el("span", "big", "\u201cit is a " + kindWord(p.claim) + "\u201d "),
        known(card) ? privateHand(p.announcer, [kindWord(card)], critter(kindIndex(card),
          undefined, "small")) : cardBack("small"));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var myHand = null;
    var boxFor = function (s) {
      var st = (f.seats || [])[s] || {};
      var box = seatBox(ctx, s, {toAct: obs.to_act === s, out: ((obs.seats || [])[s] || {}).eliminated});
      var hand = hidden ? (hidden.hands || [])[s] : K.isMe(ctx, s) ? f.hand || [] : null;
      if (hand) {
        var row = critters(hand, null, "hand", s);
        if (K.isMe(ctx, s)) { myHand = row; }
        add(box, privateHand(s, hand, row),
          add(el("div", "muted small"), num(st.hand_size, "hand_size", s), " cards in hand"));
      } else {
        var label = add(el("span", "back-label"), num(st.hand_size, "hand_size", s),
          " cards in hand");
        add(box, add(el("div", "hand-back"), backs(st.hand_size || 0, ""), label));
      }
      var pile = el("div", "pile");
      add(pile, el("span", "muted small", "face up: "));
      var any = false;
      (st.face_up || []).forEach(function (c, i) {
        if (c) {
          any = true;
          add(pile, critter(i + 1, c, (st.danger || []).indexOf(i) >= 0 ? "danger" : "",
            "face_up", s));
        }
      });
      if (!any) { add(pile, el("span", "muted small", "none")); }
      if (st.face_down && hidden) {
        var down = add(el("span", "face-down-shown"), el("span", "muted small", " face down: "),
          critters((hidden.face_down || [])[s]));
        down.setAttribute("data-values", ((hidden.face_down || [])[s] || []).join(" "));
        add(pile, down);
      } else if (st.face_down) {
        add(pile, " ", backs(st.face_down, ""), add(el("span", "muted small back-label"),
          num(st.face_down, "face_down", s), " face down"));
      }
      add(box, pile, add(el("div", "small"), num(st.in_front, "in_front", s),
        " in front of the seat"));
      return box;
    };
    add(out, table(ctx, obs.num_seats, boxFor, felt));
    if (playing && /ANNOUNCE/.test(obs.phase || "")) {
      add(felt, announceControls(ctx, myHand));
    } else if (playing && /RESPOND/.test(obs.phase || "")) {
      add(felt, answerControls(ctx, published));
    }
    if (hidden && (f.set_aside || 0)) {
      add(out, add(section("Set aside, unseen by every seat", "set-aside"),
        critters(hidden.set_aside)));
    }
    var hist = obs.history || [];
    var isFresh = fresh(ctx, /: (believe|disbelieve)$/);
    /* call_rule=published: the answer is a call "true" (believe) or "false". */
    var answers = published ? ["called true", "called false"] : ["believed", "disbelieved"];
    add(out, add(section("Passes"), timeline(hist.map(function (h, i) {
      var card = hidden ? (hidden.passes || [])[i] : h.card;
      var what = ["\u2192 seat " + h.target + ": \u201c" + kindWord(h.claim) + "\u201d, " +
        (h.believed ? answers[0] : answers[1]) + "; seat " + h.taker + " takes it "];
      what.push(known(card) ? critter(kindIndex(card), undefined, "small") : cardBack("small"));
      var note = known(card) ? (kindIndex(card) === kindIndex(h.claim) ? "truth" : "bluff") :
        "unseen";
      if (h.eliminated) { note += ", seat " + h.taker + " is out"; }
      return {seat: h.announcer, what: what, note: note,
        cls: i === hist.length - 1 ? "latest" + (isFresh ? " reveal fresh" : "") : null};
    }))));
    return out;
  }

  cockroachPoker.omniscient = true;
  cockroachPoker.playable = true;
  window.ArenaGames.cockroach_poker = cockroachPoker;
})();
