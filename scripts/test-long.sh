#!/usr/bin/env bash
# The long tests, after scripts/test.sh (which sets up what they need): every paper's full
# reproduction checked against its docs page (about five minutes on 2 cores), and the TCP
# core once more with its debug assertions on.
set -euo pipefail
cd "$(dirname "$0")/.."

# Its property tests feed the core arbitrary datagrams, and an assertion there is how a SACK
# block beyond the 2^32 bytes above the ACK was found, which the release build let pass.
cargo test -q -p rampup-tcp
python3 -m pytest -q -m long python/tests
