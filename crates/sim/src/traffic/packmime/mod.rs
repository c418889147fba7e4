//! PackMime-HTTP: the web traffic model of Cao, Cleveland, Gao, Jeffay, Smith and Weigle
//! ("Stochastic Models for Generating Synthetic HTTP Source Traffic", INFOCOM 2004), with the
//! constants and rules of ns-2.35's implementation (`packmime/packmime_ranvar.cc` and
//! `packmime_HTTP.cc`), the generator paper 002 ran. A flow of this kind stands for a cloud
//! of web clients (its `from` node) opening connections to a cloud of servers (its `to` node)
//! at `rate` new connections per second.
//!
//! What is drawn, each source from its own stream (as ns-2 gives each random variable its
//! own RNG, so that HTTP/1.1's extra draws shift no size):
//! - the gap to the next connection: Weibull with mean 1/rate, its shape rising with the
//!   rate; successive gaps long-range dependent (`Correlated`);
//! - request sizes: the fitted inverse CDF in `tables`, long-range dependent likewise;
//! - response sizes: alternate runs of cache validations (a few hundred bytes) and downloads
//!   (heavy-tailed), the runs' lengths Weibull;
//! - the server's delay before each response: 1 / max(W, 10) s, W Weibull(0.63, 305);
//! - under HTTP/1.1: whether a connection is persistent (9%), its pages and objects per
//!   page, and the client's pause before each further request.
//!
//! One difference from ns-2, by choice: all that a connection will carry is drawn when it
//! opens (ns-2 draws the server delay when the request arrives), so that a seed gives the
//! same connections whatever TCP carries them, and two TCPs' runs pair connection by
//! connection.

use rampup_tcp::Duration;
use rand::Rng;
use rand_distr::{Distribution, Gamma, StandardNormal};

use super::exchange::Pair;
use crate::rng::Stream;

mod tables;

use tables::*;

/// Which HTTP the clients speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Http {
    /// One request and response per connection; the server closes after the response.
    V1_0,
    /// Some connections persistent (several requests, one after the other's response).
    V1_1,
}

/// How busy the workload is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// New connections per second.
    Rate(f64),
    /// The share of the bottleneck (the slowest link from server to client) that the mean
    /// response bytes fill: the rate is this × bottleneck / (8 × mean response bytes per
    /// connection), payload only (`rate_for`).
    Utilization(f64),
}

/// A web flow as the scenario gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WebSpec {
    pub load: Load,
    pub http: Http,
    /// Stop opening connections after this many (`None`: until the run ends).
    pub connections: Option<u64>,
}

// Constants of ns-2.35's PackMime-HTTP (packmime_ranvar.cc), named by what they shape.
/// Lags of the finite AR form of the arrival process, and its fractional order.
const ARRIVAL_LAGS: usize = 1000;
const ARRIVAL_D: f64 = 0.33;
/// Lags and order of the request-size process.
const REQUEST_LAGS: usize = 5000;
const REQUEST_D: f64 = 0.31;
/// Share of requests drawn from `REQUEST_BODY` (the rest from `REQUEST_TAIL`).
const REQUEST_BODY_SHARE: f64 = 0.5;
/// Weibull scales of the run lengths of cache validations and of downloads.
const RUN_SCALE: [f64; 2] = [0.775, 3.11];
/// The server delay: 1 / max(W, floor) s, W Weibull(shape, scale).
const SERVER_DELAY_SHAPE: f64 = 0.63;
const SERVER_DELAY_SCALE: f64 = 305.0;
const SERVER_DELAY_FLOOR: f64 = 10.0;
/// HTTP/1.1: the share of persistent connections; a connection of one page (else pages are
/// 1 + ⌈Weibull(1, 0.417)⌉); a page of one object when there are several pages (else objects
/// are 1 + ⌈Weibull(1, 1.578)⌉).
const P_PERSISTENT: f64 = 0.09;
const P_ONE_PAGE: f64 = 0.82;
const PAGES_SCALE: f64 = 0.417;
const P_ONE_OBJECT: f64 = 0.69;
const OBJECTS_SCALE: f64 = 1.578;
/// HTTP/1.1: log2 of the pause in seconds between pages, and between a page's objects:
/// loc + √(scale² · v) · Z, loc ~ N(m, var), scale² ~ Gamma(k, 1/k), drawn once per run.
const PAGE_GAP: LogNormalMix = LogNormalMix { mean: 3.22, var: 0.73, shape: 1.85, error_var: 1.21 };
const OBJECT_GAP: LogNormalMix = LogNormalMix { mean: -4.15, var: 3.12, shape: 2.35, error_var: 1.57 };
/// HTTP/1.1: log2 of the sizes of a persistent connection's later responses, the location
/// and scale drawn once per connection; only when its first response is above the cutoff.
const PERSISTENT_RESPONSE: LogNormalMix = LogNormalMix { mean: 10.62, var: 0.94, shape: 3.22, error_var: 2.43 };
const PERSISTENT_CUTOFF_BYTES: u64 = 275;

