# args.tcl -- key=value command-line arguments for the ns-2 scripts here.
#
#   parse_args SCRIPT CFG
#
# Sets CFG(key) from each key=value in $argv. A malformed argument or a key
# CFG does not already have is a one-line error, naming SCRIPT and the known
# keys, with exit status 1.
proc parse_args {script cfgname} {
    global argv
    upvar $cfgname cfg
    foreach a $argv {
        set kv [split $a =]
        if {[llength $kv] != 2 || ![info exists cfg([lindex $kv 0])]} {
            puts stderr "$script: bad argument '$a' (known keys: [lsort [array names cfg]])"
            exit 1
        }
        set cfg([lindex $kv 0]) [lindex $kv 1]
    }
}
