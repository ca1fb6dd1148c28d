//! [`ProviderOptions`]: typed options that only one provider understands, carried on a
//! [`ModelRequest`](crate::ModelRequest) and keyed by their type.
//!
//! A provider crate declares a struct for its vendor-only fields (Anthropic's beta features
//! and context management, OpenAI's `previous_response_id`, …) and implements
//! [`ProviderOption`] for it. A caller sets it with
//! [`ModelRequest::with_option`](crate::ModelRequest::with_option); the provider that owns it
//! reads it with [`ProviderOptions::get`]. A provider checks
//! [`ProviderOptions::refuse_foreign`] before it sends, so an option it cannot honour is an
//! `InvalidRequest` naming the option and the provider, never dropped silently.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::error::{LlmError, LlmErrorKind};

/// A typed option owned by one provider.
///
/// ```
/// use dive_core::{Message, ModelRequest, ProviderOption};
/// #[derive(Debug, Clone, PartialEq, Default)]
/// struct AcmeOptions { turbo: bool }
/// impl ProviderOption for AcmeOptions {
///     const PROVIDER: &'static str = "acme";
///     const NAME: &'static str = "AcmeOptions";
/// }
/// let request = ModelRequest::new(vec![Message::user("hi")]).with_option(AcmeOptions { turbo: true });
/// assert_eq!(request.options.get::<AcmeOptions>().map(|o| o.turbo), Some(true));
/// // Any other provider refuses it:
/// let err = request.options.refuse_foreign("other", |_| false).unwrap_err();
/// assert!(err.message.contains("AcmeOptions"));
/// ```
pub trait ProviderOption: fmt::Debug + Clone + PartialEq + Send + Sync + 'static {
    /// The name of the provider that owns the option (its `Llm::provider`).
    const PROVIDER: &'static str;
    /// The option's name in errors (usually the type name).
    const NAME: &'static str;
}

/// Which option a request carries, without its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct OptionKey {
    /// The owning provider.
    pub provider: &'static str,
    /// The option's name.
    pub name: &'static str,
    /// The option's type.
    pub type_id: TypeId,
}

impl OptionKey {
    /// The key of option type `T`.
    #[must_use]
    pub fn of<T: ProviderOption>() -> Self {
        Self { provider: T::PROVIDER, name: T::NAME, type_id: TypeId::of::<T>() }
    }

    /// Whether this is the key of `T`.
    #[must_use]
    pub fn is<T: ProviderOption>(&self) -> bool {
        self.type_id == TypeId::of::<T>()
    }
}

trait AnyOption: fmt::Debug + Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn eq_dyn(&self, other: &dyn AnyOption) -> bool;
}

impl<T: ProviderOption> AnyOption for T {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn eq_dyn(&self, other: &dyn AnyOption) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
}

#[derive(Clone)]
struct Entry {
    key: OptionKey,
    value: Arc<dyn AnyOption>,
}

/// The typed options of one request: at most one value per option type.
///
/// Cloning is cheap (values are shared). Options are not serialized: they are call settings
/// of one provider, not part of a saved conversation.
#[derive(Clone, Default)]
pub struct ProviderOptions {
    entries: BTreeMap<(&'static str, &'static str), Entry>,
}

impl ProviderOptions {
    /// No options.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets option `T`, replacing an earlier value of the same type.
    pub fn insert<T: ProviderOption>(&mut self, option: T) {
        let key = OptionKey::of::<T>();
        self.entries.insert((key.provider, key.name), Entry { key, value: Arc::new(option) });
    }

    /// Option `T`, if set.
    #[must_use]
    pub fn get<T: ProviderOption>(&self) -> Option<&T> {
        let entry = self.entries.get(&(T::PROVIDER, T::NAME))?;
        entry.value.as_any().downcast_ref::<T>()
    }

    /// Removes option `T`, returning it.
    pub fn remove<T: ProviderOption>(&mut self) -> Option<T> {
        let entry = self.entries.remove(&(T::PROVIDER, T::NAME))?;
        entry.value.as_any().downcast_ref::<T>().cloned()
    }

    /// Adds every option of `defaults` this set lacks (an option set here wins): how an
    /// agent's request template reaches each request ([`ModelRequest::fill_from`](crate::ModelRequest::fill_from)).
    pub fn fill_from(&mut self, defaults: &ProviderOptions) {
        for (key, entry) in &defaults.entries {
            self.entries.entry(*key).or_insert_with(|| entry.clone());
        }
    }

    /// Whether no option is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The options set, in a stable order.
    pub fn keys(&self) -> impl Iterator<Item = OptionKey> + '_ {
        self.entries.values().map(|e| e.key)
    }

    /// Fails with `InvalidRequest` on the first option `provider` cannot honour: one whose
    /// owner is another provider, unless `honours` accepts it (a compatible vendor reading
    /// another's option). The message names the option, its owner and this provider.
    ///
    /// # Errors
    /// `InvalidRequest` for an option this provider cannot honour.
    // The error is returned by value on a cold path, as every provider call returns LlmError.
    #[allow(clippy::result_large_err)]
    pub fn refuse_foreign(
        &self,
        provider: &str,
        honours: impl Fn(&OptionKey) -> bool,
    ) -> Result<(), LlmError> {
        match self.keys().find(|k| k.provider != provider && !honours(k)) {
            None => Ok(()),
            Some(k) => Err(LlmError::new(
                LlmErrorKind::InvalidRequest,
                format!(
                    "the request carries {} (an option of the {} provider), which the {provider} \
                     provider cannot honour: remove it or send the request to {}",
                    k.name, k.provider, k.provider
                ),
            )
            .with_provider(provider.to_owned())),
        }
    }
}

impl fmt::Debug for ProviderOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.values().map(|e| (e.key.name, &e.value))).finish()
    }
}

impl PartialEq for ProviderOptions {
    fn eq(&self, other: &Self) -> bool {
        self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .all(|(k, e)| other.entries.get(k).is_some_and(|o| e.value.eq_dyn(&*o.value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct A(u32);
    impl ProviderOption for A {
        const PROVIDER: &'static str = "a";
        const NAME: &'static str = "A";
    }

    #[derive(Debug, Clone, PartialEq)]
    struct B(&'static str);
    impl ProviderOption for B {
        const PROVIDER: &'static str = "b";
        const NAME: &'static str = "B";
    }

    #[test]
    fn one_value_per_type_and_equality_by_value() {
        let mut o = ProviderOptions::new();
        o.insert(A(1));
        o.insert(A(2));
        assert_eq!(o.get::<A>(), Some(&A(2)));
        assert_eq!(o.get::<B>(), None);
        let mut p = ProviderOptions::new();
        p.insert(A(2));
        assert_eq!(o, p);
        p.insert(A(3));
        assert_ne!(o, p);
        assert_eq!(format!("{o:?}"), "{\"A\": A(2)}");
        assert_eq!(p.remove::<A>(), Some(A(3)));
        assert!(p.is_empty());
    }

    #[test]
    fn a_foreign_option_is_refused_by_name_unless_honoured() {
        let mut o = ProviderOptions::new();
        o.insert(A(1));
        o.insert(B("x"));
        assert!(o.refuse_foreign("a", |k| k.is::<B>()).is_ok());
        let err = o.refuse_foreign("a", |_| false).unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
        assert!(err.message.contains("B (an option of the b provider)"), "{}", err.message);
        assert!(err.message.contains("the a provider cannot honour"), "{}", err.message);
    }
}
