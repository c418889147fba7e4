//! The traces of a run (the timeseries and queues tables, the captures) in bounded memory,
//! and where they go at its end: into the run's output, or chunk by chunk to a
//! `TraceSink` that writes them to disk.

pub mod pcap;
pub mod spill;

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use rampup_tcp::{Duration, Snapshot, Time};

use self::spill::{Row, Rows};
use crate::net::Port;
use crate::output::{table, Column, RunOutput, Table};
use crate::RunError;

/// Rows of a trace kept in memory before they go to a temporary file (`spill`): the
/// memory a trace holds, whatever the run's length (a state row is about 100 bytes).
const ROWS_IN_MEMORY: usize = 1 << 18;

/// Capture bytes kept in memory before they go to a temporary file.
const PCAP_BYTES_IN_MEMORY: usize = 1 << 22;

/// Rows per chunk handed to a `TraceSink` (a Parquet row group each).
pub const CHUNK_ROWS: usize = 1 << 16;

/// Where the traces go as a run ends: each table in chunks of `CHUNK_ROWS` rows, in order,
/// at least one chunk (maybe empty) per table; each capture in pieces, in order.
pub trait TraceSink {
    fn rows(&mut self, table: &str, chunk: Table);
    fn pcap(&mut self, link: &str, bytes: &[u8]);
}

/// The traced tables, in the order a sink hears of them.
pub const TRACED_TABLES: [&str; 3] = ["timeseries", "queues", "throughput"];

/// A sink that keeps everything: whole tables and captures, as `RunOutput` holds them.
#[derive(Default)]
pub struct Collect {
    pub tables: Vec<(String, Table)>,
    pub pcaps: Vec<(String, Vec<u8>)>,
}

impl TraceSink for Collect {
    fn rows(&mut self, name: &str, chunk: Table) {
        match self.tables.iter_mut().find(|(n, _)| n == name) {
            Some((_, t)) => t.extend(chunk),
            None => self.tables.push((name.to_string(), chunk)),
        }
    }
    fn pcap(&mut self, link: &str, bytes: &[u8]) {
        match self.pcaps.iter_mut().find(|(n, _)| n == link) {
            Some((_, p)) => p.extend_from_slice(bytes),
            None => self.pcaps.push((link.to_string(), bytes.to_vec())),
        }
    }
}

/// The output of `run`, given a sink that keeps everything, with the traces in their places.
pub fn collected(run: impl FnOnce(&mut dyn TraceSink) -> Result<RunOutput, RunError>) -> Result<RunOutput, RunError> {
    let mut traces = Collect::default();
    run(&mut traces).map(|out| traces.into_output(out))
}

impl Collect {
    /// `out` with the traces in their places: after flows and transfers, as `run` returns them.
    pub fn into_output(self, mut out: RunOutput) -> RunOutput {
        let at = out.tables.iter().position(|(n, _)| n == "transfers").map_or(0, |i| i + 1);
        out.tables.splice(at..at, self.tables);
        out.pcaps = self.pcaps;
        out
    }
}

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
}

/// A flow's open interval of the throughput table: it starts at `start` and has had
/// `bytes` so far. Rows are one per flow and interval, zeros included, aligned to
/// multiples of the interval from time 0.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Interval {
    start: Time,
    bytes: u64,
}

impl Interval {
    /// `bytes` arrived at `now`: the intervals that ended by then are rows.
    pub fn add(&mut self, flow: u32, bytes: u64, now: Time, interval: Duration, series: &mut Series) {
        self.close(flow, now, interval, series);
        self.bytes += bytes;
    }

    /// The rows at the end of the run, `end`. The last interval is cut short by it, or is
    /// a row at `end` itself when bytes arrived at that instant and `end` is a multiple of
    /// the interval.
    pub fn end(&mut self, flow: u32, end: Time, interval: Duration, series: &mut Series) {
        self.close(flow, end, interval, series);
        if self.start < end || self.bytes > 0 {
            series.throughput.push(ThroughputRow { t: self.start, flow, bytes: self.bytes });
        }
    }

