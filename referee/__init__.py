"""Bluff Arena referee: runs matches between bot processes over gRPC.

Importing this package is cheap: the engines (``referee.games``) and the wire
codecs (``referee.wire``) do not pull in trio or the gRPC runtime.
"""
