//! Print the result digest and event count of each scenario file given:
//! `cargo run --release --example digests -- FILE...`. Two builds that print the same lines
//! produce the same results; a performance change must leave them byte-identical.

fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let out = rampup_sim::run_toml(&text, None).unwrap_or_else(|e| panic!("{path}: {e}"));
        println!("{path} {} events {} hops {}", out.digest(), out.events, out.packet_hops);
    }
}
