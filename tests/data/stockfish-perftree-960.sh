#!/bin/sh
# The perftree contract (`<script> <depth> "<fen>" "<moves>"`, answered with `move count`
# lines, a blank line and the total) over Debian's Stockfish with Chess960 castling rules
# (UCI_Chess960): an engine independent of ours behind the perftree protocol, for the Chess960
# tests of `perft diff --protocol perftree`. STOCKFISH names the binary (default
# /usr/games/stockfish, where Debian installs it).
sf=${STOCKFISH:-/usr/games/stockfish}
depth=$1
fen=$2
moves=$3
if [ -n "$moves" ]; then
    position="position fen $fen moves $moves"
else
    position="position fen $fen"
fi
printf 'setoption name UCI_Chess960 value true\n%s\ngo perft %s\nquit\n' "$position" "$depth" |
    "$sf" |
    awk '/^[a-h][1-8][a-h][1-8][qrbn]?: [0-9]+$/ { sub(":", ""); print; next }
         /^Nodes searched: / { print ""; print $3 }'
