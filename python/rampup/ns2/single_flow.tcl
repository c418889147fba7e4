# single_flow.tcl -- one bulk TCP flow across a dumbbell, ns-2.35 reference run.
#
#   ns single_flow.tcl [key=value ...]
#
# Topology (every link duplex):
#
#   s0 --1Gb/s,1ms-- r1 ==bottleneck (rate, delay, DropTail limit)== r2 --1Gb/s,1ms-- d0
#
# Base RTT with the defaults = 2 * (1 + 48 + 1) ms = 100 ms (+ serialisation).
# Output: exactly one line on stdout at t = duration: "flow" and key=value pairs.
#
# Options (defaults in brackets):
#   tcp=Newreno|Sack1|Vegas|Linux  sender agent Agent/TCP/<tcp>     [Newreno]
#   ca=cubic                  tcp=Linux: the kernel module, select_ca  [cubic]
#   rate=40Mb                 bottleneck rate (ns-2 bandwidth syntax)  [40Mb]
#   delay=48ms                bottleneck one-way delay                 [48ms]
#   buffer=250                bottleneck DropTail limit_, packets,
#                             both directions                          [250]
#   ssthresh=N                initial ssthresh in packets; 0 = leave
#                             ns-2's own start value (= window_)       [0]
#   cap=N                     window_ (receiver-window cap), packets;
#                             0 = uncapped (window_ 100000)            [0]
#   delack=0|1                1: TCPSink/DelAck (or TCPSink/Sack1/DelAck) [0]
#   delack_interval=0.1       DelAck timer, seconds (ns-2 default 100ms) [0.1]
#   minrto=1                  minrto_, seconds                          [1]
#   init_rto=3                rtxcur_init_ (RTO before first sample), s  [3]
#   mss=1000                  payload bytes per data packet            [1000]
#   hdr=40                    header bytes added on the wire           [40]
#   duration=10               stop time, seconds                       [10]
#   access_buffer=1000        DropTail limit_ on the 1 Gb/s side links  [1000]
#   max_ssthresh=0            max_ssthresh_ (Limited Slow Start, RFC 3742)
#                             in packets; 0 = off (the ns-2 default)    [0]
#   trace=FILE                ns-2 variable trace of the sender (cwnd_,
#                             ssthresh_, t_seqno_, ack_, nrexmit_), one line per
#                             change: "time src sport dst dport name value" []
#
# Why each ns-2 setting is what it is: see README.md in this folder.

# ---------------------------------------------------------------- arguments
array set cfg {
    tcp Newreno rate 40Mb delay 48ms buffer 250 ssthresh 0 cap 0
    delack 0 delack_interval 0.1 minrto 1 init_rto 3 mss 1000 hdr 40
    duration 10 access_buffer 1000 trace {} max_ssthresh 0 ca cubic
}
# The shared helpers, beside this script.
source [file join [file dirname [info script]] args.tcl]
source [file join [file dirname [info script]] wire.tcl]
parse_args single_flow.tcl cfg
if {[lsearch -exact {Newreno Sack1 Vegas Linux} $cfg(tcp)] < 0} {
    puts stderr "single_flow.tcl: tcp must be Newreno, Sack1, Vegas or Linux"
    exit 1
}
set wire [expr {$cfg(mss) + $cfg(hdr)}]   ;# bytes of one data packet on the wire

# ---------------------------------------------------------- agent defaults
# Same bytes on the wire for every variant (wire.tcl).
same_wire_bytes $wire
Agent/TCP set windowInit_ 2
Agent/TCP set tcpTick_ 0.01
Agent/TCP set minrto_ $cfg(minrto)
Agent/TCP set rtxcur_init_ $cfg(init_rto)
Agent/TCP set maxrto_ 60
# Limited Slow Start. ns-2.35 applies it in opencwnd()'s *linear* branch (cwnd_ >= ssthresh_)
# while last_cwnd_action_ is 0 or a timeout, and reset() lowers ssthresh_ to max_ssthresh_:
# with ssthresh=0 below, slow start to max_ssthresh_, then K = int(cwnd_ / (max_ssthresh_/2))
# and 1/K per ACK until the first fast retransmit.
Agent/TCP set max_ssthresh_ $cfg(max_ssthresh)
# window_ is min()ed with cwnd_ in window(); 100000 packets = "no cap".
if {$cfg(cap) > 0} {
    Agent/TCP set window_ $cfg(cap)
} else {
    Agent/TCP set window_ 100000
}
Agent/TCPSink/DelAck set interval_ $cfg(delack_interval)
Agent/TCPSink/Sack1/DelAck set interval_ $cfg(delack_interval)

