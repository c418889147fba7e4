//! SEARCH, Slow start Exit At Right CHokepoint (draft-chung-ccwg-search-09; Kachooei, Chung,
//! Li and Claypool, WoWMoM 2024): slow start ends when the bytes delivered over the last
//! window of time fall short of the bytes sent one RTT before them by more than a threshold,
//! the sign that the bottleneck has stopped passing the doubling on. Delivery is read from
//! the cumulative ACK and sending from SND.NXT, each sampled into bins of a fixed duration
//! (§3.2): a window of `W` bins spans `window_factor` initial RTTs.
//!
//! "One RTT before" is the RTT of the ACK that closes a bin, as in §3.2's pseudocode
//! (`prev_idx = curr_idx - rtt / BIN_DURATION` with `rtt` from `ACK_arrived`), in neqo and in
//! the authors' FreeBSD module. Under ACK clocking that RTT is the age of the data the ACK
//! covers, so the sent window ends where the delivered one does; the shortfall is what was
//! sent over the RTT's rise within one window, and a queue must grow for some time before it
//! reaches THRESH (docs/search.md, "Why it exits late").
//!
//! On exit, ssthresh = cwnd and the controller's congestion avoidance takes over. The draft's
//! drain of cwnd towards the delivered bytes of one initial RTT (§3.2, after the exit check)
//! is left out, as the QUIC implementation in Firefox (neqo) leaves it out (docs/search.md,
//! "Where we differ"). A loss or a timeout ends SEARCH too.

use super::{AckCtx, CongestionEvent, RegisteredStartup, Startup, Window};
use crate::registry::{Family, Key, PartInfo, Refusal, Settings, Unit, Value};
use crate::time::{Duration, Time};

/// W, the bins of one window (§3.1).
const W: usize = 10;
/// EXTRA_BINS (§3.1): the sent bins kept beyond one window, so that the RTT may grow to
/// this many bins above its initial value and the look back of one RTT still finds them.
const EXTRA_BINS: usize = 15;
const ACKED_BINS: usize = W + 1;
const SENT_BINS: usize = W + 1 + EXTRA_BINS;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// WINDOW_SIZE_FACTOR (§3.1): the window is this many initial RTTs.
    pub window_factor: f64,
    /// THRESH (§3.1): the normalised shortfall of delivery at which slow start ends.
    pub threshold: f64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        <Boxed as RegisteredStartup>::config(&Settings::defaults(&<Boxed as RegisteredStartup>::INFO)).expect("the defaults pass the checks")
    }
}

/// The bins, once the first RTT sample has set their duration (§3.2, initialisation).
#[derive(Clone, Debug)]
struct Bins {
    duration: Duration,
    /// The end of bin `index`: an ACK after it closes the bin.
    end: Time,
    index: usize,
    /// The cumulative ACK and SND.NXT at the close of each bin, as rings.
    acked: [u64; ACKED_BINS],
    sent: [u64; SENT_BINS],
}

#[derive(Clone, Debug)]
pub struct Search {
    cfg: SearchConfig,
    bins: Option<Bins>,
    done: bool,
}

/// Boxed in `StartupPart`, as HyStart++: the bins would set the size of every connection's
/// window state.
pub type Boxed = Box<Search>;

impl Search {
    pub fn new(cfg: SearchConfig) -> Self {
        Search { cfg, bins: None, done: false }
    }

    /// The RTT of the first sample sets the bins' duration, window_factor × RTT / W (§3.2,
    /// initialisation).
    fn start_bins(&mut self, now: Time, rtt: Duration, acked: u64, sent: u64) {
        let duration = Duration((rtt.as_nanos() as f64 * self.cfg.window_factor / W as f64) as u64);
        if duration == Duration::ZERO {
            return;
        }
        let mut b = Bins { duration, end: now + duration, index: 0, acked: [0; ACKED_BINS], sent: [0; SENT_BINS] };
        (b.acked[0], b.sent[0]) = (acked, sent);
        self.bins = Some(b);
    }

