//! Walking a parsed JSON document with its path, so that every error names the place
//! (`benchmarks[0].runs[2].values[1]`). Hand-written because serde's derived errors give only a
//! line and column, and a foreign format's problems are easier to find by path.

use std::path::Path;

use serde_json::Value;

use crate::error::{Result, StoreError};

/// A value in a document, with the file and the path to it.
#[derive(Debug, Clone)]
pub(super) struct Node<'a> {
    file: &'a Path,
    value: &'a Value,
    path: String,
}

impl<'a> Node<'a> {
    /// The document's root.
    pub fn root(file: &'a Path, value: &'a Value) -> Self {
        Self {
            file,
            value,
            path: String::new(),
        }
    }

    /// The raw value.
    pub fn value(&self) -> &'a Value {
        self.value
    }

    /// The file.
    pub fn file(&self) -> &'a Path {
        self.file
    }

    /// Where it is in the document (`benchmarks[0].times`; empty at the top level).
    pub fn place(&self) -> &str {
        &self.path
    }

    /// An error at this place.
    pub fn err(&self, message: impl Into<String>) -> StoreError {
        let place = if self.path.is_empty() {
            "top level"
        } else {
            &self.path
        };
        StoreError::import(self.file, place, message)
    }

    /// The error of a value that is not `what` ("an array", "a number", …).
    fn not_a(&self, what: &str) -> StoreError {
        self.err(format!("expected {what}, found {}", kind(self.value)))
    }

    fn child(&self, key: &str, value: &'a Value) -> Self {
        let simple = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let path = match (self.path.is_empty(), simple) {
            (true, true) => key.to_string(),
            (false, true) => format!("{}.{key}", self.path),
            (_, false) => format!("{}[{}]", self.path, Value::String(key.into())),
        };
        Self {
            file: self.file,
            value,
            path,
        }
    }

    /// The member `key`, which must exist.
    pub fn get(&self, key: &str) -> Result<Self> {
        self.opt(key).ok_or_else(|| {
            // A member that is there but null is said so: "no member 'times'" sent a user
            // looking for a member the file had.
            let null = matches!(self.value.get(key), Some(Value::Null));
            self.err(if null {
                format!("member '{key}' is null")
            } else {
                format!("no member '{key}'")
            })
        })
    }

    /// The member `key`, if present and not null.
    pub fn opt(&self, key: &str) -> Option<Self> {
        match self.value.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(self.child(key, v)),
        }
    }

    /// The items of an array.
    pub fn items(&self) -> Result<Vec<Self>> {
        let items = self
            .value
            .as_array()
            .ok_or_else(|| self.not_a("an array"))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| Self {
                file: self.file,
                value: v,
                path: format!("{}[{i}]", self.path),
            })
            .collect())
    }

    /// The members of an object, in file order.
    pub fn entries(&self) -> Result<Vec<(&'a str, Self)>> {
        let map = self
            .value
            .as_object()
            .ok_or_else(|| self.not_a("an object"))?;
        Ok(map
            .iter()
            .map(|(k, v)| (k.as_str(), self.child(k, v)))
            .collect())
    }

    /// A string.
    pub fn str(&self) -> Result<&'a str> {
        self.value.as_str().ok_or_else(|| self.not_a("a string"))
    }

    /// A finite number.
    pub fn f64(&self) -> Result<f64> {
        self.value
            .as_f64()
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.not_a("a number"))
    }

    /// A time: a finite number, not negative.
    pub fn time(&self) -> Result<f64> {
        let v = self.f64()?;
        if v < 0.0 {
            return Err(self.err(format!("negative time {v}")));
        }
        Ok(v)
    }

    /// `seconds`, the time read here converted to seconds, when it is a plausible duration
    /// (see [`super::implausible`]); else an error at this place.
    pub fn seconds(&self, seconds: f64) -> Result<f64> {
        match super::implausible(seconds) {
            Some(why) => Err(self.err(why)),
            None => Ok(seconds),
        }
    }

    /// A time in seconds: a finite number, not negative, and a plausible duration.
    pub fn time_s(&self) -> Result<f64> {
        self.seconds(self.time()?)
    }

    /// An array of times in `unit` seconds each (`1e-9`: nanoseconds), converted to seconds;
    /// each must be a plausible duration.
    pub fn times_in(&self, unit: f64) -> Result<Vec<f64>> {
        self.items()?
            .iter()
            .map(|t| t.seconds(t.time()? * unit))
            .collect()
    }

    /// A count above zero.
    pub fn count(&self) -> Result<f64> {
        match self.value.as_f64() {
            Some(v) if v.is_finite() && v > 0.0 => Ok(v),
            _ => Err(self.err(format!(
                "expected a positive count, found {}",
                kind(self.value)
            ))),
        }
    }

    /// An array of times in seconds (each a plausible duration).
    pub fn times(&self) -> Result<Vec<f64>> {
        self.times_in(1.0)
    }
}

fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.len() <= 40 => format!("\"{s}\""),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}
