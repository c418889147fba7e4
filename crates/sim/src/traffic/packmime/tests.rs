use super::*;

fn rng(name: &str) -> Stream {
    crate::rng::stream(7, name)
}

#[test]
fn a_curve_passes_through_its_points_and_extends_its_end_segments() {
    let c = REQUEST_BODY;
    for i in 0..c.x.len() {
        assert!((c.at(c.x[i]) - c.y[i]).abs() < 1e-9, "point {i}");
    }
    let mid = (c.x[3] + c.x[4]) / 2.0;
    assert!((c.at(mid) - (c.y[3] + c.y[4]) / 2.0).abs() < 1e-9);
    // Below the first point along the first segment, past the last along the last.
    let s0 = (c.y[1] - c.y[0]) / (c.x[1] - c.x[0]);
    assert!((c.at(0.0) - (c.y[0] - s0 * c.x[0])).abs() < 1e-9);
    let n = c.x.len();
    let s = (c.y[n - 1] - c.y[n - 2]) / (c.x[n - 1] - c.x[n - 2]);
    assert!((c.at(c.x[n - 1] + 0.5) - (c.y[n - 1] + s * 0.5)).abs() < 1e-9);
}

/// The autocorrelation at lag k of fractionally integrated noise of order d:
/// Γ(k + d) Γ(1 - d) / (Γ(k - d + 1) Γ(d)) (Hosking 1981, eq. 3.2).
fn rho_fi(d: f64, k: f64) -> f64 {
    (libm::lgamma(k + d) + libm::lgamma(1.0 - d) - libm::lgamma(k - d + 1.0) - libm::lgamma(d)).exp()
}

#[test]
fn farima_output_has_unit_variance_and_the_lag_one_correlation_of_its_order() {
    let d = 0.33;
    let mut f = Farima::new(d, 300);
    let mut r = rng("farima");
    let y: Vec<f64> = (0..60_000).map(|_| f.next(&mut r)).collect();
    let n = y.len() as f64;
    let mean = y.iter().sum::<f64>() / n;
    let var = y.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let cov1 = y.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / (n - 1.0);
    // y_t = x_t + x_(t-1): ρ_y(1) = (1 + 2ρ1 + ρ2) / (2 + 2ρ1).
    let (r1, r2) = (rho_fi(d, 1.0), rho_fi(d, 2.0));
    assert!((r1 - d / (1.0 - d)).abs() < 1e-12);
    let want = (1.0 + 2.0 * r1 + r2) / (2.0 + 2.0 * r1);
    // Long-range dependence makes the sample variance converge slowly: 5% and 0.03 are
    // some four standard errors at this length.
    assert!((var - 1.0).abs() < 0.05, "variance {var}");
    assert!((cov1 / var - want).abs() < 0.03, "lag-1 correlation {} want {want}", cov1 / var);
}

#[test]
fn connection_gaps_have_mean_one_over_the_rate() {
    for rate in [2.0, 20.0] {
        let mut a = Arrivals::new(rate, rng("gaps"));
        let n = 200_000;
        let mean = (0..n).map(|_| a.next_secs()).sum::<f64>() / n as f64;
        assert!((mean * rate - 1.0).abs() < 0.03, "rate {rate}: mean gap {mean}");
    }
}

/// The share of `draws` at or below `bytes`.
fn cdf(draws: &[u64], bytes: u64) -> f64 {
    draws.iter().filter(|&&b| b <= bytes).count() as f64 / draws.len() as f64
}

#[test]
fn request_sizes_follow_the_fitted_distribution() {
    let mut z = Correlated::new(REQUEST_D, 500, logit2_inv(0.123 + 0.494 * 10f64.log2()), rng("requests"));
    let draws: Vec<u64> = (0..100_000).map(|_| request_bytes(z.next())).collect();
    // Half the requests come from the body curve, whose end is at 421 bytes; its median
    // (p = 0.25, x = 0.5) is 350 bytes.
    assert!((cdf(&draws, 421) - 0.5).abs() < 0.02, "P(<= 421) {}", cdf(&draws, 421));
    assert!((cdf(&draws, 350) - 0.25).abs() < 0.02, "P(<= 350) {}", cdf(&draws, 350));
    // The tail: P(size > 2^y) = 0.5 · 2^x on REQUEST_TAIL; at x = -4.13684, y = 10.5646.
    let bytes = 10.5646f64.exp2() as u64;
    let want = 1.0 - 0.5 * (-4.13684f64).exp2();
    assert!((cdf(&draws, bytes) - want).abs() < 0.01, "P(<= {bytes}) {} want {want}", cdf(&draws, bytes));
}

