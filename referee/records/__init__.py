"""What a match leaves: the signed record, its replay and verification, the
transcript, bluff analytics, and the self-contained HTML viewer. Nothing here starts
a process or opens a channel."""
