//! Seeded random streams, one per random source, so that adding a flow or a lossy link
//! does not change the random numbers any other source draws.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub type Stream = ChaCha8Rng;

/// The stream named `name` for run seed `seed` (FNV-1a of the name, mixed with the seed).
pub fn stream(seed: u64, name: &str) -> Stream {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    ChaCha8Rng::seed_from_u64(h ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}