#[test]
fn responses_alternate_runs_in_the_shares_their_lengths_give() {
    let rate = 10.0;
    let mut r = Responses { download: false, left: 0, shapes: run_shapes(rate), rng: rng("responses") };
    let draws: Vec<u64> = (0..200_000).map(|_| r.next()).collect();
    let runs = [0, 1].map(|k| mean_ceil_weibull(run_shapes(rate)[k], RUN_SCALE[k]));
    let share_download = runs[1] / (runs[0] + runs[1]);
    // Cache validations never pass 273 bytes; downloads start above 275.
    let cache = cdf(&draws, 273);
    assert!((1.0 - cache - share_download).abs() < 0.01, "downloads {} want {share_download}", 1.0 - cache);
    // A download's median: 2^RESPONSE_DOWNLOAD(log2 0.5).
    let median = RESPONSE_DOWNLOAD.at(-1.0).exp2() as u64;
    let below = (cdf(&draws, median) - cache) / (1.0 - cache);
    assert!((below - 0.5).abs() < 0.01, "downloads at or below {median}: {below}");
}

#[test]
fn mean_ceil_weibull_of_an_exponential_is_a_geometric_sum() {
    // W exponential with mean s: Σ e^(-k/s) = 1 / (1 - e^(-1/s)).
    let s = 1.578;
    assert!((mean_ceil_weibull(1.0, s) - 1.0 / (1.0 - (-1.0 / s).exp())).abs() < 1e-9);
}

#[test]
fn the_log_tail_integral_matches_a_closed_form() {
    // f = 2^(-x/2) (≥ 1 on x ≤ 0, floored by the rule): compare with the same integral
    // done by hand, ∫_-32^0 ⌊2^(-x/2)⌋ ln2 2^x dx, through the unfloored part's closed
    // form ∫ 2^(x/2) ln 2 dx = 2 (1 - 2^-16) and a floor correction below 1 byte.
    let m = mean_in_log_tail(|x| (-x / 2.0).exp2());
    let unfloored = 2.0 * (1.0 - (-16f64).exp2());
    assert!(m <= unfloored && m > unfloored - 1.0, "{m} vs {unfloored}");
}

#[test]
fn http_1_1_makes_nine_percent_of_connections_persistent_with_the_mean_requests() {
    let mut g = PackMime::new(10.0, Http::V1_1, 3, 0);
    let conns: Vec<Box<[Pair]>> = (0..100_000).map(|_| g.connection()).collect();
    let persistent: Vec<&Box<[Pair]>> = conns.iter().filter(|c| c.len() > 1).collect();
    let share = persistent.len() as f64 / conns.len() as f64;
    assert!((share - P_PERSISTENT).abs() < 0.005, "persistent {share}");
    let objects = 1.0 + mean_ceil_weibull(1.0, OBJECTS_SCALE);
    let pages = 1.0 + mean_ceil_weibull(1.0, PAGES_SCALE);
    let want = P_ONE_PAGE * objects + (1.0 - P_ONE_PAGE) * pages * (P_ONE_OBJECT + (1.0 - P_ONE_OBJECT) * objects);
    let mean = persistent.iter().map(|c| c.len() as f64).sum::<f64>() / persistent.len() as f64;
    assert!((mean - want).abs() < 0.1, "requests per persistent connection {mean} want {want}");
    // The first request has no pause; every request of a connection has its size.
    assert!(persistent.iter().all(|c| c[0].gap == Duration::ZERO && c.iter().all(|p| p.request_bytes == c[0].request_bytes)));
    // Server delays lie in (0, 100 ms].
    assert!(conns.iter().flat_map(|c| c.iter()).all(|p| p.think > Duration::ZERO && p.think <= Duration::from_millis(100)));
}

#[test]
fn the_rate_for_a_utilization_fills_it_with_the_mean_response() {
    for http in [Http::V1_0, Http::V1_1] {
        let r = rate_for(0.5, 5e6, http);
        let filled = r * 8.0 * mean_response_bytes(r, http) / 5e6;
        assert!((filled - 0.5).abs() < 1e-9, "{http:?}: rate {r} fills {filled}");
    }
}

#[test]
fn a_seed_gives_the_same_connections_and_another_seed_others() {
    let draw = |seed| {
        let mut g = PackMime::new(10.0, Http::V1_1, seed, 0);
        (0..50).map(|_| (g.gap(), g.connection())).collect::<Vec<_>>()
    };
    assert_eq!(draw(1), draw(1));
    assert_ne!(draw(1), draw(2));
}
