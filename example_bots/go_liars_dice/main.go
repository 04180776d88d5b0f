// Command go_liars_dice is a Liar's Dice bot for Bluff Arena in Go, built as one
// statically linked binary (build.sh, CGO_ENABLED=0).
//
// Written from docs/protocol.md and docs/rules/liars_dice.md alone: it serves
// arena.v1.BotService (Go code generated from proto/arena/v1/*.proto at build
// time), asks for observation deltas and rebuilds whole observations itself, and
// answers every TurnRequest with a legal action that echoes the request's turn
// number and nonce (protocol 3). One process serves any number of matches, one
// Play stream each, one after the other or at once.
//
// Policy: a random legal bid among those its own dice make plausible, or a
// challenge when the standing bid is implausible or nothing plausible is left.
// The random generator of a match is seeded from its match id and seat, so a
// replayed match is played the same way.
//
// Run: go_liars_dice [--listen ADDRESS]   (default: $ARENA_LISTEN, set by the referee)
package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math/rand"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"bluffarena/arenav1"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

const (
	name            = "go_liars_dice"
	game            = "liars_dice"
	protocolVersion = 3
	sides           = 6
	minTotal        = 2  // the lowest total of a sum round
	maxTotal        = 12 // the highest
)

// ---------------------------------------------------------------- deltas

// deltaDecoder rebuilds whole observations from delta messages, one per match:
// field = previous.field[:kept[field]] + message.field for the log fields of
// liars_dice, bids and history (docs/protocol.md, "Observation deltas"); every
// other field is always whole.
type deltaDecoder struct {
	previous *arenav1.LiarsDiceObservation
}

func (d *deltaDecoder) decode(message *arenav1.Observation) (*arenav1.LiarsDiceObservation, error) {
	observation := message.GetLiarsDice()
	if observation == nil {
		return nil, errors.New("the observation is not a liars_dice observation")
	}
	for field, n := range message.GetKept() {
		var err error
		switch field {
		case "bids":
			observation.Bids, err = extend(d.previous.GetBids(), n, observation.Bids, field)
		case "history":
			observation.History, err = extend(d.previous.GetHistory(), n, observation.History, field)
		default:
			err = fmt.Errorf("delta keeps %d entries of %q, not a log field of liars_dice", n, field)
		}
		if err != nil {
			return nil, err
		}
	}
	d.previous = observation
	return observation, nil
}

// extend is held[:n] + sent, in an array of its own (the previous observation
// keeps its entries).
func extend[T any](held []T, n uint32, sent []T, field string) ([]T, error) {
	if int(n) > len(held) {
		return nil, fmt.Errorf("delta keeps %d %s but only %d are held", n, field, len(held))
	}
	whole := make([]T, 0, int(n)+len(sent))
	return append(append(whole, held[:n]...), sent...), nil
}

// ---------------------------------------------------------------- rules

// raises reports whether q x f raises q0 x f0 under the raise rule.
func raises(rule arenav1.LiarsDiceRaiseRule, q, f, q0, f0 uint32) (bool, error) {
	switch rule {
	case arenav1.LiarsDiceRaiseRule_LIARS_DICE_RAISE_RULE_SAME_FACE_OR_SAME_QUANTITY:
		return (f == f0 && q > q0) || (q == q0 && f > f0), nil
	case arenav1.LiarsDiceRaiseRule_LIARS_DICE_RAISE_RULE_QUANTITY_OR_FACE:
		return q > q0 || f > f0, nil
	case arenav1.LiarsDiceRaiseRule_LIARS_DICE_RAISE_RULE_RESET_FACE:
		return q > q0 || (q == q0 && f > f0), nil
	}
	return false, fmt.Errorf("unknown raise rule %v", rule)
}

type bid struct{ quantity, face uint32 }

