# wire.tcl -- the same bytes on the wire for every TCP variant, as in rampup.
#
#   same_wire_bytes WIRE
#
# Every data packet is WIRE bytes (payload + header) on every link, and every
# ACK 40 bytes.  With useHeaders_ true, TcpAgent adds a 40-byte header to every
# data packet except seqno 0, while Vegas has its own output() that never adds
# it; so headers are switched off and packetSize_ is set to payload + header.
# syn_ true (the 2.35 default) makes TcpAgent send seqno 0 as a 40-byte "SYN"
# carrying no data -- but without waiting for it, so it is not a handshake
# either -- and Vegas ignores it.  Off: seqno 0 is a full-size data packet, as
# in rampup with handshake = false.  delay_growth_ true would reset cwnd to
# windowInit_ at the first ACK.  40-byte ACKs are also the 2.35 default; set so
# it is explicit.
proc same_wire_bytes {wire} {
    Agent/TCP set useHeaders_ false
    Agent/TCP set packetSize_ $wire
    Agent/TCP set syn_ false
    Agent/TCP set delay_growth_ false
    Agent/TCPSink set packetSize_ 40
}

# uncapped_agents MINRTO -- ns-2.35's windowInit_ 2 and 10 ms tick, set explicitly so that a
# script does not depend on the defaults, the given minrto_, maxrto_ 60 s, and no cap on the
# window (window_ is also the initial ssthresh_, so that is unlimited too).
proc uncapped_agents {minrto} {
    Agent/TCP set windowInit_ 2
    Agent/TCP set tcpTick_ 0.01
    Agent/TCP set minrto_ $minrto
    Agent/TCP set maxrto_ 60
    Agent/TCP set window_ 100000
}
