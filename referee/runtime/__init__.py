"""What runs bots: the sandbox (bubblewrap, seccomp, cgroups, the /proc view, the
CPU plan), bot processes and their gRPC channels, the warm pool, launchers, and the
live match (:mod:`referee.runtime.match`) that ties them to the play core."""
