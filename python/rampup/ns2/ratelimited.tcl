# A rate-limited source over ns-2.35's one-way TCP (Agent/TCP/Sack1 to TCPSink/Sack1), for
# validation/compare_newcwv.py: an application of 512 kb/s (CBR of 1000-byte writes), idle
# from 10 s to 15 s, at 12 kb/s from 20 s to 25 s, over 100 Mb/s with 100 ms one way. Prints
# every 100 ms a line "sample t=T bytes=B cwnd=W": the time, the bytes the sink received
# (headers included) and the sender's cwnd_.
#
#   ns ratelimited.tcl DURATION_S
if {$argc != 1} {
    puts stderr "usage: ns ratelimited.tcl DURATION_S"
    exit 1
}
set duration [lindex $argv 0]
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 100Mb 100ms DropTail
$ns queue-limit $n0 $n1 1700
set tcp [new Agent/TCP/Sack1]
$tcp set packetSize_ 1000
# No window cap (window_ defaults to 20), one-segment initial window (the restart window
# after an idle is 1 segment whatever it is), no reset of cwnd at the first ACK, RFC 6298's
# minimum RTO of paper 003 §4.
$tcp set window_ 100000
$tcp set windowInit_ 1
$tcp set delay_growth_ false
$tcp set minrto_ 1
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink/Sack1]
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set app [new Application/Traffic/CBR]
$app set packetSize_ 1000
$app set rate_ 512kb
$app set random_ 0
$app attach-agent $tcp
proc sample {} {
    global ns sink tcp
    set now [$ns now]
    puts "sample t=[format %.1f $now] bytes=[$sink set bytes_] cwnd=[$tcp set cwnd_]"
    $ns at [expr {$now + 0.1}] "sample"
}
$ns at 0.0 "$app start"
$ns at 0.0 "sample"
$ns at 10.0 "$app stop"
$ns at 15.0 "$app start"
$ns at 20.0 "$app stop; $app set rate_ 12kb; $app start"
$ns at 25.0 "$app stop; $app set rate_ 512kb; $app start"
$ns at $duration "exit 0"
$ns run
