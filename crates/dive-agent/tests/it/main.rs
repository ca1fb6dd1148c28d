//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod agent_loop;
mod builder;
mod cancellation;
mod compaction;
mod crash_recovery;
mod cross_process_resume;
mod declared_toolsets;
mod durable_turns;
mod hook_phases;
mod observers;
mod outcome_table;
mod reminder_priming;
mod return_contract;
mod seams;
mod session_lock;
mod settings_template;
mod tool_execution;
mod tool_layers;
mod tracing_spans;
