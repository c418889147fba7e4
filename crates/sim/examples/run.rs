//! Run a scenario file and print its flow summary:
//! `cargo run --example run -- FILE [SEED] [--csv DIR]`.
//! With `--csv DIR`, every table is also written to `DIR/<table>.csv`.

use std::fmt::Write as _;

use rampup_sim::{Column, Table};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let csv_dir = match args.iter().position(|a| a == "--csv") {
        Some(i) if i + 1 < args.len() => {
            let dir = args.remove(i + 1);
            args.remove(i);
            Some(dir)
        }
        Some(_) => usage(),
        None => None,
    };
    let Some(path) = args.first() else { usage() };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("run: {path}: {e}");
        std::process::exit(2)
    });
    let seed = args.get(1).and_then(|s| s.parse().ok());
    let t0 = std::time::Instant::now();
    match rampup_sim::run_toml(&text, seed) {
        Err(e) => {
            eprintln!("run: error: {e}");
            std::process::exit(2);
        }
        Ok(out) => {
            let wall = t0.elapsed().as_secs_f64();
            for (name, t) in &out.tables {
                if let Some(dir) = &csv_dir {
                    let file = format!("{dir}/{name}.csv");
                    std::fs::write(&file, to_csv(t)).unwrap_or_else(|e| {
                        eprintln!("run: {file}: {e}");
                        std::process::exit(2)
                    });
                }
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

fn usage() -> ! {
    eprintln!("usage: run FILE [SEED] [--csv DIR]");
    std::process::exit(2)
}

/// A table as CSV: a header line, then one line per row (strings are written as they are;
/// the simulator's names contain no commas or quotes).
fn to_csv(t: &Table) -> String {
    let mut s = t.columns.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(",");
    s.push('\n');
    for r in 0..t.rows() {
        for (k, (_, c)) in t.columns.iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            let _ = match c {
                Column::U64(v) => write!(s, "{}", v[r]),
                Column::I64(v) => write!(s, "{}", v[r]),
                Column::F64(v) => write!(s, "{}", v[r]),
                Column::Str(v) => write!(s, "{}", v[r]),
            };
        }
        s.push('\n');
    }
    s
}
