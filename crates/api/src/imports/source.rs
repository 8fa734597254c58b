//! A job's rows, read back from its stored upload one chunk at a time: at most one chunk and the
//! rows it completes are in memory, whatever the file's size.

use std::collections::VecDeque;

use bulk_data::read::Item;
use bulk_data::{FileError, ImportJob, RowReader, RowResult};
use import_postgres::ImportStore;
use shared_kernel::StorageError;
use uuid::Uuid;

/// Why the rows stopped before the end.
#[derive(Debug)]
pub enum SourceError {
    /// The file cannot be read on: the job fails with this.
    File(FileError),
    /// The database did not answer; the job is tried again.
    Storage(StorageError),
}

pub struct Source {
    store: ImportStore,
    job: Uuid,
    next_chunk: i32,
    reader: RowReader,
    pending: VecDeque<Item>,
    finished: bool,
    /// Rows still to pass over: those committed before (a resumed job).
    skip: u64,
}

impl Source {
    /// The rows of `job`, after the first `skip`.
    pub fn new(store: ImportStore, job: &ImportJob, skip: u64) -> Self {
        Self {
            store,
            job: job.id,
            next_chunk: 0,
            reader: RowReader::new(job.format, job.resource),
            pending: VecDeque::new(),
            finished: false,
            skip,
        }
    }

    /// The next row (its number and what it holds), `None` at the end of the file.
    pub async fn next(&mut self) -> Result<Option<(u64, RowResult)>, SourceError> {
        loop {
            while let Some(item) = self.pending.pop_front() {
                let (number, row) = item.map_err(SourceError::File)?;
                if self.skip > 0 {
                    self.skip -= 1;
                    continue;
                }
                return Ok(Some((number, row)));
            }
            if self.finished {
                return Ok(None);
            }
            match self.store.chunk(self.job, self.next_chunk).await.map_err(SourceError::Storage)? {
                Some(chunk) => {
                    self.next_chunk += 1;
                    self.pending.extend(self.reader.feed(&chunk));
                }
                None => {
                    self.finished = true;
                    self.pending.extend(self.reader.finish());
                }
            }
        }
    }
}
