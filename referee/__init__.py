"""Bluff Arena referee: runs matches between bot processes over gRPC.

Its parts, lowest first (the import-linter contract ``referee-layers`` keeps the order):

- ``referee.games``: the pure engines, standard library only;
- ``referee.wire``: each game's observation and action as protobuf messages;
- ``referee.core``: the play core — the catalogue of games, keyed chance, the driver,
  digests, events, the protocol's constants, messages and fault kinds;
- ``referee.records`` and ``referee.analysis``, independent of each other: what a
  match leaves (record, replay, transcript, analytics, the HTML viewer) and exact
  best responses;
- ``referee.runtime``: what runs bots — the sandbox, processes, channels, the warm
  pool and the live match; beside it, ``referee.batched``: engines that step many
  games at once in numpy, for training (the referee never loads them).

A bot (the SDK) may load the first four, ``analysis`` and ``batched``, never
``records`` or ``runtime``. Importing this package is cheap: nothing here pulls in trio or gRPC.
"""
