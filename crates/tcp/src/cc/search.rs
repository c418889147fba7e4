//! SEARCH, Slow start Exit At Right CHokepoint (draft-chung-ccwg-search-09; Kachooei, Chung,
//! Li and Claypool, WoWMoM 2024): slow start ends when the bytes delivered over the last
//! window of time fall short of the bytes sent one RTT before them by more than a threshold,
//! the sign that the bottleneck has stopped passing the doubling on. Delivery is read from
//! the cumulative ACK and sending from SND.NXT, each sampled into bins of a fixed duration
//! (§3.2): a window of `W` bins spans `window_factor` initial RTTs.
//!
//! On exit, ssthresh = cwnd and the controller's congestion avoidance takes over. The draft's
//! drain of cwnd towards the delivered bytes of one initial RTT (§3.2, after the exit check)
//! is left out, as the QUIC implementation in Firefox (neqo) leaves it out: with CUBIC after
//! it the drained window sits below CUBIC's own range. A loss or a timeout ends SEARCH too.

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

    /// §3.2, bin update: an ACK after the bin's end closes it with the ACK's counts, the
    /// bins it skipped carry the last counts, and more than W bins skipped start them again.
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

    /// §3.2, the exit check: while delivery keeps pace with what was sent one RTT before,
    /// slow start goes on; once the bottleneck caps delivery below the doubling sending,
    /// the shortfall passes THRESH and ssthresh is set to cwnd.
    #[test]
    fn slow_start_ends_when_delivery_falls_short_of_what_was_sent_an_rtt_before() {
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

    #[test]
    fn settings_out_of_range_are_refused() {
        let info = &<Boxed as RegisteredStartup>::INFO;
        let read = |given: &[(&'static str, Value)]| Boxed::config(&Settings { part: info, mss_bytes: MSS, given });
        assert_eq!(read(&[]).unwrap(), SearchConfig { window_factor: 3.5, threshold: 0.26 });
        assert_eq!(read(&[("threshold", Value::Number(1.0))]).unwrap_err().key, "threshold");
        assert_eq!(read(&[("window_factor", Value::Number(0.0))]).unwrap_err().key, "window_factor");
    }
}
