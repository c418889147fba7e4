# rbp.tcl -- paper 000 (RBP) section 4 in ns-2.35 with the authors' own agents.
#
#   ns rbp.tcl [key=value ...]
#
# Topology (every link duplex), as paper 000 section 4.1 and tcl/ex/rbp_demo.tcl:
#
#   c0..c9 --10Mb/s,1ms-- CR ==800kb/s, delay, DropTail== SR --10Mb/s,1ms-- server
#
# One persistent one-way TCP connection per client; the server is the sender.
# `rounds` rounds: in each, the server writes `burst` bytes to every client at
# a time drawn uniformly within +-`jitter` s of the round's centre; centres are
# `first`, `first`+`gap`, ...  Output: one line per transfer,
#
#   transfer scheme=S client=I round=R start=T elapsed=E drops=D retransmits=X
#
# (elapsed = from the write to the ACK of its last byte, -1 if it never
# completed; drops = the client's data packets dropped at SR->CR between the
# write and the completion; retransmits = the change of nrexmitpack_ over the
# same span), then one "summary" line.  compare_rbp.py runs it.
#
# Options (defaults in brackets):
#   scheme=S        reno-ssr | reno-nssr | vegas-nssr | rbp-rate | rbp-cwnd  [rbp-rate]
#                     reno-*:   Agent/TCP/Reno, slow_start_restart_ 1 / 0
#                     vegas-nssr: Agent/TCP/Vegas, slow_start_restart_ 0
#                     rbp-rate: Agent/TCP/Vegas/RBP, rbp_rate_algorithm_ 1
#                     rbp-cwnd: Agent/TCP/Reno/RBP
#   burst=24000     bytes per response; must be a multiple of mss           [24000]
#   queue=10000     SR<->CR drop-tail limit in bytes, converted to packets:
#                   floor(queue / (mss + hdr)) -- what rampup's byte limit
#                   holds for packets of that size (see README.md)          [10000]
#   delay=100ms     bottleneck one-way delay                                 [100ms]
#   scale=1         rbp_scale_ (ns-2's default is 0.75; the paper used 1)    [1]
#   mss=1000  hdr=40                                                         [1000, 40]
#   clients=10 rounds=10 gap=120 first=5 jitter=1.5 tail=120                 (seconds)
#   seed=1          ns-2 RNG seed for the start times (used without schedule)  [1]
#   schedule=FILE   start times: lines "client round seconds" (overrides seed) []
#   tmp=DIR         folder for the run's trace files (deleted at the end)    [/tmp]
#   trace=FILE      also write a variable trace of client `traced`'s sender
#                   (cwnd_ ssthresh_ t_seqno_ ack_ nrexmitpack_), one line per change:
#                   "time saddr sport daddr dport name value"               []
#   traced=0        the client whose sender `trace` follows                  [0]
#
# ns 2.0b17-era TCP (the paper's): windowInit_ 1, tcpTick_ 0.1, minrto_ 1,
# window_ 32 = initial ssthresh, DelAck sinks (100 ms), no limited transmit.

# ---------------------------------------------------------------- arguments
array set cfg {
    scheme rbp-rate burst 24000 queue 10000 delay 100ms scale 1 mss 1000 hdr 40
    clients 10 rounds 10 gap 120 first 5 jitter 1.5 tail 120 seed 1 schedule {}
    tmp /tmp trace {} traced 0
}
# The shared helpers, beside this script.
source [file join [file dirname [info script]] args.tcl]
source [file join [file dirname [info script]] wire.tcl]
parse_args rbp.tcl cfg
array set agent_of {
    reno-ssr   {Agent/TCP/Reno 1}
    reno-nssr  {Agent/TCP/Reno 0}
    vegas-nssr {Agent/TCP/Vegas 0}
    rbp-rate   {Agent/TCP/Vegas/RBP 0}
    rbp-cwnd   {Agent/TCP/Reno/RBP 0}
}
if {![info exists agent_of($cfg(scheme))]} {
    puts stderr "rbp.tcl: scheme must be one of [lsort [array names agent_of]]"
    exit 1
}
if {$cfg(burst) % $cfg(mss) != 0} {
    puts stderr "rbp.tcl: burst must be a multiple of mss (ns-2 sends whole packets)"
    exit 1
}
lassign $agent_of($cfg(scheme)) agent_class ssr
set wire [expr {$cfg(mss) + $cfg(hdr)}]
set npkts [expr {$cfg(burst) / $cfg(mss)}]
set qpkts [expr {$cfg(queue) / $wire}]
set qacks [expr {$cfg(queue) / 40}]

