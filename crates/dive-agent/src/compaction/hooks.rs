//! The PreCompact and PostCompact hook phases, run the same way by the loop's own compactions
//! and by [`Agent::compact_session`](crate::Agent::compact_session).

use dive_core::{CompactionTrigger, Hooks, PostCompactContext, PreCompactContext, RunInfo};

/// What a compaction is about to do, for the PreCompact hooks.
pub(crate) struct Planned<'a> {
    pub info: &'a RunInfo,
    pub strategy: &'a str,
    pub trigger: CompactionTrigger,
    pub estimated_tokens: u64,
    pub message_count: usize,
}

/// PreCompact hooks in order: the instructions to compact with (each hook's added to the
/// earlier ones), or `Err` with the reason when one vetoes or fails (a compaction is never
/// forced past a failing hook).
pub(crate) async fn pre_compact(
    hooks: &Hooks,
    planned: &Planned<'_>,
    mut instructions: Option<String>,
) -> Result<Option<String>, String> {
    for hook in &hooks.pre_compact {
        let mut ctx = PreCompactContext::new(planned.info.clone(), planned.trigger, planned.strategy);
        ctx.instructions.clone_from(&instructions);
        ctx.estimated_tokens = planned.estimated_tokens;
        ctx.message_count = planned.message_count;
        match hook.pre_compact(ctx).await {
            Ok(decision) => {
                if let Some(reason) = decision.veto {
                    tracing::info!(hook = hook.name(), reason, "a pre-compact hook vetoed the compaction");
                    return Err(format!("the {} hook vetoed it: {reason}", hook.name()));
                }
                if let Some(extra) = decision.instructions {
                    instructions = Some(match instructions {
                        Some(given) => format!("{given}\n{extra}"),
                        None => extra,
                    });
                }
            }
            Err(error) => {
                tracing::warn!(hook = hook.name(), %error, "pre-compact hook failed; not compacting");
                return Err(format!("the {} hook failed: {error}", hook.name()));
            }
        }
    }
    Ok(instructions)
}

/// PostCompact hooks in order; a failing one is logged.
pub(crate) async fn post_compact(hooks: &Hooks, ctx: PostCompactContext) {
    for hook in &hooks.post_compact {
        if let Err(error) = hook.post_compact(ctx.clone()).await {
            tracing::warn!(hook = hook.name(), %error, "post-compact hook failed; continuing");
        }
    }
}
