//! Run a scenario file and print its flow summary: `cargo run --example run -- FILE [SEED]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: run FILE [SEED]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("run: {path}: {e}");
        std::process::exit(2)
    });
    let seed = args.get(2).and_then(|s| s.parse().ok());
    let t0 = std::time::Instant::now();
    match rampup_sim::run_toml(&text, seed) {
        Err(e) => {
            eprintln!("run: error: {e}");
            std::process::exit(2);
        }
        Ok(out) => {
            let wall = t0.elapsed().as_secs_f64();
            for (name, t) in &out.tables {
                if t.rows() > 12 {
                    println!("{name}: {} rows", t.rows());
                    continue;
                }
                println!("{name}:");
                for (col, c) in &t.columns {
                    println!("  {col:>18}: {c:?}");
                }
            }
            println!("events {} in {wall:.3}s", out.events);
        }
    }
}
