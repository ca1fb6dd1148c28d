//! Vector stores: [`InMemoryVectorStore`] and, with feature `sqlite`, [`SqliteVectorStore`].

mod memory;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use memory::InMemoryVectorStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteVectorStore;

use dive_core::MemoryError;

/// Checks a vector against a store's dimension.
pub(crate) fn check_dimension(expected: Option<usize>, actual: usize) -> Result<(), MemoryError> {
    match expected {
        Some(expected) if expected != actual => Err(MemoryError::DimensionMismatch { expected, actual }),
        _ => Ok(()),
    }
}