    fn close(&mut self, flow: u32, t: Time, interval: Duration, series: &mut Series) {
        while self.start + interval <= t {
            series.throughput.push(ThroughputRow { t: self.start, flow, bytes: self.bytes });
            self.start = self.start + interval;
            self.bytes = 0;
        }
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
        for (i, v) in [self.t.as_nanos(), s.cwnd, s.ssthresh, srtt, s.flight, s.snd_nxt, s.snd_una].into_iter().enumerate() {
            b[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
        }
        b[56..60].copy_from_slice(&self.flow.to_le_bytes());
        b[60..64].copy_from_slice(&s.congestive_events.to_le_bytes());
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
        for (i, v) in [self.t.as_nanos(), self.packets, self.bytes, self.drops].into_iter().enumerate() {
            b[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
        }
        b[32..36].copy_from_slice(&self.port.to_le_bytes());
    }
    fn decode(b: &[u8], _: &()) -> Self {
        QueueRow { t: Time(u64_at(b, 0)), packets: u64_at(b, 8), bytes: u64_at(b, 16), drops: u64_at(b, 24), port: u32_at(b, 32) }
    }
}

impl Row for ThroughputRow {
    type Ctx = ();
    const BYTES: usize = 8 * 2 + 4;

    fn key(&self) -> (u64, u32) {
        (self.t.as_nanos(), self.flow)
    }
    fn encode(&self, b: &mut [u8], _: &mut ()) {
        b[0..8].copy_from_slice(&self.t.as_nanos().to_le_bytes());
        b[8..16].copy_from_slice(&self.bytes.to_le_bytes());
        b[16..20].copy_from_slice(&self.flow.to_le_bytes());
    }
    fn decode(b: &[u8], _: &()) -> Self {
        ThroughputRow { t: Time(u64_at(b, 0)), bytes: u64_at(b, 8), flow: u32_at(b, 16) }
    }
}

/// The rows of the timeseries and queues tables. Ends that take segments ahead of time
/// (`World::receive_ahead`) record their state at the segment's arrival, and ports whose
/// admissions are computed ahead (`Net::plan_cut_through`) record their queue when next
/// used, so rows of different flows or ports interleave out of order; each one's own rows
/// are in order. They leave sorted by time, then flow or port, stably.
pub struct Series {
    states: Rows<StateRow>,
    queues: Rows<QueueRow>,
    throughput: Rows<ThroughputRow>,
}

impl Default for Series {
    fn default() -> Self {
        Series::new(ROWS_IN_MEMORY)
    }
}

impl Series {
    /// Traces that keep at most `rows_in_memory` rows each in memory.
    pub fn new(rows_in_memory: usize) -> Self {
        Series { states: Rows::new(rows_in_memory), queues: Rows::new(rows_in_memory), throughput: Rows::new(rows_in_memory) }
    }

    pub fn record_state(&mut self, row: StateRow) {
        self.states.push(row);
    }

    pub fn record_queue(&mut self, t: Time, port: u32, p: &Port) {
        self.queues.push(QueueRow { t, port, packets: p.queued_packets() as u64, bytes: p.queued_bytes(), drops: p.stats.drops });
    }

    /// The first table with more than `max` rows, if any.
    pub fn over(&self, max: u64) -> Option<&'static str> {
        [self.states.count(), self.queues.count(), self.throughput.count()].into_iter().zip(TRACED_TABLES).find(|&(n, _)| n > max).map(|(_, t)| t)
    }

    /// Add `other`'s rows (of the other half of a split run, recorded after these).
    pub fn append(&mut self, other: Series) {
        self.states.append(other.states);
        self.queues.append(other.queues);
        self.throughput.append(other.throughput);
    }

    /// Hand the tables to `sink`, sorted, in chunks; `port_name` names a queue. The
    /// throughput table is handed over only when it was traced (`with_throughput`): it is
    /// new, and runs that do not ask for it keep the files they had.
    pub fn drain(self, sink: &mut dyn TraceSink, port_name: impl Fn(u32) -> String, with_throughput: bool) {
        chunked(self.states.into_sorted(), |rows| sink.rows(TRACED_TABLES[0], timeseries(rows)));
        chunked(self.queues.into_sorted(), |rows| sink.rows(TRACED_TABLES[1], queues(rows, &port_name)));
        if with_throughput {
            chunked(self.throughput.into_sorted(), |rows| sink.rows(TRACED_TABLES[2], throughput(rows)));
        }
    }
}

/// Call `f` with `rows` in chunks of `CHUNK_ROWS`, at least once.
fn chunked<R>(mut rows: impl Iterator<Item = R>, mut f: impl FnMut(&[R])) {
    let mut chunk = Vec::with_capacity(CHUNK_ROWS);
    loop {
        chunk.extend(rows.by_ref().take(CHUNK_ROWS));
        let last = chunk.len() < CHUNK_ROWS;
        f(&chunk);
        chunk.clear();
        if last {
            return;
        }
    }
}

fn timeseries(st: &[StateRow]) -> Table {
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

fn queues(q: &[QueueRow], port_name: impl Fn(u32) -> String) -> Table {
    table(vec![
        ("t_ns", Column::U64(q.iter().map(|r| r.t.as_nanos()).collect())),
        ("queue", Column::Str(q.iter().map(|r| port_name(r.port)).collect())),
        ("packets", Column::U64(q.iter().map(|r| r.packets).collect())),
        ("bytes", Column::U64(q.iter().map(|r| r.bytes).collect())),
        ("drops", Column::U64(q.iter().map(|r| r.drops).collect())),
    ])
}

fn throughput(r: &[ThroughputRow]) -> Table {
    table(vec![
        ("t_ns", Column::U64(r.iter().map(|r| r.t.as_nanos()).collect())),
        ("flow", Column::U64(r.iter().map(|r| r.flow as u64).collect())),
        ("bytes", Column::U64(r.iter().map(|r| r.bytes).collect())),
    ])
}

/// A capture's bytes as they are written: `memory` (appended to directly), moved to an
/// unnamed temporary file once it holds `PCAP_BYTES_IN_MEMORY` (it stays in memory if
/// there is no temporary space).
pub struct Spooled {
    pub memory: Vec<u8>,
    file: Option<File>,
    limit: usize,
}

impl Default for Spooled {
    fn default() -> Self {
        Spooled { memory: Vec::new(), file: None, limit: PCAP_BYTES_IN_MEMORY }
    }
}

impl Spooled {
    /// Keep at most about `bytes` in memory.
    pub fn set_limit(&mut self, bytes: usize) {
        self.limit = bytes;
    }

    /// Call after appending to `memory`.
    pub fn spill_if_full(&mut self) {
        if self.memory.len() >= self.limit && self.spill().is_ok() {
            self.memory.clear();
        }
    }

    fn spill(&mut self) -> io::Result<()> {
        if self.file.is_none() {
            self.file = Some(spill::unnamed_temp_file()?);
        }
        let file = self.file.as_mut().expect("just opened");
        let len = file.stream_position()?;
        file.write_all(&self.memory).inspect_err(|_| {
            // Take back what was written of it: it stays in memory.
            _ = file.set_len(len).and_then(|()| file.seek(SeekFrom::Start(len)));
        })
    }

    /// Hand every byte written, in order, to `f` in pieces.
    pub fn drain(self, mut f: impl FnMut(&[u8])) {
        if let Some(mut file) = self.file {
            let mut buf = vec![0u8; 1 << 20];
            file.seek(SeekFrom::Start(0)).expect("rewinding a capture's temporary file");
            loop {
                let n = file.read(&mut buf).expect("reading back a capture's temporary file");
                if n == 0 {
                    break;
                }
                f(&buf[..n]);
            }
        }
        f(&self.memory);
    }
}
