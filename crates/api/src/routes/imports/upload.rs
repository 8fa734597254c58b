//! The upload: the body streamed into PostgreSQL chunk by chunk as it arrives, read by the job's row
//! reader on the way (the header, the bytes' encoding, an unclosed quote, an empty file are
//! refused here, with no job made), never held whole in memory.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Payload};
use bulk_data::{FileError, ImportJob, RowReader};
use futures_util::StreamExt;
use import_postgres::ImportStore;
use std::collections::BTreeMap;
use std::time::Duration;

use crate::http::ApiError;

/// Bytes gathered before they are stored as one chunk.
pub const CHUNK_BYTES: usize = 512 * 1024;

pub fn too_large(max: u64) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
        format!("the file is larger than the import limit of {max} bytes"),
    )
}

fn file_error(error: FileError) -> ApiError {
    let message = error.to_string();
    match error {
        FileError::Header(header) => {
            let details: BTreeMap<String, String> = header.details().into_iter().collect();
            ApiError::validation(message).with_details(details)
        }
        _ => ApiError::validation(message.clone()).with_details(BTreeMap::from([("body".to_owned(), message)])),
    }
}

/// What the reader found while the file arrived.
struct Checked {
    reader: RowReader,
}

impl Checked {
    /// Reads `bytes` on; the first file error refuses the upload.
    fn feed(&mut self, bytes: &[u8]) -> Result<(), ApiError> {
        for item in self.reader.feed(bytes) {
            let _row = item.map_err(file_error)?;
        }
        Ok(())
    }

    /// The end of the file: the rows it holds.
    fn finish(mut self) -> Result<u64, ApiError> {
        for item in self.reader.finish() {
            let _row = item.map_err(file_error)?;
        }
        Ok(self.reader.rows_read())
    }
}

/// Streams `payload` into `job`'s upload; answers the queued job. Every failure leaves nothing
/// behind (the job and its chunks are deleted).
pub async fn stream(
    store: &ImportStore,
    job: &ImportJob,
    mut payload: Payload,
    max_bytes: u64,
    idle: Duration,
) -> Result<ImportJob, ApiError> {
    let mut checked = Checked { reader: RowReader::new(job.format, job.resource) };
    let mut buffer: Vec<u8> = Vec::with_capacity(CHUNK_BYTES);
    let mut seq = 0;
    let mut total: u64 = 0;
    let mut begun = false;
    let outcome = async {
        loop {
            let chunk: Option<Bytes> = match tokio::time::timeout(idle, payload.next()).await {
                Err(_) => return Err(crate::http::whole_body::request_timeout()),
                Ok(None) => None,
                Ok(Some(Err(_))) => return Err(ApiError::field("body", "the request body could not be read")),
                Ok(Some(Ok(bytes))) => Some(bytes),
            };
            let done = chunk.is_none();
            if let Some(bytes) = chunk {
                total += bytes.len() as u64;
                if total > max_bytes {
                    return Err(too_large(max_bytes));
                }
                checked.feed(&bytes)?;
                buffer.extend_from_slice(&bytes);
            }
            if buffer.len() >= CHUNK_BYTES || (done && !buffer.is_empty()) {
                if !begun {
                    store.begin_upload(job).await?;
                    begun = true;
                }
                store.append_chunk(job.id, seq, &buffer).await?;
                seq += 1;
                buffer.clear();
            }
            if done {
                break;
            }
        }
        let rows = checked.finish()?;
        if !begun {
            store.begin_upload(job).await?;
            begun = true;
        }
        Ok(store.finish_upload(job.id, total, rows).await?)
    }
    .await;
    if outcome.is_err() && begun {
        if let Err(error) = store.abandon_upload(job.id).await {
            tracing::warn!(import_id = %job.id, %error, "could not drop a refused upload; the sweeper will");
        }
    }
    outcome
}
