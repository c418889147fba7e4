//! The tables a run produces, column by column, ready for Arrow / pandas.

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
    pub fn u64s(&self, name: &str) -> &[u64] {
        match self.column(name) {
            Some(Column::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }
    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.column(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }
    pub fn strs(&self, name: &str) -> &[String] {
        match self.column(name) {
            Some(Column::Str(v)) => v,
            _ => panic!("no string column {name}"),
        }
    }
}

impl Column {
    /// Append `other`'s values (a column of the same name and kind).
    fn extend(&mut self, other: Column) {
        match (self, other) {
            (Column::U64(a), Column::U64(b)) => a.extend(b),
            (Column::I64(a), Column::I64(b)) => a.extend(b),
            (Column::F64(a), Column::F64(b)) => a.extend(b),
            (Column::Str(a), Column::Str(b)) => a.extend(b),
            _ => unreachable!("chunks of one table have the same columns"),
        }
    }
}

impl Table {
    /// Append the rows of `more`, a chunk of the same table.
    pub fn extend(&mut self, more: Table) {
        for ((_, mine), (_, theirs)) in self.columns.iter_mut().zip(more.columns) {
            mine.extend(theirs);
        }
    }
}

/// Build a table from named columns.
pub fn table(columns: Vec<(&str, Column)>) -> Table {
    debug_assert!(columns.windows(2).all(|w| w[0].1.len() == w[1].1.len()));
    Table { columns: columns.into_iter().map(|(n, c)| (n.to_string(), c)).collect() }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// "flows", "transfers", "timeseries", "queues", "links", "udp".
    pub tables: Vec<(String, Table)>,
    /// (link name, pcap bytes) for each captured link.
    pub pcaps: Vec<(String, Vec<u8>)>,
    /// Events handled, a packet taken across a split run's cut counted as one: fewer when
    /// hops are cut through, so it varies with the fast paths and the thread count.
    pub events: u64,
    /// Packets offered to a link, each hop counted once: the same on one thread or two.
    pub packet_hops: u64,
    pub seed: u64,
    pub sim_end_ns: u64,
}

impl RunOutput {
    /// SHA-256 over every table and capture, hex-encoded: equal for byte-identical results
    /// (floats compare by their bits, so NaN equals NaN here).
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for (name, t) in &self.tables {
            h.update(name.as_bytes());
            for (col, c) in &t.columns {
                h.update(col.as_bytes());
                match c {
                    Column::U64(v) => v.iter().for_each(|x| h.update(x.to_le_bytes())),
                    Column::I64(v) => v.iter().for_each(|x| h.update(x.to_le_bytes())),
                    Column::F64(v) => v.iter().for_each(|x| h.update(x.to_bits().to_le_bytes())),
                    Column::Str(v) => v.iter().for_each(|x| {
                        h.update((x.len() as u64).to_le_bytes());
                        h.update(x.as_bytes());
                    }),
                }
            }
        }
        for (name, bytes) in &self.pcaps {
            h.update(name.as_bytes());
            h.update(bytes);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn table(&self, name: &str) -> &Table {
        &self.tables.iter().find(|(n, _)| n == name).expect("known table").1
    }
}