# ---------------------------------------------------------- agent defaults
# Same bytes on the wire for Reno and Vegas (wire.tcl).
same_wire_bytes $wire
# ns 2.0b17: initial window 1, 100 ms timer tick, minimum RTO 1 s.
Agent/TCP set windowInit_ 1
Agent/TCP set tcpTick_ 0.1
Agent/TCP set minrto_ 1
Agent/TCP set maxrto_ 60
Agent/TCP set rtxcur_init_ 3
# rbp_demo.tcl: window_ 32 (also the initial ssthresh, see below); restart_bugfix_ 1.
Agent/TCP set window_ 32
Agent/TCP set restart_bugfix_ 1
# Limited transmit (RFC 3042, 2001) did not exist in 1997.
Agent/TCP set singledup_ 0
Agent/TCPSink/DelAck set interval_ 0.1
# ns-2.35's sinks ACK seqno 0 at once, as if it were a SYN (SYN_immediate_ack_,
# added after 2.0b17); rampup without a handshake delays it like any segment.
Agent/TCPSink set SYN_immediate_ack_ false

# ---------------------------------------------------------------- topology
set ns [new Simulator]
set rng [new RNG]
$rng seed $cfg(seed)
for {set i 0} {$i < $cfg(clients)} {incr i} { set c($i) [$ns node] }
set CR [$ns node]
set SR [$ns node]
set server [$ns node]
$ns duplex-link $server $SR 10Mb 1ms DropTail
$ns duplex-link $SR $CR 800kb $cfg(delay) DropTail
for {set i 0} {$i < $cfg(clients)} {incr i} {
    $ns duplex-link $c($i) $CR 10Mb 1ms DropTail
    $ns queue-limit $c($i) $CR 1000
    $ns queue-limit $CR $c($i) 1000
}
$ns queue-limit $server $SR 1000
$ns queue-limit $SR $server 1000
# limit_ counts the packet being serialised (NS2-NOTES), like rampup's limit.
$ns queue-limit $SR $CR $qpkts
$ns queue-limit $CR $SR $qacks

set run [pid]
set qtrace_name [file join $cfg(tmp) "rbp-$run-queue.tr"]
set qtrace [open $qtrace_name w]
$ns trace-queue $SR $CR $qtrace

