//! The rows of the traced tables: kept compact while a run goes (`spill::Row`), and made
//! into columns as they leave it.

use rampup_tcp::{Duration, Snapshot, Time};

use super::spill::Row;
use crate::output::{table, Column, Table};

/// A sender's state when it changed (the timeseries table).
#[derive(Clone, Copy)]
pub struct StateRow {
    pub t: Time,
    pub flow: u32,
    pub s: Snapshot,
}

/// A port's queue after an admission or a departure (the queues table). The port is kept
/// by index and named once, at the end, so that a row (one per packet and hop) allocates
/// nothing.
#[derive(Clone, Copy)]
pub struct QueueRow {
    pub t: Time,
    pub port: u32,
    pub packets: u64,
    pub bytes: u64,
    pub drops: u64,
}

/// The payload bytes a flow's applications got in order in the interval that starts at `t`
/// (the throughput table, `[trace] throughput`).
#[derive(Clone, Copy)]
pub struct ThroughputRow {
    pub t: Time,
    pub flow: u32,
    pub bytes: u64,
    /// `bytes` without an application's padding (`traffic::Ledger`).
    pub data_bytes: u64,
}

/// An RTT sample an end took (RFC 6298 §3; the rtt table, `[trace] rtt`), with its
/// window after the ACK that gave it.
#[derive(Clone, Copy)]
pub struct RttRow {
    pub t: Time,
    pub flow: u32,
    /// The connection's number (its row in the connections table).
    pub connection: u64,
    /// The end that took it: 0 at the flow's `from` node (the active end), 1 at its `to`.
    pub end: u8,
    pub rtt: Duration,
    pub cwnd: u64,
}

/// What befell a packet at a port (the packets table, `[trace] packets`), in the order a
/// packet meets them: offered to the port's queue and admitted (`Enqueue`) or refused
/// (`Drop`); its transmission ends (`Depart`); it reaches the link's far end (`Arrive`) or
/// is lost on the link (`Lost`, when it would have arrived).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    Enqueue,
    Drop,
    Depart,
    Arrive,
    Lost,
}

const PACKET_EVENTS: [&str; 5] = ["enqueue", "drop", "depart", "arrive", "lost"];

/// A packet's kind in the packets table: TCP by its flags (a segment with payload and FIN
/// is `Fin`), or UDP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    Syn,
    SynAck,
    Fin,
    Rst,
    Udp,
}

const PACKET_KINDS: [PacketKind; 7] =
    [PacketKind::Data, PacketKind::Ack, PacketKind::Syn, PacketKind::SynAck, PacketKind::Fin, PacketKind::Rst, PacketKind::Udp];
const PACKET_KIND_NAMES: [&str; 7] = ["data", "ack", "syn", "syn-ack", "fin", "rst", "udp"];

/// A packet as the packets table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketDesc {
    pub kind: PacketKind,
    /// The flow, or for a UDP datagram its source's index among the `[[udp]]` tables.
    pub flow: u32,
    /// The connection's number (`connections`), -1 for UDP.
    pub connection: i64,
    pub seq: u64,
    pub ack: u64,
    pub payload: u32,
    pub wire: u32,
}

/// One event of one packet at one port.
#[derive(Clone, Copy)]
pub struct PacketRow {
    pub t: Time,
    pub port: u32,
    pub event: PacketEvent,
    pub p: PacketDesc,
}

/// Write `words` into `b` from byte `at` on (a row's fixed layout, little-endian).
fn put_u64s(b: &mut [u8], at: usize, words: &[u64]) {
    for (i, v) in words.iter().enumerate() {
        b[at + 8 * i..at + 8 * i + 8].copy_from_slice(&v.to_le_bytes());
    }
}