/// ns-2's uniform numbers have 32 bits: the heavy tails are drawn as far as ns-2 draws them
/// and no further (a download's size stays below 2^38 bytes).
fn open01(rng: &mut Stream) -> f64 {
    (rng.random::<u32>() as f64 + 0.5) / 4_294_967_296.0
}

/// Seconds to the engine's nanoseconds (a cast saturates: an absurd draw is a long wait,
/// not a wrap).
fn secs(s: f64) -> Duration {
    Duration((s * 1e9).round() as u64)
}

fn weibull(rng: &mut Stream, shape: f64, scale: f64) -> f64 {
    scale * (-open01(rng).ln()).powf(1.0 / shape)
}

/// The inverse logit base 2 that PackMime fits its rate-dependent parameters with.
fn logit2_inv(x: f64) -> f64 {
    let p = x.exp2();
    p / (1.0 + p)
}

/// P(Z > z) for a standard normal Z, accurate in the far tail.
fn normal_upper(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// A fitted inverse CDF: linear between its points, and beyond its ends along its first
/// and last segments.
struct Curve {
    x: &'static [f64],
    y: &'static [f64],
}

impl Curve {
    fn at(&self, x: f64) -> f64 {
        let n = self.x.len();
        let i = self.x[1..n - 1].partition_point(|&xi| xi <= x);
        let slope = (self.y[i + 1] - self.y[i]) / (self.x[i + 1] - self.x[i]);
        self.y[i] + slope * (x - self.x[i])
    }
}

const RESPONSE_CACHE: Curve = Curve { x: &RESPONSE_CACHE_X, y: &RESPONSE_CACHE_Y };
const RESPONSE_DOWNLOAD: Curve = Curve { x: &RESPONSE_DOWNLOAD_X, y: &RESPONSE_DOWNLOAD_Y };
const REQUEST_BODY: Curve = Curve { x: &REQUEST_BODY_X, y: &REQUEST_BODY_Y };
const REQUEST_TAIL: Curve = Curve { x: &REQUEST_TAIL_X, y: &REQUEST_TAIL_Y };

/// 2^(loc + √(s · error_var) · Z) with loc ~ N(mean, var) and s ~ Gamma(shape, 1/shape).
#[derive(Clone, Copy, Debug)]
struct LogNormalMix {
    mean: f64,
    var: f64,
    shape: f64,
    error_var: f64,
}

impl LogNormalMix {
    /// A (location, scale²) pair.
    fn draw_params(&self, rng: &mut Stream) -> (f64, f64) {
        let z: f64 = StandardNormal.sample(rng);
        let gamma = Gamma::new(self.shape, 1.0 / self.shape).expect("positive constants");
        (self.mean + self.var.sqrt() * z, gamma.sample(rng))
    }
    fn draw(&self, (loc, scale2): (f64, f64), rng: &mut Stream) -> f64 {
        let z: f64 = StandardNormal.sample(rng);
        (loc + (scale2 * self.error_var).sqrt() * z).exp2()
    }
    /// E[2^(...)]: E[2^loc] · E[exp((ln 2)² · error_var · s / 2)], the latter the gamma's
    /// moment-generating function.
    fn mean(&self) -> f64 {
        let ln2 = std::f64::consts::LN_2;
        let c = ln2 * ln2 * self.error_var / 2.0;
        self.mean.exp2() * (ln2 * ln2 * self.var / 2.0).exp() * (1.0 - c / self.shape).powf(-self.shape)
    }
}

/// Fractionally integrated Gaussian noise of order d, each value from the last `lags`
/// (exact by the Durbin–Levinson recursion while fewer have been drawn, then held at that
/// order, as ns-2 does), passed through the moving average y_t = x_t + x_(t-1) of PackMime's
/// FARIMA(0, d, 1) and scaled to unit variance.
struct Farima {
    d: f64,
    lags: usize,
    /// φ_j (index j ≥ 1) of the current order.
    phi: Vec<f64>,
    /// Once the order is held (t ≥ lags): φ_(lags-1) … φ_1, oldest lag first.
    phi_oldest_first: Vec<f64>,
    /// The innovation variance of the current order.
    v: f64,
    /// The last `lags` values of x, twice: x_t at t % lags and again `lags` on, so that the
    /// history is one slice, oldest first, wherever the ring stands.
    x: Vec<f64>,
    /// While t < lags: x_t at lags − 1 − t, so that x_(t-1) … x_0 is one slice, newest
    /// first, in the order of φ_1 … φ_t.
    newest_first: Vec<f64>,
    t: usize,
    /// 1 / sd(y).
    norm: f64,
}

impl Farima {
    fn new(d: f64, lags: usize) -> Farima {
        let v0 = (libm::lgamma(1.0 - 2.0 * d) - 2.0 * libm::lgamma(1.0 - d)).exp();
        // Var(x_t + x_t-1) = 2 v0 (1 + ρ1), ρ1 = d / (1 - d).
        let norm = 1.0 / (v0 * (2.0 + 2.0 * d / (1.0 - d))).sqrt();
        Farima { d, lags, phi: vec![0.0; lags], phi_oldest_first: Vec::new(), v: v0, x: vec![0.0; 2 * lags], newest_first: vec![0.0; lags], t: 0, norm }
    }

    fn step(&mut self, rng: &mut Stream) -> f64 {
        let (t, lags) = (self.t, self.lags);
        let k = t % lags;
        let mean = if t < lags {
            if t > 0 {
                self.durbin_levinson(t);
            }
            // Σ φ_j x_(t-j), j = 1 … t.
            dot(&self.phi[1..=t], &self.newest_first[lags - t..])
        } else {
            if self.phi_oldest_first.is_empty() {
                self.phi_oldest_first = self.phi[1..].iter().rev().copied().collect();
            }
            // x_(t-lags+1) … x_(t-1), oldest first.
            dot(&self.phi_oldest_first, &self.x[k + 1..k + lags])
        };
        let z: f64 = StandardNormal.sample(rng);
        let xt = mean + self.v.sqrt() * z;
        self.x[k] = xt;
        self.x[k + lags] = xt;
        if t < lags {
            self.newest_first[lags - 1 - t] = xt;
        } else if t == lags {
            self.newest_first = Vec::new();
        }
        self.t += 1;
        xt
    }

    /// Durbin–Levinson from order t − 1 to t: φ_tt = d / (t − d);
    /// φ_tj = φ_(t-1)j − φ_tt φ_(t-1)(t-j); v_t = (1 − φ_tt²) v_(t-1).
    fn durbin_levinson(&mut self, t: usize) {
        let ptt = self.d / (t as f64 - self.d);
        for j in 1..=(t - 1) / 2 {
            let (a, b) = (self.phi[j], self.phi[t - j]);
            self.phi[j] = a - ptt * b;
            self.phi[t - j] = b - ptt * a;
        }
        if t.is_multiple_of(2) {
            let m = t / 2;
            self.phi[m] -= ptt * self.phi[m];
        }
        self.phi[t] = ptt;
        self.v *= 1.0 - ptt * ptt;
    }

    fn next(&mut self, rng: &mut Stream) -> f64 {
        if self.t == 0 {
            self.step(rng);
        }
        let prev = self.x[(self.t - 1) % self.lags];
        (self.step(rng) + prev) * self.norm
    }
}

/// Σ a_i b_i in eight running sums, which the compiler can keep in vector registers: the
/// inner product of every draw, over up to 5,000 lags.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    let mut acc = [0.0f64; 8];
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// A standard normal whose successive values are long-range dependent: the share
/// 1 - `noise` of its variance from a `Farima`, the rest independent noise. Its marginal is
/// N(0, 1), so a fitted inverse CDF of its normal probability keeps the fitted marginal.
struct Correlated {
    farima: Farima,
    noise: f64,
    rng: Stream,
}

impl Correlated {
    fn new(d: f64, lags: usize, noise: f64, rng: Stream) -> Correlated {
        Correlated { farima: Farima::new(d, lags), noise, rng }
    }
    fn next(&mut self) -> f64 {
        let y = self.farima.next(&mut self.rng);
        let z: f64 = StandardNormal.sample(&mut self.rng);
        (1.0 - self.noise).sqrt() * y + self.noise.sqrt() * z
    }
}

/// The rate-dependent shapes of the run lengths (cache validations, downloads).
fn run_shapes(rate: f64) -> [f64; 2] {
    [logit2_inv(0.718 + 0.357 * rate.log2()), logit2_inv(1.293 + 0.316 * rate.log2())]
}

/// The gap to the next connection.
struct Arrivals {
    z: Correlated,
    shape: f64,
    scale: f64,
}

impl Arrivals {
    fn new(rate: f64, rng: Stream) -> Arrivals {
        let shape = logit2_inv(0.352 + 0.388 * rate.log2());
        // Mean scale · Γ(1 + 1/shape) = 1 / rate.
        let scale = 1.0 / (rate * libm::tgamma(1.0 + 1.0 / shape));
        let noise = logit2_inv(0.333 + 0.414 * rate.log2());
        Arrivals { z: Correlated::new(ARRIVAL_D, ARRIVAL_LAGS, noise, rng), shape, scale }
    }
    fn next_secs(&mut self) -> f64 {
        // The Weibull quantile of the normal's probability, from its upper tail.
        self.scale * (-normal_upper(self.z.next()).ln()).powf(1.0 / self.shape)
    }
}

fn request_bytes(z: f64) -> u64 {
    request_bytes_at(normal_upper(z))
}

/// The request bytes at the normal's upper-tail probability `upper`.
fn request_bytes_at(upper: f64) -> u64 {
    let bytes = if upper >= 1.0 - REQUEST_BODY_SHARE {
        REQUEST_BODY.at((1.0 - upper) / REQUEST_BODY_SHARE)
    } else {
        REQUEST_TAIL.at((upper / (1.0 - REQUEST_BODY_SHARE)).log2()).exp2()
    };
    (bytes as u64).max(1)
}

/// Runs of one kind of response, then of the other.
struct Responses {
    download: bool,
    left: u64,
    shapes: [f64; 2],
    rng: Stream,
}

impl Responses {
    fn next(&mut self) -> u64 {
        if self.left == 0 {
            self.download = !self.download;
            let k = self.download as usize;
            self.left = weibull(&mut self.rng, self.shapes[k], RUN_SCALE[k]).ceil() as u64;
        }
        self.left = self.left.saturating_sub(1);
        let u = open01(&mut self.rng);
        let bytes = if self.download { RESPONSE_DOWNLOAD.at((1.0 - u).log2()).exp2() } else { RESPONSE_CACHE.at(u) };
        (bytes as u64).max(1)
    }
}

/// HTTP/1.1's draws: persistence, pages, objects, pauses, later responses.
struct Persistent {
    rng: Stream,
    page_gap: (f64, f64),
    object_gap: (f64, f64),
}

/// A flow's PackMime-HTTP generator.
pub struct PackMime {
    http: Http,
    arrivals: Arrivals,
    requests: Correlated,
    responses: Responses,
    server_delay: Stream,
    persistent: Persistent,
}

impl PackMime {
    /// The generator of flow `f` at `rate` connections per second, from run seed `seed`.
    pub fn new(rate: f64, http: Http, seed: u64, f: u32) -> PackMime {
        let stream = |what: &str| crate::rng::stream(seed, &format!("flow:{f}:{what}"));
        let noise = logit2_inv(0.123 + 0.494 * rate.log2());
        let mut rng = stream("persistent");
        let page_gap = PAGE_GAP.draw_params(&mut rng);
        let object_gap = OBJECT_GAP.draw_params(&mut rng);
        PackMime {
            http,
            arrivals: Arrivals::new(rate, stream("arrivals")),
            requests: Correlated::new(REQUEST_D, REQUEST_LAGS, noise, stream("requests")),
            responses: Responses { download: false, left: 0, shapes: run_shapes(rate), rng: stream("responses") },
            server_delay: stream("server-delay"),
            persistent: Persistent { rng, page_gap, object_gap },
        }
    }

    /// The gap before the next connection.
    pub fn gap(&mut self) -> Duration {
        secs(self.arrivals.next_secs())
    }

    /// What the next connection carries.
    pub fn connection(&mut self) -> Box<[Pair]> {
        let request = request_bytes(self.requests.next());
        let response = self.responses.next();
        let p = &mut self.persistent;
        let persistent = self.http == Http::V1_1 && p.rng.random::<f64>() < P_PERSISTENT;
        if !persistent {
            return Box::new([Pair { request_bytes: request, response_bytes: response, think: self.server_delay(), gap: Duration::ZERO }]);
        }
        let pages = if p.rng.random::<f64>() < P_ONE_PAGE { 1 } else { 1 + (weibull(&mut p.rng, 1.0, PAGES_SCALE).ceil() as u64).max(1) };
        let mut pairs = Vec::new();
        let later = PERSISTENT_RESPONSE.draw_params(&mut p.rng);
        for page in 0..pages {
            let objects =
                if pages > 1 && p.rng.random::<f64>() < P_ONE_OBJECT { 1 } else { 1 + (weibull(&mut p.rng, 1.0, OBJECTS_SCALE).ceil() as u64).max(1) };
            for object in 0..objects {
                let gap_secs = match (page, object) {
                    (0, 0) => 0.0,
                    (_, 0) => PAGE_GAP.draw(p.page_gap, &mut p.rng),
                    _ => OBJECT_GAP.draw(p.object_gap, &mut p.rng),
                };
                pairs.push(Pair { request_bytes: request, response_bytes: response, think: Duration::ZERO, gap: secs(gap_secs) });
            }
        }
        // A persistent connection's later responses: of their own size when the first is a
        // download (ns-2 `PackMimeHTTPPersistRspSize`), else all the same.
        if response > PERSISTENT_CUTOFF_BYTES {
            for pair in &mut pairs[1..] {
                pair.response_bytes = (PERSISTENT_RESPONSE.draw(later, &mut p.rng) as u64).max(1);
            }
        }
        for pair in &mut pairs {
            pair.think = self.server_delay();
        }
        pairs.into_boxed_slice()
    }

    fn server_delay(&mut self) -> Duration {
        secs(1.0 / weibull(&mut self.server_delay, SERVER_DELAY_SHAPE, SERVER_DELAY_SCALE).max(SERVER_DELAY_FLOOR))
    }
}

/// E[⌈W⌉] for W Weibull(shape, scale): Σ_k≥0 P(W > k).
fn mean_ceil_weibull(shape: f64, scale: f64) -> f64 {
    let mut sum = 0.0;
    for k in 0.. {
        let p = (-(k as f64 / scale).powf(shape)).exp();
        sum += p;
        if p < 1e-15 {
            break;
        }
    }
    sum
}

/// The mean of a size drawn as ⌊f(u)⌋ for u uniform on (0, 1) by the midpoint rule in
/// x = log2(1 - u) from -32 (ns-2's resolution, `open01`) to 0, where du = ln 2 · 2^x dx.
fn mean_in_log_tail(f: impl Fn(f64) -> f64) -> f64 {
    const STEPS: usize = 1 << 16;
    let h = 32.0 / STEPS as f64;
    (0..STEPS)
        .map(|i| {
            let x = -32.0 + (i as f64 + 0.5) * h;
            f(x).floor().max(1.0) * std::f64::consts::LN_2 * x.exp2() * h
        })
        .sum()
}

/// The mean of ⌊f(u)⌋ for u uniform on (0, 1), by the midpoint rule.
fn mean_uniform(f: impl Fn(f64) -> f64) -> f64 {
    const STEPS: usize = 1 << 16;
    (0..STEPS).map(|i| f((i as f64 + 0.5) / STEPS as f64).floor().max(1.0)).sum::<f64>() / STEPS as f64
}

/// The mean bytes of a request (the first on a connection).
pub fn mean_request_bytes() -> f64 {
    mean_uniform(|u| request_bytes_at(u) as f64)
}

/// The heap a flow's generator holds: each of its two correlated processes keeps φ, its
/// history twice and, until it has drawn `lags` values, the history newest first (`Farima`).
pub const GENERATOR_HEAP_BYTES: usize = 4 * size_of::<f64>() * (ARRIVAL_LAGS + REQUEST_LAGS);

/// The mean response bytes per connection at `rate` (the run shapes depend on it): the
/// runs' mix of cache validations and downloads, and under HTTP/1.1 a persistent
/// connection's further responses.
pub fn mean_response_bytes(rate: f64, http: Http) -> f64 {
    let shapes = run_shapes(rate);
    let runs = [0, 1].map(|k| mean_ceil_weibull(shapes[k], RUN_SCALE[k]));
    let share_download = runs[1] / (runs[0] + runs[1]);
    let cache = mean_uniform(|u| RESPONSE_CACHE.at(u));
    let download = mean_in_log_tail(|x| RESPONSE_DOWNLOAD.at(x).exp2());
    let one = (1.0 - share_download) * cache + share_download * download;
    if http == Http::V1_0 {
        return one;
    }
    // Requests on a persistent connection: one page of 1 + ⌈W⌉ objects, or 1 + ⌈W'⌉ pages
    // of one object or 1 + ⌈W⌉. The later responses are of their own size after a download
    // (all downloads exceed the cutoff; no cache validation does), else the first's.
    let objects = 1.0 + mean_ceil_weibull(1.0, OBJECTS_SCALE);
    let pages = 1.0 + mean_ceil_weibull(1.0, PAGES_SCALE);
    let requests = P_ONE_PAGE * objects + (1.0 - P_ONE_PAGE) * pages * (P_ONE_OBJECT + (1.0 - P_ONE_OBJECT) * objects);
    let later = share_download * PERSISTENT_RESPONSE.mean() + (1.0 - share_download) * cache;
    one + P_PERSISTENT * (requests - 1.0) * later
}

/// The rate (connections per second) at which the mean response bytes fill `utilization`
/// of `bottleneck_bps`: a fixed point, as the mean depends on the rate.
pub fn rate_for(utilization: f64, bottleneck_bps: f64, http: Http) -> f64 {
    let mut rate = 1.0;
    for _ in 0..100 {
        let next = utilization * bottleneck_bps / (8.0 * mean_response_bytes(rate, http));
        if (next - rate).abs() <= 1e-12 * rate {
            return next;
        }
        rate = next;
    }
    rate
}

#[cfg(test)]
mod tests;