    /// The normalised shortfall, (sent one RTT ago − delivered now) / sent, over one window
    /// that ends with the bin just closed (§3.2, the exit check); None while the bins do not
    /// yet reach one window and one RTT back, or reach back further than they keep.
    fn shortfall(&self, rtt: Duration) -> Option<f64> {
        let b = self.bins.as_ref()?;
        let bin = b.duration.as_nanos();
        let (back, part) = ((rtt.as_nanos() / bin) as usize, rtt.as_nanos() % bin);
        let prev = b.index.checked_sub(back)?;
        if prev <= W || back >= EXTRA_BINS {
            return None;
        }
        let delivered = b.acked[b.index % ACKED_BINS] - b.acked[(b.index - W) % ACKED_BINS];
        // One RTT back falls `part` into the bin before `prev`: interpolate between the
        // windows that end at the two bins' ends.
        let sent_to = |i: usize| (b.sent[i % SENT_BINS] - b.sent[(i - W) % SENT_BINS]) as u128;
        let sent = ((sent_to(prev) * (bin - part) as u128 + sent_to(prev - 1) * part as u128) / bin as u128) as u64;
        (sent > 0).then(|| sent.saturating_sub(delivered) as f64 / sent as f64)
    }

    /// Closes the bins that ended before `now` with the ACK's counts (§3.2, bin update). An
    /// ACK after more than a window of bins without one finds the bins stale (an idle or an
    /// application limit): they start again (§3.2, missed bins).
    fn update_bins(&mut self, now: Time, acked: u64, sent: u64) -> bool {
        let Some(b) = self.bins.as_mut() else { return false };
        if now <= b.end {
            return false;
        }
        let passed = (now.since(b.end).as_nanos() / b.duration.as_nanos()) as usize + 1;
        if passed > W {
            self.bins = None;
            return false;
        }
        let (last_acked, last_sent) = (b.acked[b.index % ACKED_BINS], b.sent[b.index % SENT_BINS]);
        for i in b.index + 1..b.index + passed {
            (b.acked[i % ACKED_BINS], b.sent[i % SENT_BINS]) = (last_acked, last_sent);
        }
        b.index += passed;
        b.end += Duration(b.duration.0 * passed as u64);
        (b.acked[b.index % ACKED_BINS], b.sent[b.index % SENT_BINS]) = (acked, sent);
        true
    }
}

impl RegisteredStartup for Boxed {
    const INFO: PartInfo = PartInfo {
        family: Family::Startup,
        name: "search",
        doc: "draft-chung-ccwg-search: slow start ends when delivery falls short of what was sent one RTT before",
        keys: &[
            Key { name: "window_factor", unit: Unit::Number, default: Value::Number(3.5), doc: "WINDOW_SIZE_FACTOR: the window of W = 10 bins, in initial RTTs" },
            Key { name: "threshold", unit: Unit::Number, default: Value::Number(0.26), doc: "THRESH: the shortfall of delivery, a fraction of what was sent, that ends slow start" },
        ],
        per_segment: false,
    };
    type Config = SearchConfig;
    fn config(s: &Settings) -> Result<SearchConfig, Refusal> {
        let (window_factor, threshold) = (s.number("window_factor"), s.number("threshold"));
        // The window must hold W bins of at least one nanosecond at any RTT of a microsecond
        // or more; a larger one keeps the bins longer than an idle of any length.
        if !(0.01..=100.0).contains(&window_factor) {
            return Err(Refusal { key: "window_factor", why: format!("must be a number from 0.01 to 100 initial RTTs, like 3.5 (got {window_factor})") });
        }
        if !(threshold > 0.0 && threshold < 1.0) {
            return Err(Refusal { key: "threshold", why: format!("must be a fraction above 0 and below 1, like 0.26 (got {threshold})") });
        }
        Ok(SearchConfig { window_factor, threshold })
    }
    fn new(cfg: &SearchConfig) -> Self {
        Box::new(Search::new(*cfg))
    }
}

