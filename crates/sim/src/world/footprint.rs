//! What the world's records take in memory, read from their types so that the estimate
//! (`crate::estimate`) follows them when they change.

use std::mem::size_of;

use super::conns::{Conn, ConnRow, Slot};
use super::flows::FlowState;

/// Bytes of one record of each kind the world keeps.
pub struct Footprint {
    /// A connection end (`Conn`: the endpoint and the world's fields beside it).
    pub end_bytes: usize,
    /// A connection's slot and its count of packets in flight.
    pub slot_bytes: usize,
    /// The row a connection leaves when its slot is reused (`ConnRow`), kept to the end.
    pub conn_row_bytes: usize,
    /// A flow's state.
    pub flow_bytes: usize,
}

pub fn footprint() -> Footprint {
    Footprint {
        end_bytes: size_of::<Conn>(),
        slot_bytes: size_of::<Slot>() + size_of::<u32>(),
        conn_row_bytes: size_of::<ConnRow>(),
        flow_bytes: size_of::<FlowState>(),
    }
}
