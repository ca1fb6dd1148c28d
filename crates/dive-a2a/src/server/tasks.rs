//! The tasks of one server: creating them from messages, running the agent on each task's
//! session, resuming a suspended task with the client's answer, cancelling, listing, and the
//! live events of running tasks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use dive_agent::{Agent, CancellationToken, RunInput, RunOptions};
use dive_core::{ResponseItem, Role as DiveRole, Session, Timestamp, ToolOutput, Values};
use serde_json::Value;
use tokio::sync::{broadcast, watch};

use super::outcome::{self, agent_message};
use crate::store::TaskStore;
use crate::types::{
    Artifact, ErrorCode, ListTasksRequest, ListTasksResponse, Message, PartContent, RpcError, StreamResponse,
    Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
};

/// Page size of `ListTasks` when the client gives none, and the largest allowed.
const DEFAULT_PAGE_SIZE: usize = 50;
const MAX_PAGE_SIZE: usize = 100;

/// One event of a running task; `last` marks the final status update.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) response: StreamResponse,
    pub(crate) last: bool,
}

/// A task the agent is working on now.
struct Running {
    cancel: CancellationToken,
    events: broadcast::Sender<Event>,
    done: watch::Receiver<Option<Task>>,
}

/// What a caller gets when it starts or resumes a task.
pub(crate) struct Started {
    /// The task as stored when the run began.
    pub(crate) task: Task,
    /// Its events, subscribed before the run started (nothing is missed).
    pub(crate) events: broadcast::Receiver<Event>,
    /// The task when the run is over.
    pub(crate) done: watch::Receiver<Option<Task>>,
}

/// The tasks of one server.
pub(crate) struct Tasks {
    agent: Arc<Agent>,
    store: TaskStore,
    run_values: Option<RunValues>,
    running: Arc<Mutex<HashMap<String, Option<Running>>>>,
}

/// Builds the values of each task's run from the request's W3C `traceparent` (`None` when it
/// had none): with `dive-otel`,
/// `Arc::new(|tp| tp.map(|tp| dive_otel::propagation::values_from_traceparent(tp, None)).unwrap_or_default())`
/// makes the run's `invoke_agent` span continue the caller's trace.
pub type RunValues = Arc<dyn Fn(Option<&str>) -> Values + Send + Sync>;

fn internal(e: impl std::fmt::Display) -> RpcError {
    RpcError::new(ErrorCode::Internal, format!("the task store failed: {e}"))
}

fn not_found(id: &str) -> RpcError {
    let _ = id;
    RpcError::new(ErrorCode::TaskNotFound, "Task not found")
}

impl Tasks {
    pub(crate) fn new(agent: Arc<Agent>, store: TaskStore, run_values: Option<RunValues>) -> Self {
        Self { agent, store, run_values, running: Arc::new(Mutex::new(HashMap::new())) }
    }