# ---------------------------------------------------------------- topology
set ns [new Simulator]
set s0 [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set d0 [$ns node]
$ns duplex-link $s0 $r1 1Gb 1ms DropTail
$ns duplex-link $r1 $r2 $cfg(rate) $cfg(delay) DropTail
$ns duplex-link $r2 $d0 1Gb 1ms DropTail
# limit_ counts packets including the one being serialised (NS2-NOTES).
# ns-2 sets one direction per call; the bottleneck limit applies to both
# directions (data and ACK paths), as in rampup's bottleneck_queue.
$ns queue-limit $r1 $r2 $cfg(buffer)
$ns queue-limit $r2 $r1 $cfg(buffer)
# The ns-2 default limit_ is 50; the side links get rampup's default
# access_queue (1000) so they never drop.  Drops there are reported anyway.
foreach {a b} [list $s0 $r1 $r1 $s0 $r2 $d0 $d0 $r2] {
    $ns queue-limit $a $b $cfg(access_buffer)
}

# Queue monitors count drops; no trace files are written.
set devnull [open /dev/null w]
set qm_bn  [$ns monitor-queue $r1 $r2 $devnull]
set qm_bnr [$ns monitor-queue $r2 $r1 $devnull]
set qm_acc [$ns monitor-queue $s0 $r1 $devnull]

# ------------------------------------------------------------------ agents
set tcp [new Agent/TCP/$cfg(tcp)]
if {$cfg(tcp) == "Sack1" || $cfg(tcp) == "Linux"} { set sinkclass Agent/TCPSink/Sack1 } else { set sinkclass Agent/TCPSink }
if {$cfg(delack)} { append sinkclass /DelAck }
set sink [new $sinkclass]
# The Linux agent (ns-2.35's TCP-Linux, Wei and Cao 2006) runs a kernel congestion module over
# SACK; it reads its RTT from timestamps, which the sink echoes (ns-2.35 tcp-linux docs).
if {$cfg(tcp) == "Linux"} {
    $tcp set timestamps_ true
    $sink set ts_echo_rfc1323_ true
    $ns at 0.0 "$tcp select_ca $cfg(ca)"
}
$ns attach-agent $s0 $tcp
$ns attach-agent $d0 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

# Optional sender-variable trace, for looking at a run in detail (off by
# default: the reference numbers need no trace).
if {$cfg(trace) != ""} {
    set tf [open $cfg(trace) w]
    $tcp attach $tf
    foreach v {cwnd_ ssthresh_ t_seqno_ ack_ nrexmit_} { $tcp trace $v }
}

# The initial ssthresh_ is overwritten with window_ when the agent is reset
# at the start of the run, so a value set now would be lost: set it at
# t = 0.  Events with equal times run in the order they were scheduled, so
# this runs before the FTP start below (checked: see README).
if {$cfg(ssthresh) > 0} {
    $ns at 0.0 "$tcp set ssthresh_ $cfg(ssthresh)"
}
$ns at 0.0 "$ftp start"
$ns at 0.0 "set ::ssthresh_at_start \[$tcp set ssthresh_\]"

# ----------------------------------------------------------------- results
# delivered_pkts: the sink's in-order packets.  TCPSink's bytes_ adds the
# (wire) size of every packet at the moment it becomes in-order deliverable
# (Acker::update), so bytes_ / wire = next expected seqno = highest in-order
# seqno + 1 (seqnos start at 0 with syn_ false).  delivered_bytes counts
# payload only: delivered_pkts * mss.  Duplicates and out-of-order packets
# above a hole are not counted.  The snapshot is taken by an event at
# t = duration scheduled before the run, i.e. before any packet event at
# exactly that time.
proc finish {} {
    global ns tcp sink cfg wire qm_bn qm_bnr qm_acc
    set sb [$sink set bytes_]
    if {$sb % $wire != 0} {
        puts stderr "warning: sink bytes_ $sb is not a multiple of $wire"
    }
    set pk [expr {$sb / $wire}]
    puts [format "flow tcp=%s delivered_pkts=%d delivered_bytes=%d data_pkts_sent=%d retransmits=%d timeouts=%d bottleneck_drops=%d ack_path_drops=%d access_drops=%d acks_rcvd=%d final_cwnd=%.2f final_ssthresh=%d ssthresh_at_start=%s" \
        $cfg(tcp) $pk [expr {$pk * $cfg(mss)}] \
        [$tcp set ndatapack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_] \
        [$qm_bn set pdrops_] [$qm_bnr set pdrops_] [$qm_acc set pdrops_] \
        [$tcp set nackpack_] [$tcp set cwnd_] [$tcp set ssthresh_] \
        $::ssthresh_at_start]
    exit 0
}
$ns at $cfg(duration) "finish"
$ns run
