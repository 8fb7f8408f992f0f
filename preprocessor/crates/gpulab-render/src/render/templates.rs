//! Handlebars templates (directive, missing, status, error): built in, overridable from the theme.

use super::RenderError;
use super::context::{DirectiveContext, ErrorContext, MissingContext};
use super::html::{escape_pre, one_block};
use super::status::{StatusContext, StatusTable};
use crate::results::view::DirectiveView;
use handlebars::Handlebars;
use serde::Serialize;
use std::path::Path;

/// Names and embedded sources of the templates.
const DEFAULTS: [(&str, &str); 4] = [
    ("directive", include_str!("templates/directive.hbs")),
    ("missing", include_str!("templates/missing.hbs")),
    ("status", include_str!("templates/status.hbs")),
    ("error", include_str!("templates/error.hbs")),
];

/// The loaded templates.
#[derive(Debug)]
pub struct Templates {
    registry: Handlebars<'static>,
}

impl Templates {
    /// The embedded templates, each replaced by `<theme_dir>/gpulab/<name>.hbs` where it exists.
    pub fn load(theme_dir: Option<&Path>) -> Result<Templates, RenderError> {
        let mut registry = Handlebars::new();
        registry.set_strict_mode(false);
        for (name, embedded) in DEFAULTS {
            let path = theme_dir.map(|dir| dir.join("gpulab").join(format!("{name}.hbs")));
            let (source, origin) = match path.filter(|p| p.is_file()) {
                Some(path) => {
                    let book_root = theme_dir.and_then(Path::parent).unwrap_or(Path::new("."));
                    if !crate::confine::is_inside(&path, &[book_root]) {
                        return Err(RenderError::TemplateOutside { path });
                    }
                    let text = std::fs::read_to_string(&path).map_err(|source| {
                        RenderError::TemplateRead {
                            path: path.clone(),
                            source,
                        }
                    })?;
                    (text, path.display().to_string())
                }
                None => (embedded.to_string(), "built-in".to_string()),
            };
            registry
                .register_template_string(name, source)
                .map_err(|source| RenderError::TemplateSyntax {
                    name: name.to_string(),
                    origin,
                    source: Box::new(source),
                })?;
        }
        Ok(Templates { registry })
    }

    /// The embedded templates only.
    pub fn builtin() -> Result<Templates, RenderError> {
        Templates::load(None)
    }

    fn render<T: Serialize>(&self, name: &str, data: &T) -> Result<String, RenderError> {
        let html = self
            .registry
            .render(name, data)
            .map_err(|source| RenderError::Template {
                name: name.to_string(),
                source: Box::new(source),
            })?;
        Ok(one_block(&html))
    }

    /// A directive with results on at least one device (else see [`Templates::render_missing`]).
    pub fn render_directive(&self, view: &DirectiveView<'_>) -> Result<String, RenderError> {
        self.render("directive", &DirectiveContext::new(view)?)
    }

    /// The "no recording yet" box for a directive.
    pub fn render_missing(&self, view: &DirectiveView<'_>) -> Result<String, RenderError> {
        self.render("missing", &MissingContext::new(view))
    }

    /// The reproduction status table, linking chapters relative to the book root.
    #[cfg(test)]
    pub(crate) fn render_status(&self, table: &StatusTable) -> Result<String, RenderError> {
        self.render("status", &StatusContext::new(table, None))
    }

    /// The status table placed in chapter `from` (relative to `src`), so links resolve from there.
    pub fn render_status_from(
        &self,
        table: &StatusTable,
        from: &Path,
    ) -> Result<String, RenderError> {
        self.render("status", &StatusContext::new(table, Some(from)))
    }

    /// A visible error box (for a directive that failed, when the build is not strict).
    pub fn render_error(&self, title: &str, message: &str) -> Result<String, RenderError> {
        let context = ErrorContext {
            title: title.to_string(),
            message: message.to_string(),
            message_html: escape_pre(message),
        };
        self.render("error", &context)
    }
}