impl Startup for Search {
    // Out of line, as HyStart's: most runs use the parts whose dispatch is inlined.
    #[inline(never)]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        if self.done || w.cwnd >= w.ssthresh {
            return false;
        }
        let Some(rtt) = ctx.measure.latest_rtt() else { return false };
        if self.bins.is_none() {
            self.start_bins(ctx.now, rtt, ctx.ack, ctx.snd_nxt);
            return false;
        }
        if !self.update_bins(ctx.now, ctx.ack, ctx.snd_nxt) {
            return false;
        }
        if self.shortfall(rtt).is_some_and(|s| s >= self.cfg.threshold) {
            w.ssthresh = w.cwnd;
            self.done = true;
        }
        false
    }

    /// A loss or a timeout: the controller's loss response ends slow start instead.
    fn on_congestion_event(&mut self, _w: &Window, _ev: &CongestionEvent) {
        self.done = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{Measure, RtoConfig};
    use crate::test_util::ack_ctx;

    const MSS: u64 = 1000;
    const RTT: Duration = Duration::from_millis(100);

    fn measure() -> Measure {
        let mut m = Measure::new(RtoConfig::default());
        m.on_rtt_sample(RTT);
        m
    }

    fn at_ms(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    /// ACKs every 5 ms for `ms` milliseconds: SND.NXT runs at `send(t)` bytes and the
    /// cumulative ACK one RTT behind it, but never above `cap` bytes per ms of delivery.
    fn drive(s: &mut Search, w: &mut Window, ms: u64, send: impl Fn(u64) -> u64, cap: Option<u64>) -> Option<u64> {
        let m = measure();
        let mut delivered = 0;
        for t in (0..=ms).step_by(5) {
            let target = t.checked_sub(100).map_or(0, &send);
            delivered = cap.map_or(target, |c| target.min(delivered + 5 * c));
            let ctx = AckCtx { ack: delivered, snd_nxt: send(t), ..ack_ctx(at_ms(t), MSS, &m) };
            s.on_ack(w, &ctx);
            if s.done {
                return Some(t);
            }
        }
        None
    }

    /// §3.2, initialisation: the first ACK sets bins of window_factor × RTT / W = 35 ms.
    #[test]
    fn the_first_rtt_sets_bins_of_a_tenth_of_the_window() {
        let mut s = Search::new(SearchConfig::default());
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX };
        drive(&mut s, &mut w, 0, |t| t * 1000, None);
        let b = s.bins.as_ref().expect("bins from the first ACK");
        assert_eq!((b.duration, b.end, b.index), (Duration::from_millis(35), at_ms(35), 0));
    }

    /// §3.2, bin update: an ACK after the bin's end closes it with the ACK's counts, and the
    /// bins it skipped carry the last counts; the draft's optional handling of missed bins: more
    /// than W bins skipped start them again.
    #[test]
    fn bins_close_at_their_end_and_skipped_bins_carry_the_last_counts() {
        let mut s = Search::new(SearchConfig::default());
        s.start_bins(at_ms(0), RTT, 0, 0);
        assert!(!s.update_bins(at_ms(35), 5, 7), "35 ms is the bin's end, not after it");
        assert!(s.update_bins(at_ms(36), 5, 7));
        assert!(s.update_bins(at_ms(140), 9, 11), "three bins on: 70, 105 and 140 ms");
        let b = s.bins.as_ref().unwrap();
        assert_eq!((b.index, b.end), (4, at_ms(175)));
        assert_eq!((b.acked[2], b.acked[3], b.acked[4]), (5, 5, 9));
        assert_eq!((b.sent[2], b.sent[3], b.sent[4]), (7, 7, 11));
        assert!(!s.update_bins(at_ms(175 + 10 * 35 + 1), 20, 20), "eleven bins skipped");
        assert!(s.bins.is_none());
    }

    /// §3.2, the exit check, at a steady RTT: while delivery keeps pace with what was sent one
    /// RTT before, slow start goes on; once a cap holds delivery below the doubling sending,
    /// the shortfall passes THRESH and ssthresh is set to cwnd. `drive` keeps the RTT at
    /// 100 ms whatever the cap, as no queue in front of a bottleneck would
    /// (`a_queue_that_fills_delays_the_exit_past_two_bdp_of_buffer` lets it grow).
    #[test]
    fn at_a_steady_rtt_slow_start_ends_when_delivery_falls_short_of_what_was_sent() {
        // Sending doubles every RTT: SND.NXT = 1000 B/ms × 2^(t/100 ms), as a smooth curve.
        let doubling = |t: u64| (1000.0 * t as f64 * 2f64.powf(t as f64 / 100.0)) as u64;
        let mut s = Search::new(SearchConfig::default());
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX };
        assert_eq!(drive(&mut s, &mut w, 3000, doubling, None), None, "no cap: delivery is what was sent an RTT ago");
        assert_eq!(w.ssthresh, u64::MAX);
        let mut s = Search::new(SearchConfig::default());
        let exit = drive(&mut s, &mut w, 3000, doubling, Some(20_000)).expect("a cap of 20 MB/s ends slow start");
        assert_eq!(w.ssthresh, w.cwnd);
        // Sending, 1000 B/ms × 2^(t/100) × (1 + t ln 2 / 100), passes 20 MB/s near 270 ms, so
        // the cap first holds delivery back near 370 ms: the exit comes after that and within
        // one window (350 ms) of it.
        assert!((370..=720).contains(&exit), "exit at {exit} ms");
    }

    /// The threshold decides: the same capped run exits later with a higher one and never
    /// with a shortfall it cannot reach.
    #[test]
    fn a_higher_threshold_exits_later() {
        let doubling = |t: u64| (1000.0 * t as f64 * 2f64.powf(t as f64 / 100.0)) as u64;
        let exit = |threshold| {
            let mut s = Search::new(SearchConfig { threshold, ..SearchConfig::default() });
            let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX };
            drive(&mut s, &mut w, 3000, doubling, Some(20_000))
        };
        let (low, high) = (exit(0.26).unwrap(), exit(0.6).unwrap());
        assert!(low < high, "{low} ms, {high} ms");
    }

    /// Before a window and one RTT of bins exist, no exit (the warm-up of §3.2).
    #[test]
    fn no_exit_before_a_window_and_an_rtt_of_bins() {
        let mut s = Search::new(SearchConfig::default());
        s.start_bins(at_ms(0), RTT, 0, 0);
        for i in 1..=12u64 {
            s.update_bins(at_ms(35 * i + 1), 0, 1000 * i);
        }
        // Bin 12 ends at 455 ms; one RTT back is bin 10 minus a fraction: within W.
        assert_eq!(s.shortfall(RTT), None, "prev index 10 is not past W");
        s.update_bins(at_ms(35 * 13 + 1), 0, 13_000);
        assert_eq!(s.shortfall(RTT), Some(1.0), "nothing delivered of what was sent");
    }

    /// §3.2, the exit check: one RTT back falls `part` into the bin before `prev`, and the
    /// sent bytes are interpolated between the windows ending at `prev` and `prev - 1` (back
    /// in time, where the instant lies; draft-09's pseudocode reaches forward, to `prev + 1`).
    #[test]
    fn the_look_back_interpolates_towards_the_earlier_bin() {
        let mut s = Search::new(SearchConfig::default());
        s.start_bins(at_ms(0), RTT, 0, 0);
        for i in 1..=14u64 {
            s.update_bins(at_ms(35 * i + 1), 500 * i * i, 1000 * i * i);
        }
        // 84 ms = 2 bins and 0.4 of one: prev = 12. Sent over the window ending at bin 12:
        // 140,000 B, at bin 11: 120,000 B; 0.6 of one and 0.4 of the other is 132,000 B.
        // Delivered over bins 4-14: 90,000 B. Reaching forward (bin 13: 160,000 B) would give
        // 148,000 B sent.
        assert_eq!(s.shortfall(Duration::from_millis(84)), Some(42_000.0 / 132_000.0));
    }

    /// §3.2, the exit check's guard: the sent bins reach EXTRA_BINS back, so an RTT of 15 bins
    /// or more above the bins' start finds none and the check waits (neqo's RttInflated).
    #[test]
    fn no_exit_check_when_the_rtt_outgrows_the_kept_bins() {
        let mut s = Search::new(SearchConfig::default());
        s.start_bins(at_ms(0), RTT, 0, 0);
        for i in 1..=30u64 {
            s.update_bins(at_ms(35 * i + 1), 0, 1000 * i);
        }
        assert_eq!(s.shortfall(Duration::from_millis(14 * 35 + 34)), Some(1.0), "14 bins back: kept");
        assert_eq!(s.shortfall(Duration::from_millis(15 * 35)), None, "15 bins back: gone");
    }

    /// One flow in slow start (IW 10, each ACK releasing two segments) through a bottleneck
    /// of 80 µs per segment (100 Mb/s) with a base RTT of 50 ms and no buffer limit; the ACK
    /// of segment i returns 49 ms after it leaves the bottleneck and carries its RTT. Returns
    /// the time SEARCH ends slow start and the time the queue first holds `buffer` segments.
    fn through_a_bottleneck(buffer: u64) -> (Option<Time>, Option<Time>) {
        const TX_NS: u64 = 80_000;
        let (n, iw) = (20_000usize, 10usize);
        let mut s = Search::new(SearchConfig::default());
        let mut w = Window { cwnd: iw as u64 * MSS, ssthresh: u64::MAX };
        let mut m = Measure::new(RtoConfig::default());
        let (mut ack_ns, mut departed_ns) = (vec![0u64; n], 0u64);
        let (mut exit, mut overflow) = (None, None);
        for i in 0..n {
            let sent_ns = if i < iw { 0 } else { ack_ns[(i - iw) / 2] };
            let arrive_ns = sent_ns + 1_000_000;
            if overflow.is_none() && departed_ns >= arrive_ns + buffer * TX_NS {
                overflow = Some(Time(arrive_ns));
            }
            departed_ns = departed_ns.max(arrive_ns) + TX_NS;
            ack_ns[i] = departed_ns + 49_000_000;
            if exit.is_none() {
                m.on_rtt_sample(Duration(ack_ns[i] - sent_ns));
                let snd_nxt = (iw + 2 * i) as u64 * MSS;
                let ctx = AckCtx { ack: (i as u64 + 1) * MSS, snd_nxt, ..ack_ctx(Time(ack_ns[i]), MSS, &m) };
                s.on_ack(&mut w, &ctx);
                w.cwnd += MSS;
                exit = s.done.then_some(Time(ack_ns[i]));
            }
            if exit.is_some() && overflow.is_some() {
                break;
            }
        }
        (exit, overflow)
    }

    /// §3.2 with the ACK's RTT as the look back: once the queue grows, the RTT grows with it,
    /// the data an ACK covers is one current RTT old, and what is delivered over a window is
    /// what was sent over it but for the span of the RTT's rise. The shortfall reaches
    /// THRESH only after the RTT has risen by a good part of the window (3.5 base RTTs), so
    /// two BDPs of buffer (1,250 segments, 100 ms) overflow before SEARCH ends slow start:
    /// the scenario test's finding (`crates/sim/tests/search.rs`), without the simulator.
    #[test]
    fn a_queue_that_fills_delays_the_exit_past_two_bdp_of_buffer() {
        let (exit, overflow) = through_a_bottleneck(1250);
        let (exit, overflow) = (exit.expect("SEARCH ends slow start"), overflow.expect("the queue reaches 1,250"));
        assert!(exit > overflow, "exit at {exit:?}, a 2-BDP buffer overflows at {overflow:?}");
    }

    #[test]
    fn settings_out_of_range_are_refused() {
        let info = &<Boxed as RegisteredStartup>::INFO;
        let read = |given: &[(&'static str, Value)]| Boxed::config(&Settings { part: info, mss_bytes: MSS, given });
        assert_eq!(read(&[]).unwrap(), SearchConfig { window_factor: 3.5, threshold: 0.26 });
        assert_eq!(read(&[("threshold", Value::Number(1.0))]).unwrap_err().key, "threshold");
        assert_eq!(read(&[("window_factor", Value::Number(0.0))]).unwrap_err().key, "window_factor");
    }
}
