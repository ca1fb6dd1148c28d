//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own.

mod home;
mod hook;
mod props;
mod rules_table;
mod settings_files;
