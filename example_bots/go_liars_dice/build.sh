#!/bin/sh
# Builds the Go Liar's Dice bot as one statically linked binary: OUTDIR/go_liars_dice.
#
#   example_bots/go_liars_dice/build.sh OUTDIR
#
# Offline, from Debian's packages alone (no module proxy):
#   apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc \
#       golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev
#
# The Go code for proto/arena/v1/*.proto is generated here, into OUTDIR, on every
# build (never committed, so it cannot drift from the .proto files); the libraries
# come from Debian's Go sources in /usr/share/gocode, built in GOPATH mode.
# CGO_ENABLED=0 makes the binary static: it needs no loader and no shared library.
# `go vet` and `gofmt` check main.go first; either complaining fails the build.
set -eu

usage="usage: $0 OUTDIR"
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
gocode=${ARENA_GOCODE:-/usr/share/gocode}

for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "$0: $tool not found (see the apt-get line at the top of this script)" >&2
    exit 3
  }
done
for package in google.golang.org/grpc google.golang.org/protobuf github.com/golang/protobuf; do
  [ -d "$gocode/src/$package" ] || {
    echo "$0: $gocode/src/$package not found (see the apt-get line at the top of this script)" >&2
    exit 3
  }
done

# The generated package lives at import path bluffarena/arenav1 in a GOPATH of its own.
gopath="$out/gopath"
gen="$gopath/src/bluffarena/arenav1"
rm -rf "$gen"
mkdir -p "$gen"
mapping=""
for proto in "$root"/proto/arena/v1/*.proto; do
  mapping="$mapping,Marena/v1/$(basename "$proto")=bluffarena/arenav1"
done
mapping=${mapping#,}
(
  cd "$root/proto"
  protoc -I . \
    --go_out="$gopath/src" --go_opt="$mapping" \
    --go-grpc_out="$gopath/src" --go-grpc_opt="$mapping" \
    arena/v1/*.proto
)

export GO111MODULE=off GOPATH="$gopath:$gocode" GOFLAGS= GOPROXY=off CGO_ENABLED=0
if [ -z "${GOCACHE:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "${HOME:-}" ]; then
  export GOCACHE="$out/gocache"
fi

cd "$here"
unformatted=$(gofmt -l main.go)
[ -z "$unformatted" ] || { echo "$0: gofmt would change $unformatted" >&2; exit 1; }
# The same build flags for both, so the build reuses what vet compiled.
go vet -trimpath main.go
go build -trimpath -o "$out/go_liars_dice" main.go
echo "built $out/go_liars_dice"