    /// The values a run starts with, from the request's `traceparent`.
    fn values(&self, traceparent: Option<&str>) -> Values {
        self.run_values.as_ref().map_or_else(Values::new, |make| make(traceparent))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<Running>>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks tasks stored as submitted or working, that no run of this server holds, as
    /// failed: a server stopped while they ran. Called when a server starts.
    pub(crate) async fn recover(&self) -> Result<usize, dive_core::SessionError> {
        let mut recovered = 0;
        for task in self.store.all().await? {
            let live = matches!(task.status.state, TaskState::Submitted | TaskState::Working);
            if !live || self.lock().contains_key(&task.id) {
                continue;
            }
            if let Some((mut task, session)) = self.store.get(&task.id).await? {
                let text = "the server stopped while this task ran; send the message again to retry";
                task.status = TaskStatus::now(
                    TaskState::Failed,
                    Some(agent_message(&task, vec![crate::types::Part::text(text)])),
                );
                self.store.put(session.as_ref(), &task).await?;
                recovered += 1;
            }
        }
        Ok(recovered)
    }

    /// A new task for `message`, or the answer to the suspended task it names.
    pub(crate) async fn send(
        &self,
        mut message: Message,
        traceparent: Option<String>,
    ) -> Result<Started, RpcError> {
        if let Some(task_id) = message.task_id.clone() {
            return self.resume(&task_id, message, traceparent.as_deref()).await;
        }
        let id = dive_core::new_id("task");
        let context_id = message.context_id.clone().unwrap_or_else(|| dive_core::new_id("ctx"));
        message.task_id = Some(id.clone());
        message.context_id = Some(context_id.clone());
        let mut task = Task::new(&id, &context_id, TaskStatus::now(TaskState::Submitted, None));
        task.history.push(message.clone());
        if let Some(tp) = &traceparent {
            task.metadata
                .get_or_insert_with(Default::default)
                .insert("traceparent".into(), Value::String(tp.clone()));
        }
        let session = self.store.session(&id).await.map_err(internal)?;
        let mut input = match &message.context_id {
            Some(_) => self.context_history(&context_id).await?,
            None => Vec::new(),
        };
        input.push(to_dive(&message));
        let values = self.values(traceparent.as_deref());
        self.start(task, session, RunInput::Messages(input), values).await
    }

    /// The conversation of the context so far: the messages of its latest task that is not
    /// running (each task is its own session, so a new task in a context starts from the
    /// conversation of the one before it).
    async fn context_history(&self, context_id: &str) -> Result<Vec<dive_core::Message>, RpcError> {
        let latest = self.store.all().await.map_err(internal)?.into_iter().find(|t| {
            t.context_id == context_id && !matches!(t.status.state, TaskState::Submitted | TaskState::Working)
        });
        let Some(latest) = latest else { return Ok(Vec::new()) };
        let session = self.store.session(&latest.id).await.map_err(internal)?;
        let snapshot = session.load().await.map_err(internal)?;
        // A suspended turn's unanswered calls cannot be replayed; take what came before it.
        Ok(if snapshot.is_suspended() { snapshot.history } else { snapshot.messages() })
    }

    async fn resume(
        &self,
        task_id: &str,
        message: Message,
        traceparent: Option<&str>,
    ) -> Result<Started, RpcError> {
        // Reserve the task (a `None` entry) so two answers to one question cannot both run.
        {
            let mut running = self.lock();
            if running.contains_key(task_id) {
                return Err(RpcError::new(
                    ErrorCode::UnsupportedOperation,
                    format!("task {task_id} is still running; wait for it to end or need input"),
                ));
            }
            running.insert(task_id.to_owned(), None);
        }
        let started = self.resume_reserved(task_id, message, traceparent).await;
        if started.is_err() {
            self.lock().remove(task_id);
        }
        started
    }

    async fn resume_reserved(
        &self,
        task_id: &str,
        mut message: Message,
        traceparent: Option<&str>,
    ) -> Result<Started, RpcError> {
        let (mut task, session) =
            self.store.get(task_id).await.map_err(internal)?.ok_or_else(|| not_found(task_id))?;
        if message.context_id.as_deref().is_some_and(|c| c != task.context_id) {
            return Err(RpcError::new(ErrorCode::InvalidParams, "the message's contextId is not its task's"));
        }
        if !task.status.state.is_interrupted() {
            return Err(RpcError::new(
                ErrorCode::UnsupportedOperation,
                format!("Task {task_id} is in terminal state: {}", task.status.state.as_str()),
            ));
        }
        let snapshot = session.load().await.map_err(internal)?;
        let pending: Vec<String> = snapshot
            .open_turn
            .as_ref()
            .and_then(|t| t.suspension.as_ref())
            .map(|s| s.pending.iter().map(|p| p.id.clone()).collect())
            .unwrap_or_default();
        let results = answers(&message, &pending)?;
        message.context_id = Some(task.context_id.clone());
        task.history.push(message);
        self.start(task, session, RunInput::resume(results), self.values(traceparent)).await
    }

    /// Stores the task as working, then runs the agent on its session in its own task.
    async fn start(
        &self,
        mut task: Task,
        session: Arc<dyn Session>,
        input: RunInput,
        values: Values,
    ) -> Result<Started, RpcError> {
        let submitted = task.clone();
        task.status = TaskStatus::now(TaskState::Working, None);
        self.store.put(session.as_ref(), &task).await.map_err(internal)?;
        let (events, receiver) = broadcast::channel(1024);
        let (done_tx, done) = watch::channel(None);
        let cancel = CancellationToken::new();
        self.lock().insert(
            task.id.clone(),
            Some(Running { cancel: cancel.clone(), events: events.clone(), done: done.clone() }),
        );
        let _ = events.send(Event { response: status_event(&task), last: false });
        let sink = events.clone();
        let (id, context) = (task.id.clone(), task.context_id.clone());
        let options = RunOptions::from(input)
            .with_session(session.clone())
            .with_values(values)
            .with_cancel(cancel)
            .on_event(move |item| {
                if let ResponseItem::Message { message, .. } = item {
                    let text = message.answer_text();
                    if message.role == DiveRole::Assistant && !text.is_empty() {
                        let update = Message::agent_text(text).with_task_id(&id).with_context_id(&context);
                        let status = TaskStatus::now(TaskState::Working, Some(update));
                        let event = TaskStatusUpdateEvent {
                            task_id: id.clone(),
                            context_id: context.clone(),
                            status,
                            metadata: None,
                        };
                        let _ =
                            sink.send(Event { response: StreamResponse::StatusUpdate(event), last: false });
                    }
                }
                Ok(())
            });
        let agent = self.agent.clone();
        let store = self.store.clone();
        let end = RunEnd { events: events.clone(), done: done_tx, running: self.running.clone() };
        tokio::spawn(async move {
            let result = agent.run(options).await;
            let before = task.artifacts.len();
            outcome::finish(&mut task, result);
            if let Err(e) = store.put(session.as_ref(), &task).await {
                tracing::error!(task = %task.id, error = %e, "could not store the finished A2A task");
            }
            end.publish(&task, before);
        });
        Ok(Started { task: submitted, events: receiver, done })
    }

    /// The stored task, with at most `history_length` history messages.
    pub(crate) async fn get(&self, id: &str, history_length: Option<i32>) -> Result<Task, RpcError> {
        let (mut task, _) = self.store.get(id).await.map_err(internal)?.ok_or_else(|| not_found(id))?;
        trim_history(&mut task, history_length);
        Ok(task)
    }

    /// A page of tasks, most recently updated first.
    pub(crate) async fn list(&self, request: &ListTasksRequest) -> Result<ListTasksResponse, RpcError> {
        let page_size = match request.page_size {
            None => DEFAULT_PAGE_SIZE,
            Some(n) if (1..=MAX_PAGE_SIZE as i32).contains(&n) => n as usize,
            Some(n) => {
                return Err(RpcError::new(
                    ErrorCode::InvalidParams,
                    format!("pageSize {n} is out of range: give 1 to {MAX_PAGE_SIZE}"),
                ));
            }
        };
        let offset = match request.page_token.as_deref().filter(|t| !t.is_empty()) {
            None => 0,
            Some(token) => token.parse::<usize>().map_err(|_| {
                RpcError::new(ErrorCode::InvalidParams, format!("Invalid page token: {token}"))
            })?,
        };
        let after = match request.status_timestamp_after.as_deref() {
            None => None,
            Some(t) => Some(t.parse::<Timestamp>().map_err(|_| {
                RpcError::new(
                    ErrorCode::InvalidParams,
                    format!("statusTimestampAfter {t:?} is not an RFC 3339 time"),
                )
            })?),
        };
        let mut tasks: Vec<Task> = self
            .store
            .all()
            .await
            .map_err(internal)?
            .into_iter()
            .filter(|t| request.context_id.as_ref().is_none_or(|c| *c == t.context_id))
            .filter(|t| request.status.as_ref().is_none_or(|s| *s == t.status.state))
            .filter(|t| {
                after.is_none_or(|after| {
                    t.status
                        .timestamp
                        .as_deref()
                        .and_then(|s| s.parse::<Timestamp>().ok())
                        .is_some_and(|ts| ts > after)
                })
            })
            .collect();
        let total = tasks.len();
        let page: Vec<Task> = tasks
            .drain(..)
            .skip(offset)
            .take(page_size)
            .map(|mut t| {
                trim_history(&mut t, request.history_length);
                if request.include_artifacts != Some(true) {
                    t.artifacts.clear();
                }
                t
            })
            .collect();
        let next = offset + page.len();
        Ok(ListTasksResponse {
            tasks: page,
            next_page_token: if next < total { next.to_string() } else { String::new() },
            page_size: i32::try_from(page_size).unwrap_or(i32::MAX),
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
        })
    }

    /// Cancels a running or waiting task; a finished one cannot be cancelled.
    pub(crate) async fn cancel(&self, id: &str) -> Result<Task, RpcError> {
        let running = match self.lock().get(id) {
            Some(Some(r)) => Some((r.cancel.clone(), r.done.clone())),
            Some(None) => {
                return Err(RpcError::new(
                    ErrorCode::UnsupportedOperation,
                    format!("task {id} is being resumed; cancel it once it runs"),
                ));
            }
            None => None,
        };
        if let Some((cancel, mut done)) = running {
            cancel.cancel();
            let task = done.wait_for(Option::is_some).await.map(|t| t.clone()).ok().flatten();
            return match task {
                Some(task) => Ok(task),
                None => self.get(id, None).await,
            };
        }
        let (mut task, session) = self.store.get(id).await.map_err(internal)?.ok_or_else(|| not_found(id))?;
        if !task.status.state.is_interrupted() {
            return Err(RpcError::new(
                ErrorCode::TaskNotCancelable,
                format!("Task cannot be canceled: it is {}", task.status.state.as_str()),
            ));
        }
        let result = self
            .agent
            .run(RunOptions::from(RunInput::cancel_suspended()).with_session(session.clone()))
            .await;
        if let Err(e) = &result
            && e.response().is_none()
        {
            return Err(RpcError::new(
                ErrorCode::Internal,
                format!("could not cancel the suspended turn: {e}"),
            ));
        }
        task.status = TaskStatus::now(TaskState::Canceled, None);
        if let Some(meta) = task.metadata.as_mut() {
            meta.remove(outcome::SUSPENSION_KEY);
        }
        self.store.put(session.as_ref(), &task).await.map_err(internal)?;
        Ok(task)
    }

    /// The live events of a running task.
    pub(crate) async fn subscribe(
        &self,
        id: &str,
    ) -> Result<(Task, Option<broadcast::Receiver<Event>>), RpcError> {
        let receiver = self.lock().get(id).and_then(Option::as_ref).map(|r| r.events.subscribe());
        let task = self.get(id, None).await?;
        if receiver.is_none() && task.status.state.is_terminal() {
            return Err(RpcError::new(
                ErrorCode::UnsupportedOperation,
                format!("Task {id} is in terminal state: {}", task.status.state.as_str()),
            ));
        }
        Ok((task, receiver))
    }
}

/// Publishes a finished run (stored already): off the running map, then its new artifacts,
/// the final status and the task, so whoever sees the end can send the next message at once.
struct RunEnd {
    events: broadcast::Sender<Event>,
    done: watch::Sender<Option<Task>>,
    running: Arc<Mutex<HashMap<String, Option<Running>>>>,
}

impl RunEnd {
    fn publish(&self, task: &Task, artifacts_before: usize) {
        self.running.lock().unwrap_or_else(PoisonError::into_inner).remove(&task.id);
        for artifact in &task.artifacts[artifacts_before.min(task.artifacts.len())..] {
            let _ = self.events.send(Event { response: artifact_event(task, artifact), last: false });
        }
        let _ = self.events.send(Event { response: status_event(task), last: true });
        let _ = self.done.send(Some(task.clone()));
    }
}

fn status_event(task: &Task) -> StreamResponse {
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
        metadata: None,
    })
}

