//! The rows of a trace in bounded memory.
//!
//! A trace's rows are recorded a little out of time order (`trace::Series` says why) and
//! leave the run sorted. A long run records far more of them than memory should hold, so
//! `Rows` keeps at most `limit` in memory: beyond that it sorts them and writes them to an
//! unnamed temporary file as one sorted run, and at the end it merges the runs. Rows with
//! equal keys come out in the order they were recorded, as one stable sort of all of them
//! would give: each run is sorted stably, and of equal keys the earlier run's comes first.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// Sorted runs kept before they are merged into one: each holds a file open.
const MAX_RUNS: usize = 128;

/// A row that can be written to a spill file and read back.
pub trait Row: Copy {
    /// What encoding needs to remember to decode (names kept as indices), cloned into each
    /// run written.
    type Ctx: Clone + Default;
    /// Bytes of one encoded row.
    const BYTES: usize;
    /// The order of the rows.
    fn key(&self) -> (u64, u32);
    fn encode(&self, out: &mut [u8], ctx: &mut Self::Ctx);
    fn decode(b: &[u8], ctx: &Self::Ctx) -> Self;
}

/// Rows sorted by key, in memory or in a file.
enum Run<R: Row> {
    Memory(Vec<R>),
    File(File, R::Ctx),
}

pub struct Rows<R: Row> {
    /// Not yet sorted, in the order recorded (after every run's rows).
    memory: Vec<R>,
    /// Rows recorded, in memory and in runs.
    count: u64,
    runs: Vec<Run<R>>,
    limit: usize,
    ctx: R::Ctx,
}

impl<R: Row> Rows<R> {
    /// Rows of which at most `limit` are kept in memory.
    pub fn new(limit: usize) -> Self {
        Rows { memory: Vec::new(), count: 0, runs: Vec::new(), limit: limit.max(1), ctx: R::Ctx::default() }
    }

    /// Rows pushed so far, in memory or spilled.
    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn push(&mut self, row: R) {
        self.count += 1;
        self.memory.push(row);
        if self.memory.len() >= self.limit {
            self.spill();
        }
    }

    /// The rows in memory become a sorted run, written to a file. If the file cannot be
    /// written (no temporary space), the run stays in memory: the result is the same, only
    /// the memory bound is lost. Cold and out of line: `push` is inlined where rows are
    /// recorded, on the forwarding path.
    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        let mut rows = std::mem::take(&mut self.memory);
        rows.sort_by_key(R::key);
        match self.write(rows.iter().copied()) {
            Ok(file) => {
                self.runs.push(Run::File(file, self.ctx.clone()));
                // The buffer is filled again from empty: keep its allocation.
                rows.clear();
                self.memory = rows;
            }
            Err(_) => self.runs.push(Run::Memory(rows)),
        }
        if self.runs.len() >= MAX_RUNS {
            self.compact();
        }
    }

    /// Merge every run into one, so that a very long run does not hold a file open per
    /// spill. The merge's own file must be written: the runs are read as it goes.
    fn compact(&mut self) {
        let merged = Sorted::new(std::mem::take(&mut self.runs));
        match self.write(merged) {
            Ok(file) => self.runs.push(Run::File(file, self.ctx.clone())),
            Err(e) => panic!("no temporary space for a trace: {e}"),
        }
    }

    fn write(&mut self, rows: impl Iterator<Item = R>) -> io::Result<File> {
        let mut file = unnamed_temp_file()?;
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        let mut buf = vec![0u8; R::BYTES];
        for r in rows {
            r.encode(&mut buf, &mut self.ctx);
            out.write_all(&buf)?;
        }
        out.flush()?;
        drop(out);
        file.seek(SeekFrom::Start(0))?;
        Ok(file)
    }

    /// The rows of `other`, all recorded after these, join them.
    pub fn append(&mut self, mut other: Rows<R>) {
        if !self.memory.is_empty() {
            let mut rows = std::mem::take(&mut self.memory);
            rows.sort_by_key(R::key);
            self.runs.push(Run::Memory(rows));
        }
        self.runs.append(&mut other.runs);
        self.memory = other.memory;
        self.count += other.count;
        if self.memory.len() >= self.limit {
            self.spill();
        }
    }

    /// Every row, sorted by key (stably, see the module's comment).
    pub fn into_sorted(mut self) -> Sorted<R> {
        let mut rows = std::mem::take(&mut self.memory);
        rows.sort_by_key(R::key);
        self.runs.push(Run::Memory(rows));
        Sorted::new(self.runs)
    }
}

