# bench.tcl -- benchmark dumbbell for timing ns-2.35 against rampup.
#
#   ns bench.tcl [n=N] [duration=60] [seed=1]
#
# N long-lived NewReno bulk flows.  Sender i and receiver i each sit on
# their own 1 Gb/s, 1 ms access link:
#
#   s_i --1Gb/s,1ms-- r1 ==100Mb/s,10ms,DropTail 1000== r2 --1Gb/s,1ms-- d_i
#
# Output: one key=value line at t = duration, no trace files.
#
# Options: n (flows, default 1), duration (s, default 60),
#          seed (RNG seed for the start times, default 1).

array set cfg { n 1 duration 60 seed 1 }
source [file join [file dirname [info script]] args.tcl]
source [file join [file dirname [info script]] wire.tcl]
parse_args bench.tcl cfg
set mss 1000
set wire [expr {$mss + 40}]

# Same per-packet settings as single_flow.tcl (wire.tcl): 1040-byte data
# packets on the wire for every packet including seqno 0, 40-byte ACKs;
# ACK every segment (plain TCPSink).
same_wire_bytes $wire
uncapped_agents 1

set ns [new Simulator]
# Manual routing: ns-2's default static routing computes all-pairs shortest
# paths over every node at `$ns run`, which is very slow for thousands of
# nodes.  With Manual each node gets only the routes installed below.  It
# must be selected before the nodes are created (it registers a routing
# module on each new node).
$ns rtproto Manual

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 100Mb 10ms DropTail
$ns queue-limit $r1 $r2 1000
$ns queue-limit $r2 $r1 1000
set m1 [$r1 get-module Manual]
set m2 [$r2 get-module Manual]
# Routers: everything not local goes across the bottleneck.
$m1 add-route-to-adj-node -default $r2
$m2 add-route-to-adj-node -default $r1

# Start times: uniform on [0, 1) s, drawn from a dedicated RNG seeded with
# $cfg(seed), in flow order (flow 0 first), so a given (n, seed) always gives
# the same start times.
set rng [new RNG]
$rng seed $cfg(seed)
set startvar [new RandomVariable/Uniform]
$startvar set min_ 0.0
$startvar set max_ 1.0
$startvar use-rng $rng

for {set i 0} {$i < $cfg(n)} {incr i} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $r1 1Gb 1ms DropTail
    $ns duplex-link $r2 $d 1Gb 1ms DropTail
    # Access queues: 1000 packets (rampup's default access_queue); ns-2's
    # default of 50 could drop slow-start bursts before the bottleneck.
    foreach {a b} [list $s $r1 $r1 $s $r2 $d $d $r2] { $ns queue-limit $a $b 1000 }
    # Hosts: one default route to their router.  Routers: a host route to
    # each adjacent host.
    [$s get-module Manual] add-route-to-adj-node -default $r1
    [$d get-module Manual] add-route-to-adj-node -default $r2
    $m1 add-route-to-adj-node $s
    $m2 add-route-to-adj-node $d

    set tcp($i) [new Agent/TCP/Newreno]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s $tcp($i)
    $ns attach-agent $d $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [$startvar value]
    $ns at $start($i) "$ftp($i) start"
}

set devnull [open /dev/null w]
set qm [$ns monitor-queue $r1 $r2 $devnull]

# delivered_pkts: sum over sinks of in-order packets (TCPSink bytes_ / wire
# size, see single_flow.tcl).  bottleneck_departures: every packet (incl.
# duplicates) that left the bottleneck queue r1->r2.
proc finish {} {
    global cfg tcp sink wire qm
    set pk 0; set sent 0; set rx 0; set to 0
    for {set i 0} {$i < $cfg(n)} {incr i} {
        incr pk [expr {[$sink($i) set bytes_] / $wire}]
        incr sent [$tcp($i) set ndatapack_]
        incr rx [$tcp($i) set nrexmitpack_]
        incr to [$tcp($i) set nrexmit_]
    }
    puts [format "n=%d duration=%s delivered_pkts=%d data_pkts_sent=%d retransmits=%d timeouts=%d bottleneck_drops=%d bottleneck_departures=%d" \
        $cfg(n) $cfg(duration) $pk $sent $rx $to [$qm set pdrops_] [$qm set pdepartures_]]
    exit 0
}
$ns at $cfg(duration) "finish"
$ns run