fn put_u32s(b: &mut [u8], at: usize, words: &[u32]) {
    for (i, v) in words.iter().enumerate() {
        b[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"))
}

impl Row for StateRow {
    /// The controllers' mode names seen, so that a row stores an index.
    type Ctx = Vec<&'static str>;
    const BYTES: usize = 8 * 7 + 4 + 4 + 1 + 1 + 1;

    fn key(&self) -> (u64, u32) {
        (self.t.as_nanos(), self.flow)
    }
    fn encode(&self, b: &mut [u8], modes: &mut Vec<&'static str>) {
        let s = &self.s;
        let srtt = s.srtt.map_or(u64::MAX, |d| d.as_nanos());
        put_u64s(b, 0, &[self.t.as_nanos(), s.cwnd, s.ssthresh, srtt, s.flight, s.snd_nxt, s.snd_una]);
        put_u32s(b, 56, &[self.flow, s.congestive_events]);
        let mode = modes.iter().position(|m| *m == s.cc_mode).unwrap_or_else(|| {
            modes.push(s.cc_mode);
            modes.len() - 1
        });
        b[64] = u8::try_from(mode).expect("fewer than 256 mode names");
        b[65] = s.pacing as u8;
        b[66] = s.srtt.is_some() as u8;
    }
    fn decode(b: &[u8], modes: &Vec<&'static str>) -> Self {
        let s = Snapshot {
            cwnd: u64_at(b, 8),
            ssthresh: u64_at(b, 16),
            srtt: (b[66] == 1).then(|| Duration(u64_at(b, 24))),
            flight: u64_at(b, 32),
            snd_nxt: u64_at(b, 40),
            snd_una: u64_at(b, 48),
            pacing: b[65] == 1,
            cc_mode: modes[b[64] as usize],
            congestive_events: u32_at(b, 60),
        };
        StateRow { t: Time(u64_at(b, 0)), flow: u32_at(b, 56), s }
    }
}

impl Row for QueueRow {
    type Ctx = ();
    const BYTES: usize = 8 * 4 + 4;

    fn key(&self) -> (u64, u32) {
        (self.t.as_nanos(), self.port)
    }
    fn encode(&self, b: &mut [u8], _: &mut ()) {
        put_u64s(b, 0, &[self.t.as_nanos(), self.packets, self.bytes, self.drops]);
        put_u32s(b, 32, &[self.port]);
    }
    fn decode(b: &[u8], _: &()) -> Self {
        QueueRow { t: Time(u64_at(b, 0)), packets: u64_at(b, 8), bytes: u64_at(b, 16), drops: u64_at(b, 24), port: u32_at(b, 32) }
    }
}

impl Row for ThroughputRow {
    type Ctx = ();
    const BYTES: usize = 8 * 3 + 4;

    fn key(&self) -> (u64, u32) {
        (self.t.as_nanos(), self.flow)
    }
    fn encode(&self, b: &mut [u8], _: &mut ()) {
        put_u64s(b, 0, &[self.t.as_nanos(), self.bytes, self.data_bytes]);
        put_u32s(b, 24, &[self.flow]);
    }
    fn decode(b: &[u8], _: &()) -> Self {
        ThroughputRow { t: Time(u64_at(b, 0)), bytes: u64_at(b, 8), data_bytes: u64_at(b, 16), flow: u32_at(b, 24) }
    }
}

impl Row for RttRow {
    type Ctx = ();
    const BYTES: usize = 8 * 4 + 4 + 1;

    fn key(&self) -> (u64, u32) {
        (self.t.as_nanos(), self.flow)
    }
    fn encode(&self, b: &mut [u8], _: &mut ()) {
        put_u64s(b, 0, &[self.t.as_nanos(), self.connection, self.rtt.as_nanos(), self.cwnd]);
        put_u32s(b, 32, &[self.flow]);
        b[36] = self.end;
    }
    fn decode(b: &[u8], _: &()) -> Self {
        RttRow { t: Time(u64_at(b, 0)), connection: u64_at(b, 8), rtt: Duration(u64_at(b, 16)), cwnd: u64_at(b, 24), flow: u32_at(b, 32), end: b[36] }
    }
}

impl Row for PacketRow {
    type Ctx = ();
    const BYTES: usize = 8 * 4 + 4 * 4 + 2;

    /// By time; at one time, in causal order: departures (logged when the port is next
    /// used, maybe after the packet's arrival over a link without delay), then arrivals,
    /// then admissions (an arriving packet is offered to its next port at once); then by
    /// port (below 2^24, `scenario::check`).
    fn key(&self) -> (u64, u32) {
        let tie = match self.event {
            PacketEvent::Depart => 0,
            PacketEvent::Arrive | PacketEvent::Lost => 1,
            PacketEvent::Enqueue | PacketEvent::Drop => 2,
        };
        (self.t.as_nanos(), tie << 30 | self.port)
    }
    fn encode(&self, b: &mut [u8], _: &mut ()) {
        let p = &self.p;
        put_u64s(b, 0, &[self.t.as_nanos(), p.connection as u64, p.seq, p.ack]);
        put_u32s(b, 32, &[self.port, p.flow, p.payload, p.wire]);
        b[48] = self.event as u8;
        b[49] = p.kind as u8;
    }
    fn decode(b: &[u8], _: &()) -> Self {
        let event = [PacketEvent::Enqueue, PacketEvent::Drop, PacketEvent::Depart, PacketEvent::Arrive, PacketEvent::Lost][b[48] as usize];
        let p = PacketDesc {
            connection: u64_at(b, 8) as i64,
            seq: u64_at(b, 16),
            ack: u64_at(b, 24),
            flow: u32_at(b, 36),
            payload: u32_at(b, 40),
            wire: u32_at(b, 44),
            kind: PACKET_KINDS[b[49] as usize],
        };
        PacketRow { t: Time(u64_at(b, 0)), port: u32_at(b, 32), event, p }
    }
}

pub(super) fn timeseries(st: &[StateRow]) -> Table {
    table(vec![
        ("t_ns", Column::U64(st.iter().map(|r| r.t.as_nanos()).collect())),
        ("flow", Column::U64(st.iter().map(|r| r.flow as u64).collect())),
        ("cwnd_bytes", Column::U64(st.iter().map(|r| r.s.cwnd).collect())),
        ("ssthresh_bytes", Column::F64(st.iter().map(|r| if r.s.ssthresh == u64::MAX { f64::NAN } else { r.s.ssthresh as f64 }).collect())),
        ("srtt_ns", Column::F64(st.iter().map(|r| r.s.srtt.map_or(f64::NAN, |d| d.as_nanos() as f64)).collect())),
        ("flight_bytes", Column::U64(st.iter().map(|r| r.s.flight).collect())),
        ("snd_nxt", Column::U64(st.iter().map(|r| r.s.snd_nxt).collect())),
        ("snd_una", Column::U64(st.iter().map(|r| r.s.snd_una).collect())),
        ("cc_mode", Column::Str(st.iter().map(|r| r.s.cc_mode.to_string()).collect())),
        ("congestive_events", Column::U64(st.iter().map(|r| r.s.congestive_events as u64).collect())),
        ("pacing", Column::U64(st.iter().map(|r| r.s.pacing as u64).collect())),
    ])
}

pub(super) fn queues(q: &[QueueRow], port_names: &[String]) -> Table {
    table(vec![
        ("t_ns", Column::U64(q.iter().map(|r| r.t.as_nanos()).collect())),
        ("queue", Column::Str(q.iter().map(|r| port_names[r.port as usize].clone()).collect())),
        ("packets", Column::U64(q.iter().map(|r| r.packets).collect())),
        ("bytes", Column::U64(q.iter().map(|r| r.bytes).collect())),
        ("drops", Column::U64(q.iter().map(|r| r.drops).collect())),
    ])
}

pub(super) fn throughput(r: &[ThroughputRow]) -> Table {
    table(vec![
        ("t_ns", Column::U64(r.iter().map(|r| r.t.as_nanos()).collect())),
        ("flow", Column::U64(r.iter().map(|r| r.flow as u64).collect())),
        ("bytes", Column::U64(r.iter().map(|r| r.bytes).collect())),
        ("data_bytes", Column::U64(r.iter().map(|r| r.data_bytes).collect())),
    ])
}

pub(super) fn rtt(r: &[RttRow]) -> Table {
    table(vec![
        ("t_ns", Column::U64(r.iter().map(|r| r.t.as_nanos()).collect())),
        ("flow", Column::U64(r.iter().map(|r| r.flow as u64).collect())),
        ("connection", Column::U64(r.iter().map(|r| r.connection).collect())),
        ("end", Column::Str(r.iter().map(|r| ["from", "to"][r.end as usize].to_string()).collect())),
        ("rtt_ns", Column::U64(r.iter().map(|r| r.rtt.as_nanos()).collect())),
        ("cwnd_bytes", Column::U64(r.iter().map(|r| r.cwnd).collect())),
    ])
}

pub(super) fn packets(r: &[PacketRow], port_names: &[String]) -> Table {
    let u64s = |f: fn(&PacketRow) -> u64| Column::U64(r.iter().map(f).collect());
    table(vec![
        ("t_ns", u64s(|r| r.t.as_nanos())),
        ("event", Column::Str(r.iter().map(|r| PACKET_EVENTS[r.event as usize].to_string()).collect())),
        ("link", Column::Str(r.iter().map(|r| port_names[r.port as usize].clone()).collect())),
        ("kind", Column::Str(r.iter().map(|r| PACKET_KIND_NAMES[r.p.kind as usize].to_string()).collect())),
        ("flow", u64s(|r| r.p.flow as u64)),
        ("connection", Column::I64(r.iter().map(|r| r.p.connection).collect())),
        ("seq", u64s(|r| r.p.seq)),
        ("ack", u64s(|r| r.p.ack)),
        ("payload_bytes", u64s(|r| r.p.payload as u64)),
        ("wire_bytes", u64s(|r| r.p.wire as u64)),
    ])
}
