//! Built-in tools for Dive for Rust agents, in Claude Code's shapes (the models are tuned
//! for them): `Read`, `Write`, `Edit`, `TextEditor`, `ListDirectory`, `Glob`, `Grep`,
//! `Bash`, `WebFetch`, `WebSearch` and `AskUserQuestion`.
//!
//! **Invariant:** no file tool touches a path outside its [`Workspace`]: paths are resolved
//! (absolute, symlinks followed) before use and re-checked on the opened handle, and every
//! write is atomic (temp file + rename).
//!
//! ```
//! use dive_core::{IntoTool, ToolContext, ToolResult};
//! use dive_toolkit::{ReadTool, Workspace, WriteTool};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let ws = Workspace::new(dir.path())?;
//! let write = WriteTool::new(ws.clone()).into_tool();
//! let read = ReadTool::new(ws).into_tool();
//! write.call(serde_json::json!({"file_path": "hello.txt", "content": "hi\n"}), ToolContext::detached("Write")).await?;
//! let ToolResult::Output(out) = read.call(serde_json::json!({"file_path": "hello.txt"}), ToolContext::detached("Read")).await? else { unreachable!() };
//! assert_eq!(out.text_content(), "     1\thi\n");
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod ask_user;
mod bash;
mod diff;
mod edit;
mod error;
mod glob;
mod grep;
mod list_dir;
mod net_guard;
mod read;
mod text_editor;
mod toolkit;
mod util;
mod web_fetch;
mod web_search;
mod workspace;
mod write;

pub use ask_user::{AskUserInput, AskUserOutput, AskUserTool, QuestionOption, QuestionType, UserDialog};
pub use bash::{BashInput, BashTool, DEFAULT_BASH_TIMEOUT, MAX_BASH_OUTPUT_CHARS, MAX_BASH_TIMEOUT};
pub use diff::{MAX_DIFF_LINE_CHARS, MAX_DIFF_LINES};
pub use edit::{EditInput, EditTool, MAX_EDIT_BYTES};
pub use error::PathError;
pub use glob::{DEFAULT_EXCLUDES, DEFAULT_GLOB_LIMIT, GlobInput, GlobMatches, GlobTool};
pub use grep::{
    DEFAULT_HEAD_LIMIT, GrepInput, GrepResults, GrepTool, MAX_COLLECTED_LINES, OutputMode, grep_search,
};
pub use list_dir::{DEFAULT_LIST_LIMIT, ListDirectoryInput, ListDirectoryTool};
pub use net_guard::{NetworkPolicy, is_public};
pub use read::{
    DEFAULT_LINE_LIMIT, DEFAULT_MAX_MEDIA_BYTES, DEFAULT_MAX_TEXT_BYTES, MAX_LINE_CHARS, ReadInput, ReadTool,
};
pub use text_editor::{EditorCommand, MAX_EDITOR_BYTES, SNIPPET_CONTEXT, TextEditorInput, TextEditorTool};
pub use toolkit::Toolkit;
pub use web_fetch::{
    FETCH_TIMEOUT, FetchError, FetchedPage, Fetcher, HttpFetcher, MAX_FETCH_BYTES, MAX_FETCH_CHARS,
    MAX_REDIRECTS, WebFetchInput, WebFetchTool, html_to_markdown,
};
pub use web_search::{
    BraveSearcher, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SearchError, SearchResult, Searcher,
    TavilySearcher, WebSearchInput, WebSearchTool,
};
pub use workspace::{Access, Workspace};
pub use write::{WriteInput, WriteTool};