// legalBids lists every face bid that raises the standing one (every bid of the
// table when none stands) and was not made yet this round.
func legalBids(obs *arenav1.LiarsDiceObservation) ([]bid, error) {
	var total uint32
	for _, count := range obs.DiceCounts {
		total += count
	}
	made := map[bid]bool{}
	var last *arenav1.LiarsDiceBid
	for _, placed := range obs.Bids {
		if b := placed.GetFaceBid(); b != nil {
			made[bid{b.Quantity, b.Face}] = true
			last = b
		}
	}
	var legal []bid
	for q := uint32(1); q <= total; q++ {
		for f := uint32(1); f <= sides; f++ {
			if made[bid{q, f}] {
				continue
			}
			if last != nil {
				ok, err := raises(obs.GetRules().GetRaiseRule(), q, f, last.Quantity, last.Face)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			legal = append(legal, bid{q, f})
		}
	}
	return legal, nil
}

// wildsCountFor reports whether dice showing the wild face count for a bid on
// face, made now (an opening bid not on the wild face leaves wilds on).
func wildsCountFor(obs *arenav1.LiarsDiceObservation, face uint32) bool {
	wild := obs.GetRules().GetWildFace()
	if wild == 0 || face == wild || obs.SumRound {
		return false
	}
	if len(obs.Bids) == 0 {
		return true
	}
	return obs.WildsActive
}

// expected is how many dice we expect to count for face: ours that do, and a
// share of the dice we cannot see.
func expected(obs *arenav1.LiarsDiceObservation, face uint32, wilds bool) float64 {
	wild := obs.GetRules().GetWildFace()
	mine := 0
	for _, die := range obs.OwnDice {
		if die == face || (wilds && die == wild) {
			mine++
		}
	}
	var total uint32
	for _, count := range obs.DiceCounts {
		total += count
	}
	unseen := float64(int(total) - len(obs.OwnDice))
	share := 1.0 / sides
	if wilds {
		share = 2.0 / sides
	}
	return float64(mine) + unseen*share
}

var challenge = &arenav1.LiarsDiceAction{
	Action: &arenav1.LiarsDiceAction_Challenge{Challenge: &arenav1.LiarsDiceChallenge{}},
}

// act chooses a legal action for the seat to act in obs.
func act(obs *arenav1.LiarsDiceObservation, rng *rand.Rand) (*arenav1.LiarsDiceAction, error) {
	if obs.SumRound {
		return actSum(obs, rng), nil
	}
	legal, err := legalBids(obs)
	if err != nil {
		return nil, err
	}
	standing := len(obs.Bids) > 0
	if standing {
		if last := obs.Bids[len(obs.Bids)-1].GetFaceBid(); last != nil {
			wilds := obs.WildsActive && last.Face != obs.GetRules().GetWildFace()
			if float64(last.Quantity) > expected(obs, last.Face, wilds)+1 {
				return challenge, nil
			}
		}
	}
	var plausible []bid
	for _, b := range legal {
		if float64(b.quantity) <= expected(obs, b.face, wildsCountFor(obs, b.face))+0.5 {
			plausible = append(plausible, b)
		}
	}
	switch {
	case len(plausible) > 0:
		legal = plausible
	case standing:
		return challenge, nil // nothing plausible left, or nothing legal at all
	case len(legal) == 0:
		return nil, errors.New("no bid is legal and there is nothing to challenge")
	default: // an opening with nothing plausible: the lowest quantity, any face
		lowest := []bid{}
		for _, b := range legal {
			if b.quantity == legal[0].quantity {
				lowest = append(lowest, b)
			}
		}
		legal = lowest
	}
	choice := legal[rng.Intn(len(legal))]
	return &arenav1.LiarsDiceAction{Action: &arenav1.LiarsDiceAction_Bid{
		Bid: &arenav1.LiarsDiceBid{Quantity: choice.quantity, Face: choice.face},
	}}, nil
}

// actSum plays a sum round: two seats with one die each bid on the total.
func actSum(obs *arenav1.LiarsDiceObservation, rng *rand.Rand) *arenav1.LiarsDiceAction {
	var mine uint32
	if len(obs.OwnDice) > 0 {
		mine = obs.OwnDice[0]
	}
	// chance that the two dice total at least target (the other die is 1..6)
	chance := func(target uint32) float64 {
		hits := 0
		for other := uint32(1); other <= sides; other++ {
			if mine+other >= target {
				hits++
			}
		}
		return float64(hits) / sides
	}
	low := uint32(minTotal)
	standing := len(obs.Bids) > 0
	if standing {
		if last := obs.Bids[len(obs.Bids)-1].GetSumBid(); last != nil {
			if chance(last.Total) < 0.5 {
				return challenge
			}
			low = last.Total + 1
		}
	}
	var totals []uint32
	for t := low; t <= maxTotal; t++ {
		if chance(t) >= 0.5 || (!standing && len(totals) == 0) {
			totals = append(totals, t)
		}
	}
	if len(totals) == 0 {
		return challenge // there is a standing bid: nothing else was legal or likely
	}
	choice := totals[rng.Intn(len(totals))]
	return &arenav1.LiarsDiceAction{Action: &arenav1.LiarsDiceAction_SumBid{
		SumBid: &arenav1.LiarsDiceSumBid{Total: choice},
	}}
}

// ---------------------------------------------------------------- service

type server struct {
	arenav1.UnimplementedBotServiceServer
}

func (server) Health(context.Context, *arenav1.HealthRequest) (*arenav1.HealthResponse, error) {
	return &arenav1.HealthResponse{
		Name: name, Games: []string{game}, ProtocolVersion: protocolVersion,
	}, nil
}

// Play carries one match: MatchStart -> Ready, TurnRequest -> TurnResponse (the
// same turn number and nonce), MatchEnd -> the bot ends its side of the stream.
func (server) Play(stream arenav1.BotService_PlayServer) error {
	var match *matchState
	for {
		request, err := stream.Recv()
		if err == io.EOF {
			return nil // the referee half-closed without a MatchEnd
		}
		if err != nil {
			return err
		}
		var response *arenav1.PlayResponse
		switch kind := request.Kind.(type) {
		case *arenav1.PlayRequest_Start:
			if kind.Start.Game != game {
				return status.Errorf(codes.InvalidArgument, "%s plays only %s", name, game)
			}
			match = newMatch(kind.Start)
			ready := &arenav1.Ready{ObservationDeltas: true}
			response = &arenav1.PlayResponse{Kind: &arenav1.PlayResponse_Ready{Ready: ready}}
		case *arenav1.PlayRequest_Turn:
			if match == nil {
				return status.Error(codes.FailedPrecondition, "a turn before MatchStart")
			}
			answer, err := match.answer(kind.Turn)
			if err != nil {
				log.Printf("turn %d: %v", kind.Turn.Turn, err)
				return status.Error(codes.Internal, err.Error())
			}
			response = &arenav1.PlayResponse{Kind: &arenav1.PlayResponse_Turn{Turn: answer}}
		case *arenav1.PlayRequest_End:
			return nil // returning ends our side of the stream (status OK)
		default:
			return status.Error(codes.InvalidArgument, "an empty PlayRequest")
		}
		if err := stream.Send(response); err != nil {
			return err
		}
	}
}

// matchState is what one Play stream remembers: its generator and the
// observation deltas extend.
type matchState struct {
	rng     *rand.Rand
	decoder deltaDecoder
}

// newMatch seeds the match's generator from its id and seat: a replayed match
// (the same match id) is played the same way.
func newMatch(start *arenav1.MatchStart) *matchState {
	seed := fnv.New64a()
	fmt.Fprintf(seed, "%s/%d", start.MatchId, start.Seat)
	return &matchState{rng: rand.New(rand.NewSource(int64(seed.Sum64())))}
}

// answer is the TurnResponse to request.
func (m *matchState) answer(request *arenav1.TurnRequest) (*arenav1.TurnResponse, error) {
	observation, err := m.decoder.decode(request.Observation)
	if err != nil {
		return nil, err
	}
	action, err := act(observation, m.rng)
	if err != nil {
		return nil, err
	}
	// Protocol 3: echo the request's nonce, or the answer is malformed_message.
	return &arenav1.TurnResponse{
		Turn:   request.Turn,
		Nonce:  request.Nonce,
		Action: &arenav1.Action{Game: &arenav1.Action_LiarsDice{LiarsDice: action}},
	}, nil
}

// ---------------------------------------------------------------- token

// authorize refuses calls without `authorization: Bearer <token>` when
// ARENA_BOT_TOKEN is set (a bot reached by address, docs/protocol.md).
func authorize(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	want := []byte("Bearer " + token)
	for _, got := range md.Get("authorization") {
		if subtle.ConstantTimeCompare([]byte(got), want) == 1 {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "bad token")
}

// ---------------------------------------------------------------- main

// listen opens ADDRESS: unix:/path (what the referee gives) or host:port.
func listen(address string) (net.Listener, error) {
	if strings.HasPrefix(address, "unix:") {
		path := strings.TrimPrefix(strings.TrimPrefix(address, "unix:"), "//")
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", address)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix(name + ": ")
	address := flag.String("listen", os.Getenv("ARENA_LISTEN"), "address to serve: unix:/path or host:port")
	flag.Parse()
	if *address == "" {
		fmt.Fprintf(os.Stderr, "usage: %s --listen ADDRESS (or set ARENA_LISTEN)\n", os.Args[0])
		os.Exit(2)
	}
	listener, err := listen(*address)
	if err != nil {
		log.Fatalf("cannot listen on %s: %v", *address, err)
	}

	token := os.Getenv("ARENA_BOT_TOKEN")
	s := grpc.NewServer(
		// The referee pings an idle stream every 5 s while the bot thinks; gRPC's
		// default (one ping per 5 minutes) would end the stream (docs/protocol.md).
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime: time.Second, PermitWithoutStream: true,
		}),
		grpc.UnaryInterceptor(func(ctx context.Context, req interface{}, _ *grpc.UnaryServerInfo,
			handler grpc.UnaryHandler) (interface{}, error) {
			if err := authorize(ctx, token); err != nil {
				return nil, err
			}
			return handler(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv interface{}, ss grpc.ServerStream, _ *grpc.StreamServerInfo,
			handler grpc.StreamHandler) error {
			if err := authorize(ss.Context(), token); err != nil {
				return err
			}
			return handler(srv, ss)
		}),
	)
	arenav1.RegisterBotServiceServer(s, server{})

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 1)
	go func() { served <- s.Serve(listener) }()
	select {
	case <-signals:
		s.Stop() // closes the listener (removing the socket) and every stream
		os.Exit(0)
	case err := <-served:
		log.Fatalf("serving %s: %v", *address, err)
	}
}
