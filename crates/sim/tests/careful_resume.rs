//! Careful Resume (draft-ietf-tsvwg-careful-resume-24): the second connection of a flow, 60 s
//! after the first, resumes from what the first saved, on a 100 Mb/s path of 100 ms RTT
//! with a buffer of one BDP and a 2 MB response; beside slow start, with the capacity
//! unchanged, halved between the connections, and shared with a flow that started between
//! them.

mod common;

use rampup_sim::{run_toml, RunOutput};

const RTT_MS: f64 = 100.0;
const MSS: u64 = 1460;

#[derive(Clone, Copy, Debug)]
enum Path {
    Unchanged,
    /// The bottleneck goes to 50 Mb/s at 30 s.
    Halved,
    /// A bulk flow from s1 to r1 starts at 30 s on the same bottleneck.
    Shared,
}

fn scenario(restart: &str, path: Path) -> String {
    let extra = match path {
        Path::Unchanged => String::new(),
        Path::Halved => "[[change]]\nat = \"30s\"\nlink = \"left-right\"\nrate = \"50Mbps\"\n".into(),
        Path::Shared => {
            format!("[[flow]]\nfrom = \"s1\"\nto = \"r1\"\nstart = \"30s\"\napp = {{ kind = \"bulk\" }}\ntcp = {{ mss = {MSS}, recovery = \"sack\" }}\n")
        }
    };
    // One BDP of buffer: 100 Mb/s × 100 ms in packets of 1,500 bytes.
    let rest = format!(
        "bottleneck_queue = {{ packets = 834 }}\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\n\
         app = {{ kind = \"request-response\", request = \"100B\", response = \"2MB\", connections = 2, mean_gap = \"60s\", gaps = \"fixed\" }}\n\
         tcp = {{ mss = {MSS}, initial_window = 10, recovery = \"sack\", rcv_window = \"16MiB\", restart = \"{restart}\" }}\n\
         [trace]\nqueues = false\n{extra}"
    );
    // 1 ms + 48 ms + 1 ms each way: 100 ms.
    common::dumbbell(("1Gbps", "1ms"), ("100Mbps", "48ms"), &rest).replacen("duration = \"1s\"", "duration = \"62s\"", 1).replacen("pairs = 1", "pairs = 2", 1)
}

/// The second connection's figures; `drops` are those of the flow's two connections less
/// what the first retransmitted (with SACK and no reordering, its losses).
#[derive(Debug)]
struct Second {
    ms: f64,
    rtts: f64,
    drops: u64,
    retransmits: u64,
    jump_segments: f64,
    retreat_segments: f64,
}

fn second(out: &RunOutput, label: &str) -> Second {
    let c = out.table("connections");
    let ours: Vec<usize> = (0..c.u64s("flow").len()).filter(|&i| c.u64s("flow")[i] == 0).collect();
    assert_eq!(ours.len(), 2, "{label}: two connections");
    let (first, i) = (ours[0], ours[1]);
    let ms = c.f64s("duration_ns")[i] / 1e6;
    let s = Second {
        ms,
        rtts: ms / RTT_MS,
        drops: out.table("flows").u64s("drops")[0] - c.u64s("retransmits")[first],
        retransmits: c.u64s("retransmits")[i],
        jump_segments: c.u64s("resume_jump_bytes")[i] as f64 / MSS as f64,
        retreat_segments: c.u64s("resume_retreat_bytes")[i] as f64 / MSS as f64,
    };
    println!(
        "{label}: 2 MB in {:.1} ms ({:.2} RTTs), {} drops, {} retransmits; jump {:.1} segments, Safe Retreat {:.1} segments (first connection {:.1} ms, {} retransmits)",
        s.ms,
        s.rtts,
        s.drops,
        s.retransmits,
        s.jump_segments,
        s.retreat_segments,
        c.f64s("duration_ns")[first] / 1e6,
        c.u64s("retransmits")[first],
    );
    s
}

fn run(restart: &str, path: Path) -> Second {
    second(&run_toml(&scenario(restart, path), None).expect("a valid scenario"), &format!("{restart}, {path:?}"))
}

/// §1.4: a later connection of a flow gets up to speed from the saved capacity; on an
/// unchanged path the jump to saved_cwnd / 2, paced over one RTT (§3.3), loses nothing.
#[test]
fn the_second_connection_completes_in_fewer_rtts_than_slow_start_without_loss() {
    let cr = run("careful-resume", Path::Unchanged);
    let ss = run("ssr", Path::Unchanged);
    assert!(cr.jump_segments > 0.0, "the second connection jumped: {cr:?}");
    assert!(cr.rtts < ss.rtts, "Careful Resume {:.2} RTTs, slow start {:.2}", cr.rtts, ss.rtts);
    assert_eq!((cr.drops, cr.retransmits), (0, 0), "{cr:?}");
    assert_eq!(cr.retreat_segments, 0.0);
}

/// §3.5 on the capacity halved after the observation: the check, open. By §3.3's
/// rule the jump is at most saved_cwnd / 2, and the first connection's 2 MB saved less than
/// the path's BDP, so the jump fits the halved path and its buffer: nothing is lost while
/// Careful Resume runs and Safe Retreat has nothing to answer (docs/careful-resume.md).
#[test]
#[ignore = "open: on the halved path the jump fits and nothing is lost, so Safe Retreat does not engage (docs/careful-resume.md)"]
fn with_the_capacity_halved_safe_retreat_engages() {
    let cr = run("careful-resume", Path::Halved);
    run("ssr", Path::Halved);
    assert!(cr.retreat_segments > 0.0, "Safe Retreat engaged: {cr:?}");
}

/// With the capacity halved, the resumed connection still beats slow start, and loses no
/// more than the jump put on the path (§3.3: the unvalidated data is at most jump_cwnd).
#[test]
fn with_the_capacity_halved_the_loss_stays_within_the_jump() {
    let cr = run("careful-resume", Path::Halved);
    let ss = run("ssr", Path::Halved);
    assert!(cr.jump_segments > 0.0, "{cr:?}");
    assert!((cr.drops as f64) <= cr.jump_segments, "{} drops, jump of {:.1} segments", cr.drops, cr.jump_segments);
    assert!(cr.rtts < ss.rtts, "Careful Resume {:.2} RTTs, slow start {:.2}", cr.rtts, ss.rtts);
}

/// §1.5: a flow that started since the observation takes its share; the resumed
/// connection still completes sooner than slow start, and the jump fits what is left.
#[test]
fn a_flow_started_since_the_observation_leaves_room_for_the_jump() {
    let cr = run("careful-resume", Path::Shared);
    let ss = run("ssr", Path::Shared);
    assert!(cr.jump_segments > 0.0, "{cr:?}");
    assert!(cr.rtts < ss.rtts, "Careful Resume {:.2} RTTs, slow start {:.2}", cr.rtts, ss.rtts);
    assert!((cr.drops as f64) <= cr.jump_segments, "{} drops, jump of {:.1} segments", cr.drops, cr.jump_segments);
}
