//! `ModelSettings` is a request template: every option of it, typed provider options
//! included, reaches the request the model receives, and what the engine sets wins.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::agent_with;
use dive_agent::ModelSettings;
use dive_core::{ModelRequest, ModelResponse, ProviderOption};
use dive_test::ScriptedModel;

#[derive(Debug, Clone, PartialEq)]
struct AcmeTurbo(bool);

impl ProviderOption for AcmeTurbo {
    const PROVIDER: &'static str = "acme";
    const NAME: &'static str = "AcmeTurbo";
}

#[tokio::test]
async fn the_template_reaches_the_model_request() {
    let mut template = ModelRequest::default().with_option(AcmeTurbo(true)).with_max_tokens(64);
    template.top_p = Some(0.5);
    template.prompt_cache_key = Some("from-the-template".into());
    let model = ScriptedModel::new([ModelResponse::text("ok")]);
    let agent = agent_with(&model).model_settings(ModelSettings::from_template(template)).build().unwrap();
    agent.run("Hi").await.unwrap();
    let request = model.requests().last().unwrap();
    assert_eq!(request.options.get::<AcmeTurbo>(), Some(&AcmeTurbo(true)));
    assert_eq!((request.max_tokens, request.top_p), (Some(64), Some(0.5)));
    let key = request.prompt_cache_key.unwrap();
    assert!(key.starts_with("dive-agent-"), "the engine's own cache key wins: {key}");
}
