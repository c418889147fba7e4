#!/bin/sh
# run_cases.sh -- run single_flow.tcl for the reference cases and print a
# markdown table of its key=value output.
#
#   sh run_cases.sh            (from any directory; needs `ns` on PATH)
#
# Cases (all: 40 Mb/s bottleneck, 48 ms one-way => 100 ms base RTT, 10 s,
# 1000-byte payload + 40 header, windowInit_ 2, minrto 1 s):
#   loss-free  buffer 250, initial ssthresh 500     Newreno, Sack1, Vegas
#   lossy      buffer 100, initial ssthresh 5000    Newreno, Sack1, Vegas
#   paper001   buffer 250, ssthresh = window cap = 32 and 500, DelAck sink;
#              and ssthresh 5000 and 32 with an ACK per segment and no cap
#              (Table I of paper 001), Newreno only
#   paper001-lss  buffer 250, Limited Slow Start (max_ssthresh_ 100), to 2 s
#              and to 10 s, Newreno only
set -e
here=$(cd "$(dirname "$0")" && pwd)
script="$here/../../python/rampup/ns2/single_flow.tcl"

# columns printed, in this order (keys of single_flow.tcl's output line)
cols="delivered_pkts delivered_bytes data_pkts_sent retransmits timeouts bottleneck_drops ack_path_drops final_cwnd final_ssthresh"

header="| case | tcp | args |"
rule="|---|---|---|"
for c in $cols; do header="$header $c |"; rule="$rule---:|"; done
echo "$header"
echo "$rule"

run() {  # run <case name> <args...>
    name=$1; shift
    line=$(ns "$script" "$@")
    row="| $name | $(echo "$line" | tr ' ' '\n' | sed -n 's/^tcp=//p') | \`$*\` |"
    for c in $cols; do
        v=$(echo "$line" | tr ' ' '\n' | sed -n "s/^$c=//p")
        row="$row $v |"
    done
    echo "$row"
}

for t in Newreno Sack1 Vegas; do
    run loss-free tcp=$t rate=40Mb delay=48ms buffer=250 ssthresh=500
done
for t in Newreno Sack1 Vegas; do
    run lossy tcp=$t rate=40Mb delay=48ms buffer=100 ssthresh=5000
done
for s in 32 500; do
    run paper001 tcp=Newreno rate=40Mb delay=48ms buffer=250 ssthresh=$s cap=$s delack=1
done
for s in 5000 32; do
    run paper001 tcp=Newreno rate=40Mb delay=48ms buffer=250 ssthresh=$s
done
for d in 2 10; do
    run paper001-lss tcp=Newreno rate=40Mb delay=48ms buffer=250 max_ssthresh=100 duration=$d
done
