# PackMime-HTTP over Full-TCP Reno across a dumbbell: the reference for rampup's web
# workload (validation/compare_packmime.py, docs/validation.md) and for `rampup bench --web`.
#
#   ns packmime.tcl RATE DELAY_MS QUEUE_PKTS DURATION_S RUN HTTP OUTFILE
#
# Clients on c, servers on s; c - r1 - r2 - s, access links 100 Mb/s and 0 ms, the
# bottleneck r1 - r2 5 Mb/s with DELAY_MS one way and a DropTail queue of QUEUE_PKTS.
# RUN selects the RNG substreams (PackMime's set-run); HTTP is 1.0 or 1.1. Writes PackMime's
# per-response lines to OUTFILE (completed responses) and OUTFILE.sizes (each response as the
# server sends it: request and response sizes), and prints, at the end, the connections started (to stderr,
# as PackMime's total-connections does) and one line:
#   connections  bytes_down <bytes departed r2->r1> drops_down <packets dropped there> seconds <DURATION_S>

set rate [lindex $argv 0]
set delay [lindex $argv 1]
set qlim [lindex $argv 2]
set duration [lindex $argv 3]
set run [lindex $argv 4]
set http [lindex $argv 5]
set outfile [lindex $argv 6]

remove-all-packet-headers
add-packet-header IP TCP
set ns [new Simulator]
$ns use-scheduler Heap

set c [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set s [$ns node]
$ns duplex-link $c $r1 100Mb 0ms DropTail
$ns duplex-link $r1 $r2 5Mb ${delay}ms DropTail
$ns duplex-link $r2 $s 100Mb 0ms DropTail
$ns queue-limit $r1 $r2 $qlim
$ns queue-limit $r2 $r1 $qlim
set qm [$ns monitor-queue $r2 $r1 ""]

set pm [new PackMimeHTTP]
$pm set-client $c
$pm set-server $s
$pm set-rate $rate
$pm set-run $run
if {$http == "1.1"} { $pm set-http-1.1 }
$pm set-outfile $outfile
$pm set-filesz-outfile $outfile.sizes

proc finish {} {
    global pm qm duration
    puts "connections [$pm total-connections] bytes_down [$qm set bdepartures_] drops_down [$qm set pdrops_] seconds $duration"
    exit 0
}
$ns at 0.0 "$pm start"
$ns at $duration "$pm stop"
$ns at $duration "finish"
$ns run