fn artifact_event(task: &Task, artifact: &Artifact) -> StreamResponse {
    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        artifact: artifact.clone(),
        append: false,
        last_chunk: true,
        metadata: None,
    })
}

fn trim_history(task: &mut Task, history_length: Option<i32>) {
    if let Some(n) = history_length {
        let keep = usize::try_from(n.max(0)).unwrap_or(0);
        let drop = task.history.len().saturating_sub(keep);
        task.history.drain(..drop);
    }
}

/// The client's answers to the pending calls: a data part `{"toolResults": {callId: text}}`,
/// or the message's text given to every pending call.
fn answers(message: &Message, pending: &[String]) -> Result<Vec<(String, ToolOutput)>, RpcError> {
    for part in &message.parts {
        if let Some(results) = part.as_data().and_then(|d| d.get("toolResults")) {
            let Some(map) = results.as_object() else {
                return Err(RpcError::new(
                    ErrorCode::InvalidParams,
                    "toolResults must be an object of call id to text",
                ));
            };
            return map
                .iter()
                .map(|(id, v)| {
                    if !pending.contains(id) {
                        return Err(RpcError::new(
                            ErrorCode::InvalidParams,
                            format!("no pending tool call {id:?}"),
                        ));
                    }
                    let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    Ok((id.clone(), ToolOutput::text(text)))
                })
                .collect();
        }
    }
    let text = message.text();
    if text.is_empty() {
        return Err(RpcError::new(
            ErrorCode::InvalidParams,
            "the answer has no text and no toolResults data part",
        ));
    }
    Ok(pending.iter().map(|id| (id.clone(), ToolOutput::text(text.clone()))).collect())
}

/// The user message as the agent sees it: text parts as text, data parts as JSON text, file
/// parts by reference.
fn to_dive(message: &Message) -> dive_core::Message {
    let mut blocks = Vec::new();
    for part in &message.parts {
        let text = match &part.content {
            PartContent::Text(t) => t.clone(),
            PartContent::Data(d) => d.to_string(),
            PartContent::Url(u) => format!("[file {}: {u}]", part.media_type.as_deref().unwrap_or("")),
            PartContent::Raw(_) => format!(
                "[inline file {} ({})]",
                part.filename.as_deref().unwrap_or("unnamed"),
                part.media_type.as_deref().unwrap_or("")
            ),
        };
        blocks.push(text);
    }
    dive_core::Message::user(blocks.join("\n"))
}