/// One run being read back.
struct Source<R: Row> {
    rows: SourceRows<R>,
    head: Option<R>,
}

enum SourceRows<R: Row> {
    Memory(std::vec::IntoIter<R>),
    File { reader: BufReader<File>, ctx: R::Ctx, buf: Vec<u8> },
}

impl<R: Row> Source<R> {
    fn new(run: Run<R>) -> Self {
        let rows = match run {
            Run::Memory(rows) => SourceRows::Memory(rows.into_iter()),
            Run::File(file, ctx) => SourceRows::File { reader: BufReader::with_capacity(1 << 16, file), ctx, buf: vec![0; R::BYTES] },
        };
        Source { rows, head: None }
    }

    fn next(&mut self) -> Option<R> {
        match &mut self.rows {
            SourceRows::Memory(rows) => rows.next(),
            SourceRows::File { reader, ctx, buf } => match reader.read_exact(buf) {
                Ok(()) => Some(R::decode(buf, ctx)),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
                // The file is this run's own, written a moment ago: failing to read it back
                // is a fault of the machine, not of the scenario.
                Err(e) => panic!("reading back a trace's spill file: {e}"),
            },
        }
    }
}

/// The rows of every run, merged in key order.
pub struct Sorted<R: Row> {
    sources: Vec<Source<R>>,
    /// The key of each source's head, and the source: the smallest first, and of equal
    /// keys the earlier run.
    heads: BinaryHeap<Reverse<((u64, u32), usize)>>,
}

impl<R: Row> Sorted<R> {
    fn new(runs: Vec<Run<R>>) -> Self {
        let mut sources: Vec<Source<R>> = runs.into_iter().map(Source::new).collect();
        let mut heads = BinaryHeap::new();
        for (i, s) in sources.iter_mut().enumerate() {
            if let Some(r) = s.next() {
                heads.push(Reverse((r.key(), i)));
                s.head = Some(r);
            }
        }
        Sorted { sources, heads }
    }
}

impl<R: Row> Iterator for Sorted<R> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let Reverse((_, i)) = self.heads.pop()?;
        let source = &mut self.sources[i];
        let row = source.head.take();
        if let Some(next) = source.next() {
            self.heads.push(Reverse((next.key(), i)));
            source.head = Some(next);
        }
        row
    }
}

/// A file in the temporary folder whose name is removed at once: its space is freed when it
/// is closed, even if the process dies. The name is new (`create_new`), so nothing else is
/// removed.
pub(crate) fn unnamed_temp_file() -> io::Result<File> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let path = dir.join(format!(".rampup-spill-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        match OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A key and the order it was recorded in.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Pair(u64, u32, u64);

    impl Row for Pair {
        type Ctx = ();
        const BYTES: usize = 20;
        fn key(&self) -> (u64, u32) {
            (self.0, self.1)
        }
        fn encode(&self, out: &mut [u8], _: &mut ()) {
            out[..8].copy_from_slice(&self.0.to_le_bytes());
            out[8..12].copy_from_slice(&self.1.to_le_bytes());
            out[12..].copy_from_slice(&self.2.to_le_bytes());
        }
        fn decode(b: &[u8], _: &()) -> Self {
            let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
            Pair(u64_at(0), u32::from_le_bytes(b[8..12].try_into().unwrap()), u64_at(12))
        }
    }

    proptest! {
        /// Spilled and merged, in one `Rows` or two appended (a split run's halves), the rows
        /// come out as one stable sort of all of them: ties in recording order.
        #[test]
        fn spilled_rows_come_out_as_a_stable_sort(
            keys in prop::collection::vec((0u64..20, 0u32..3), 0..400),
            limit in 1usize..50,
            cut in 0usize..400,
        ) {
            let rows: Vec<Pair> = keys.iter().enumerate().map(|(i, &(t, k))| Pair(t, k, i as u64)).collect();
            let mut expected = rows.clone();
            expected.sort_by_key(|r| r.key());
            let cut = cut.min(rows.len());
            let (mut first, mut second) = (Rows::new(limit), Rows::new(limit));
            rows[..cut].iter().for_each(|&r| first.push(r));
            rows[cut..].iter().for_each(|&r| second.push(r));
            first.append(second);
            prop_assert_eq!(first.into_sorted().collect::<Vec<_>>(), expected);
        }
    }
}
