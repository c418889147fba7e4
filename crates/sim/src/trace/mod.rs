//! The traces of a run (the timeseries and queues tables, the captures) in bounded memory,
//! and where they go at its end: into the run's output, or chunk by chunk to a
//! `TraceSink` that writes them to disk.

pub mod pcap;
mod rows;
pub mod spill;

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use rampup_tcp::{Duration, Time};

use self::rows::{packets, queues, rtt, throughput, timeseries};
pub use self::rows::{PacketDesc, PacketEvent, PacketKind, PacketRow, QueueRow, RttRow, StateRow, ThroughputRow};
use self::spill::Rows;
use crate::net::Port;
use crate::output::{RunOutput, Table};
use crate::scenario::Trace;
use crate::RunError;

/// Rows of a trace kept in memory before they go to a temporary file (`spill`): the
/// memory a trace holds, whatever the run's length (a state row is about 100 bytes).
pub const ROWS_IN_MEMORY: usize = 1 << 18;

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
pub const TRACED_TABLES: [&str; 5] = ["timeseries", "queues", "throughput", "rtt", "packets"];

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

/// A flow's open interval of the throughput table: it starts at `start` and has had
/// `bytes` so far. Rows are one per flow and interval, zeros included, aligned to
/// multiples of the interval from time 0.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Interval {
    start: Time,
    bytes: u64,
    data_bytes: u64,
}

impl Interval {
    /// `bytes` arrived at `now`, `data_bytes` of them data (not padding): the intervals
    /// that ended by then are rows.
    pub fn add(&mut self, flow: u32, bytes: u64, data_bytes: u64, now: Time, interval: Duration, series: &mut Series) {
        self.close(flow, now, interval, series);
        self.bytes += bytes;
        self.data_bytes += data_bytes;
    }

    /// The rows at the end of the run, `end`. The last interval is cut short by it, or is
    /// a row at `end` itself when bytes arrived at that instant and `end` is a multiple of
    /// the interval.
    pub fn end(&mut self, flow: u32, end: Time, interval: Duration, series: &mut Series) {
        self.close(flow, end, interval, series);
        if self.start < end || self.bytes > 0 {
            series.throughput.push(self.row(flow));
        }
    }

    fn close(&mut self, flow: u32, t: Time, interval: Duration, series: &mut Series) {
        while self.start + interval <= t {
            series.throughput.push(self.row(flow));
            self.start += interval;
            self.bytes = 0;
            self.data_bytes = 0;
        }
    }

    fn row(&self, flow: u32) -> ThroughputRow {
        ThroughputRow { t: self.start, flow, bytes: self.bytes, data_bytes: self.data_bytes }
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
    rtt: Rows<RttRow>,
    packets: Rows<PacketRow>,
}

impl Default for Series {
    fn default() -> Self {
        Series::new(ROWS_IN_MEMORY)
    }
}

impl Series {
    /// Traces that keep at most `rows_in_memory` rows each in memory.
    pub fn new(rows_in_memory: usize) -> Self {
        Series {
            states: Rows::new(rows_in_memory),
            queues: Rows::new(rows_in_memory),
            throughput: Rows::new(rows_in_memory),
            rtt: Rows::new(rows_in_memory),
            packets: Rows::new(rows_in_memory),
        }
    }

    pub fn record_state(&mut self, row: StateRow) {
        self.states.push(row);
    }

    pub fn record_queue(&mut self, t: Time, port: u32, p: &Port) {
        self.queues.push(QueueRow { t, port, packets: p.queued_packets() as u64, bytes: p.queued_bytes(), drops: p.stats.drops });
    }

    pub fn record_rtt(&mut self, row: RttRow) {
        self.rtt.push(row);
    }

    pub fn record_packet(&mut self, row: PacketRow) {
        self.packets.push(row);
    }

    /// The first table with more than `max` rows, if any.
    pub fn over(&self, max: u64) -> Option<&'static str> {
        [self.states.count(), self.queues.count(), self.throughput.count(), self.rtt.count(), self.packets.count()]
            .into_iter()
            .zip(TRACED_TABLES)
            .find(|&(n, _)| n > max)
            .map(|(_, t)| t)
    }

    /// Add `other`'s rows (of the other half of a split run, recorded after these).
    pub fn append(&mut self, other: Series) {
        self.states.append(other.states);
        self.queues.append(other.queues);
        self.throughput.append(other.throughput);
        self.rtt.append(other.rtt);
        self.packets.append(other.packets);
    }

    /// Hand the tables to `sink`, sorted, in chunks; `port_names` name the queues and links.
    /// The throughput, rtt and packets tables go only when `trace` asks for them, so that a
    /// run without them writes the files it wrote before they existed. With `[trace]
    /// queues_interval`, the queues table is sampled from the rows recorded on change
    /// (`sampled`), up to the run's `end`.
    pub fn drain(self, sink: &mut dyn TraceSink, port_names: &[String], trace: &Trace, end: Time) {
        chunked(self.states.into_sorted(), |rows| sink.rows(TRACED_TABLES[0], timeseries(rows)));
        let on_change = self.queues.into_sorted();
        let mut hand = |rows: &[QueueRow]| sink.rows(TRACED_TABLES[1], queues(rows, port_names));
        match trace.queues_interval {
            Some(interval) => chunked(sampled(on_change, port_names.len() as u32, interval, end), &mut hand),
            None => chunked(on_change, &mut hand),
        }
        if trace.throughput.is_some() {
            chunked(self.throughput.into_sorted(), |rows| sink.rows(TRACED_TABLES[2], throughput(rows)));
        }
        if trace.rtt {
            chunked(self.rtt.into_sorted(), |rows| sink.rows(TRACED_TABLES[3], rtt(rows)));
        }
        if trace.packets {
            chunked(self.packets.into_sorted(), |rows| sink.rows(TRACED_TABLES[4], packets(rows, port_names)));
        }
    }
}

/// The queues at each multiple of `interval` up to `end`, every port (0..`ports`) at each:
/// the state after the changes at or before that time, from the rows recorded on change
/// (`on_change`, sorted by time).
fn sampled(on_change: impl Iterator<Item = QueueRow>, ports: u32, interval: Duration, end: Time) -> impl Iterator<Item = QueueRow> {
    let mut now: Vec<QueueRow> = (0..ports).map(|port| QueueRow { t: Time::ZERO, port, packets: 0, bytes: 0, drops: 0 }).collect();
    let mut on_change = on_change.peekable();
    let mut at = Time::ZERO;
    std::iter::from_fn(move || {
        if at > end {
            return None;
        }
        while let Some(r) = on_change.next_if(|r| r.t <= at) {
            now[r.port as usize] = r;
        }
        let rows: Vec<QueueRow> = now.iter().map(|r| QueueRow { t: at, ..*r }).collect();
        at += interval;
        Some(rows)
    })
    .flatten()
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

    /// Every byte written, in order, to read back.
    pub fn into_reader(self) -> impl Read {
        let file = self.file.map(|mut f| {
            f.seek(SeekFrom::Start(0)).expect("rewinding a capture's temporary file");
            f
        });
        let from_file: Box<dyn Read> = match file {
            Some(f) => Box::new(io::BufReader::new(f)),
            None => Box::new(io::empty()),
        };
        from_file.chain(io::Cursor::new(self.memory))
    }

    /// Hand every byte written, in order, to `f` in pieces.
    pub fn drain(self, mut f: impl FnMut(&[u8])) {
        let mut bytes = self.into_reader();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = bytes.read(&mut buf).expect("reading back a capture's temporary file");
            if n == 0 {
                return;
            }
            f(&buf[..n]);
        }
    }
}
