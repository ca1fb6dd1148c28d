//! Merging a request template into a request: the one function that knows every
//! [`ModelRequest`] field, so an agent's settings never hand-copy them.

use super::request::ModelRequest;

impl ModelRequest {
    /// Fills what this request leaves unset from `template`: an option the request already
    /// sets wins, lists (`features`, `mcp_servers`, `stop_sequences`) are extended with the
    /// template's, and maps (`headers`, `provider_options`, the typed `options`) gain the template's keys they
    /// lack. The template's conversation (`messages`) and `tools` are never copied: a
    /// template holds options, the request its content.
    ///
    /// ```
    /// use dive_core::{ModelRequest, Message, ToolChoice};
    /// let mut template = ModelRequest::default().with_max_tokens(100).with_tool_choice(ToolChoice::Auto);
    /// template.stop_sequences.push("END".into());
    /// let mut request = ModelRequest::new(vec![Message::user("hi")]).with_tool_choice(ToolChoice::None);
    /// request.fill_from(&template);
    /// assert_eq!(request.max_tokens, Some(100));
    /// assert_eq!(request.tool_choice, Some(ToolChoice::None)); // the request's own value wins
    /// assert_eq!(request.stop_sequences, ["END"]);
    /// ```
    pub fn fill_from(&mut self, template: &ModelRequest) {
        fn fill<T: Clone>(slot: &mut Option<T>, value: &Option<T>) {
            if slot.is_none() {
                slot.clone_from(value);
            }
        }
        // No `..`: a field added to `ModelRequest` fails to compile here until it is merged.
        let ModelRequest {
            model,
            system,
            messages: _,
            tools: _,
            declared_toolsets: _,
            tool_choice,
            parallel_tool_calls,
            max_tokens,
            temperature,
            top_p,
            presence_penalty,
            frequency_penalty,
            stop_sequences,
            reasoning,
            headers,
            mcp_servers,
            response_format,
            caching,
            prompt_cache_key,
            provider_options,
            options,
        } = template;
        fill(&mut self.model, model);
        fill(&mut self.system, system);
        fill(&mut self.tool_choice, tool_choice);
        fill(&mut self.parallel_tool_calls, parallel_tool_calls);
        fill(&mut self.max_tokens, max_tokens);
        fill(&mut self.temperature, temperature);
        fill(&mut self.top_p, top_p);
        fill(&mut self.presence_penalty, presence_penalty);
        fill(&mut self.frequency_penalty, frequency_penalty);
        fill(&mut self.reasoning, reasoning);
        fill(&mut self.response_format, response_format);
        fill(&mut self.caching, caching);
        fill(&mut self.prompt_cache_key, prompt_cache_key);
        self.stop_sequences.extend(stop_sequences.iter().cloned());
        self.mcp_servers.extend(mcp_servers.iter().cloned());
        for (k, v) in headers {
            self.headers.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in provider_options {
            self.provider_options.entry(k.clone()).or_insert_with(|| v.clone());
        }
        self.options.fill_from(options);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::llm::request::ToolChoice;
    use crate::message::Message;

    #[test]
    fn every_option_of_the_template_reaches_an_empty_request() {
        let mut template = ModelRequest::default().with_max_tokens(7).with_temperature(0.5);
        template.model = Some("m".into());
        template.prompt_cache_key = Some("k".into());
        template.headers.insert("x-a".into(), "1".into());
        template.provider_options.insert("seed".into(), json!(3));
        std::sync::Arc::make_mut(&mut template.messages).push(Message::user("never copied"));
        let mut request = ModelRequest::new(vec![Message::user("hi")]);
        request.fill_from(&template);
        let mut expected = template.clone();
        expected.messages = vec![Message::user("hi")].into();
        assert_eq!(request, expected);
    }

    #[derive(Debug, Clone, PartialEq)]
    struct Turbo(bool);
    impl crate::llm::request::ProviderOption for Turbo {
        const PROVIDER: &'static str = "acme";
        const NAME: &'static str = "Turbo";
    }

    #[test]
    fn typed_provider_options_reach_the_request_unless_it_sets_its_own() {
        let template = ModelRequest::default().with_option(Turbo(true));
        let mut request = ModelRequest::new(Vec::new());
        request.fill_from(&template);
        assert_eq!(request.options.get::<Turbo>(), Some(&Turbo(true)));
        let mut own = ModelRequest::new(Vec::new()).with_option(Turbo(false));
        own.fill_from(&template);
        assert_eq!(own.options.get::<Turbo>(), Some(&Turbo(false)));
    }

    #[test]
    fn the_request_wins_and_maps_keep_its_keys() {
        let mut template = ModelRequest::default().with_tool_choice(ToolChoice::Auto);
        template.headers.insert("x-a".into(), "template".into());
        template.headers.insert("x-b".into(), "template".into());
        let mut request = ModelRequest::new(Vec::new()).with_tool_choice(ToolChoice::None);
        request.headers.insert("x-a".into(), "request".into());
        request.fill_from(&template);
        assert_eq!(request.tool_choice, Some(ToolChoice::None));
        assert_eq!(request.headers.get("x-a").map(String::as_str), Some("request"));
        assert_eq!(request.headers.get("x-b").map(String::as_str), Some("template"));
    }
}
