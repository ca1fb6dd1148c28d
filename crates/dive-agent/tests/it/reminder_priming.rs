//! The reminder priming rule is engine policy: sent with a request that holds reminders, and
//! only then.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::agent_with;
use dive_agent::{REMINDER_PRIMING_RULE, RunOptions};
use dive_core::{ModelResponse, Reminder};
use dive_test::ScriptedModel;

#[tokio::test]
async fn a_run_without_reminders_sends_no_priming_rule() {
    let model = ScriptedModel::new([ModelResponse::text("ok")]);
    let agent = agent_with(&model).system_prompt("Be brief.").build().unwrap();
    agent.run("Hi").await.unwrap();
    let system = model.requests().last().unwrap().system.unwrap();
    assert_eq!(system, "Be brief.");
    assert!(!system.contains(REMINDER_PRIMING_RULE));
}

#[tokio::test]
async fn a_run_with_a_reminder_sends_the_priming_rule_after_the_prompt() {
    let model = ScriptedModel::new([ModelResponse::text("ok")]);
    let agent = agent_with(&model).system_prompt("Be brief.").build().unwrap();
    let reminder = Reminder::new("clock", "It is noon.").unwrap();
    agent.run(RunOptions::text("time?").with_model_only_reminder(reminder)).await.unwrap();
    let system = model.requests().last().unwrap().system.unwrap();
    assert_eq!(system, format!("Be brief.\n\n{REMINDER_PRIMING_RULE}"));
}

#[tokio::test]
async fn without_a_system_prompt_the_rule_alone_is_sent_and_only_with_reminders() {
    let model = ScriptedModel::new([ModelResponse::text("one"), ModelResponse::text("two")]);
    let agent = agent_with(&model).build().unwrap();
    agent.run("Hi").await.unwrap();
    assert_eq!(model.requests().last().unwrap().system, None, "no prompt and no reminder: no system");
    let reminder = Reminder::new("clock", "It is noon.").unwrap();
    agent.run(RunOptions::text("time?").with_model_only_reminder(reminder)).await.unwrap();
    assert_eq!(model.requests().last().unwrap().system.as_deref(), Some(REMINDER_PRIMING_RULE));
}
