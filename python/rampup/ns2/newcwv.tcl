# newcwv.tcl -- paper 003 section 4's idle case (Fig. 4 and 5) with ns-2.35's standard TCP.
#
#   ns newcwv.tcl [key=value ...]
#
# N rate-limited sources over one dumbbell (every link duplex):
#
#   s_i --100Mb/s,0ms-- L ==100Mb/s, rtt/2, DropTail of one BDP== R --100Mb/s,0ms-- r_i
#
# Each source is Agent/TCP/Sack1 to TCPSink/Sack1 (SACK, an ACK per segment; one-way agents
# have no Nagle), driven by a CBR application of `rate` in 1000-byte writes (one packet
# each). Source i starts at a uniform draw in [0, 1) s, stops at `pause` s and starts again
# at `pause` + `pause_len` + a uniform draw in [0, 1) s; at `pause` the bottleneck's rate
# falls to `low` (both directions) and stays there. The draws come from a `new RNG` seeded
# with `seed`, source 0 first. Output:
#
#   flow i=I restart=T received_bytes=B      payload bytes received from T to the end
#   window t1=A t2=B drops=D got=G           bottleneck L->R drops and packets received
#                                             (all sources) over [t1, t2): the first
#                                             `drop_rtts` RTTs after the restart
#
# Options (defaults in brackets): flows [16], rtt (ms) [200], queue (packets; 0: one BDP
# of 100 Mb/s at rtt in 1040-byte packets) [0], rate [512kb], low [2Mb], pause [28],
# pause_len [5], measure (s after the last restart draw's end) [10], drop_rtts [10],
# seed [1], mss [1000], hdr [40].
#
# ns-2 settings: windowInit_ 2, tcpTick_ 0.01, minrto_ 1 (paper 003 section 4), window_
# 100000 (no cap), the same bytes on the wire as rampup (wire.tcl). Left at ns-2.35's
# defaults: slow_start_restart_ true (the restart to one segment after an idle).

array set cfg {
    flows 16 rtt 200 queue 0 rate 512kb low 2Mb pause 28 pause_len 5 measure 10 drop_rtts 10
    seed 1 mss 1000 hdr 40
}
source [file join [file dirname [info script]] args.tcl]
source [file join [file dirname [info script]] wire.tcl]
parse_args newcwv.tcl cfg
set wire [expr {$cfg(mss) + $cfg(hdr)}]
set qpkts $cfg(queue)
if {$qpkts == 0} {
    set qpkts [expr {round(100e6 * $cfg(rtt) / 1000.0 / 8 / $wire)}]
}
set restart_at [expr {$cfg(pause) + $cfg(pause_len)}]
set stop [expr {$restart_at + 1 + $cfg(measure)}]

same_wire_bytes $wire
uncapped_agents 1

set ns [new Simulator]
set rng [new RNG]
$rng seed $cfg(seed)
set L [$ns node]
set R [$ns node]
$ns duplex-link $L $R 100Mb [expr {$cfg(rtt) / 2.0}]ms DropTail
$ns queue-limit $L $R $qpkts
$ns queue-limit $R $L $qpkts
set devnull [open /dev/null w]
set qm [$ns monitor-queue $L $R $devnull]
for {set i 0} {$i < $cfg(flows)} {incr i} {
    set s($i) [$ns node]
    set r($i) [$ns node]
    $ns duplex-link $s($i) $L 100Mb 0ms DropTail
    $ns duplex-link $R $r($i) 100Mb 0ms DropTail
    foreach {a b} [list $s($i) $L $L $s($i) $R $r($i) $r($i) $R] { $ns queue-limit $a $b 1000 }
    set tcp($i) [new Agent/TCP/Sack1]
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $r($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set app($i) [new Application/Traffic/CBR]
    $app($i) set packetSize_ $cfg(mss)
    $app($i) set rate_ $cfg(rate)
    $app($i) set random_ 0
    $app($i) attach-agent $tcp($i)
}
# Draws in a fixed order (every start, then every restart), so that source i's times do
# not depend on anything scheduled before them.
for {set i 0} {$i < $cfg(flows)} {incr i} { set start($i) [$rng uniform 0 1] }
for {set i 0} {$i < $cfg(flows)} {incr i} { set again($i) [expr {$restart_at + [$rng uniform 0 1]}] }

proc mark {i} {
    global sink at_restart
    set at_restart($i) [$sink($i) set bytes_]
}
proc received {} {
    global sink cfg
    set total 0
    for {set i 0} {$i < $cfg(flows)} {incr i} { incr total [$sink($i) set bytes_] }
    return $total
}
proc window_start {} {
    global qm w_drops w_bytes
    set w_drops [$qm set pdrops_]
    set w_bytes [received]
}
proc finish {} {
    global cfg sink at_restart again wire qm w_drops w_bytes w_end_drops w_end_bytes restart_at
    for {set i 0} {$i < $cfg(flows)} {incr i} {
        puts [format "flow i=%d restart=%.6f received_bytes=%d" $i $again($i) [expr {[$sink($i) set bytes_] / $wire * $cfg(mss) - $at_restart($i) / $wire * $cfg(mss)}]]
    }
    puts [format "window t1=%g t2=%g drops=%d got=%d" $restart_at [expr {$restart_at + $cfg(drop_rtts) * $cfg(rtt) / 1000.0}] \
        [expr {$w_end_drops - $w_drops}] [expr {($w_end_bytes - $w_bytes) / $wire}]]
    exit 0
}
proc window_end {} {
    global qm w_end_drops w_end_bytes
    set w_end_drops [$qm set pdrops_]
    set w_end_bytes [received]
}

set bottleneck [[$ns link $L $R] link]
set back [[$ns link $R $L] link]
for {set i 0} {$i < $cfg(flows)} {incr i} {
    $ns at $start($i) "$app($i) start"
    $ns at $cfg(pause) "$app($i) stop"
    $ns at $again($i) "mark $i; $app($i) start"
}
$ns at $cfg(pause) "$bottleneck set bandwidth_ $cfg(low); $back set bandwidth_ $cfg(low)"
$ns at $restart_at "window_start"
$ns at [expr {$restart_at + $cfg(drop_rtts) * $cfg(rtt) / 1000.0}] "window_end"
$ns at $stop "finish"
$ns run