# ------------------------------------------------------------------ agents
for {set i 0} {$i < $cfg(clients)} {incr i} {
    set tcp($i) [new $agent_class]
    $tcp($i) set fid_ $i
    $tcp($i) set slow_start_restart_ $ssr
    if {[string match *RBP $agent_class]} {
        $tcp($i) set rbp_scale_ $cfg(scale)
    }
    if {$agent_class == "Agent/TCP/Vegas/RBP"} {
        $tcp($i) set rbp_rate_algorithm_ 1
    }
    set sink($i) [new Agent/TCPSink/DelAck]
    $ns attach-agent $server $tcp($i)
    $ns attach-agent $c($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set vtrace_name($i) [file join $cfg(tmp) "rbp-$run-tcp$i.tr"]
    set vtrace($i) [open $vtrace_name($i) w]
    $tcp($i) attach $vtrace($i)
    $tcp($i) trace ack_
    $tcp($i) trace nrexmitpack_
    if {$cfg(trace) != "" && $i == $cfg(traced)} {
        # A second agent attached to a channel would steal the first one's
        # traces, so the traced client writes everything to its own file and
        # the results below read ack_ / nrexmitpack_ from it too.
        close $vtrace($i)
        file delete $vtrace_name($i)
        set vtrace_name($i) $cfg(trace)
        set vtrace($i) [open $cfg(trace) w]
        $tcp($i) attach $vtrace($i)
        foreach v {cwnd_ ssthresh_ t_seqno_ ack_ nrexmitpack_} { $tcp($i) trace $v }
    }
    # ns-2 overwrites ssthresh_ with window_ at the start: set it at t = 0.
    $ns at 0.0 "$tcp($i) set ssthresh_ 32"
}

# ---------------------------------------------------------------- workload
# start(i,r): the time client i's response of round r is written.
if {$cfg(schedule) != ""} {
    set f [open $cfg(schedule) r]
    while {[gets $f line] >= 0} {
        if {[llength $line] == 3} {
            lassign $line i r t
            set start($i,$r) $t
        }
    }
    close $f
} else {
    for {set r 0} {$r < $cfg(rounds)} {incr r} {
        for {set i 0} {$i < $cfg(clients)} {incr i} {
            set start($i,$r) [expr {$cfg(first) + $r * $cfg(gap) + [$rng uniform -$cfg(jitter) $cfg(jitter)]}]
        }
    }
}
for {set r 0} {$r < $cfg(rounds)} {incr r} {
    for {set i 0} {$i < $cfg(clients)} {incr i} {
        $ns at $start($i,$r) "$tcp($i) advanceby $npkts"
    }
}
set stop [expr {$cfg(first) + ($cfg(rounds) - 1) * $cfg(gap) + $cfg(jitter) + $cfg(tail)}]

# ----------------------------------------------------------------- results
# From the traces: ack_ and nrexmitpack_ per agent ("time saddr sport daddr
# dport name value"), drops at SR->CR ("d time from to type size flags fid
# src dst seqno uid").
proc finish {} {
    global ns cfg tcp vtrace vtrace_name qtrace qtrace_name start npkts
    $ns flush-trace
    close $qtrace
    set drop_times {}
    set f [open $qtrace_name r]
    while {[gets $f line] >= 0} {
        if {[lindex $line 0] == "d" && [lindex $line 4] == "tcp"} {
            lappend drops([lindex $line 7]) [lindex $line 1]
        }
    }
    close $f
    file delete $qtrace_name
    set total_el 0.0; set total_dr 0; set total_rx 0; set n 0; set incomplete 0
    for {set i 0} {$i < $cfg(clients)} {incr i} {
        close $vtrace($i)
        set acks {}; set rexmits {}
        set f [open $vtrace_name($i) r]
        while {[gets $f line] >= 0} {
            set name [lindex $line 5]
            if {$name == "ack_"} { lappend acks [lindex $line 0] [lindex $line 6] }
            if {$name == "nrexmitpack_"} { lappend rexmits [lindex $line 0] [lindex $line 6] }
        }
        close $f
        if {$vtrace_name($i) != $cfg(trace)} { file delete $vtrace_name($i) }
        for {set r 0} {$r < $cfg(rounds)} {incr r} {
            set t0 $start($i,$r)
            set last [expr {($r + 1) * $npkts - 1}]
            set end -1
            foreach {t v} $acks {
                if {$v >= $last} { set end $t; break }
            }
            set tend [expr {$end < 0 ? 1e30 : $end}]
            set rx0 0; set rx1 0
            foreach {t v} $rexmits {
                if {$t < $t0} { set rx0 $v }
                if {$t <= $tend} { set rx1 $v }
            }
            set nd 0
            if {[info exists drops($i)]} {
                foreach t $drops($i) { if {$t >= $t0 && $t <= $tend} { incr nd } }
            }
            set el [expr {$end < 0 ? -1 : $end - $t0}]
            puts [format "transfer scheme=%s client=%d round=%d start=%.6f elapsed=%.5f drops=%d retransmits=%d" \
                $cfg(scheme) $i $r $t0 $el $nd [expr {$rx1 - $rx0}]]
            if {$r > 0} {
                if {$end < 0} { incr incomplete } else {
                    set total_el [expr {$total_el + $el}]; incr n
                    incr total_dr $nd; incr total_rx [expr {$rx1 - $rx0}]
                }
            }
        }
    }
    puts [format "summary scheme=%s burst=%d queue=%d queue_pkts=%d restarts=%d mean_elapsed=%.4f drops_per_transfer=%.3f retransmits_per_transfer=%.3f incomplete=%d" \
        $cfg(scheme) $cfg(burst) $cfg(queue) [expr {$cfg(queue) / ($cfg(mss) + $cfg(hdr))}] $n \
        [expr {$n ? $total_el / $n : -1}] [expr {$n ? double($total_dr) / $n : -1}] \
        [expr {$n ? double($total_rx) / $n : -1}] $incomplete]
    exit 0
}
$ns at $stop "finish"
$ns run
