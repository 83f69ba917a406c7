//! Values of the language: exact numbers, booleans and enumeration members.

use super::num::{display, Rat};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Bool(bool),
    Num(Rat),
    /// Member `index` of enumeration `id`.
    Enum(usize, usize),
}

impl Value {
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_num(&self) -> Option<&Rat> {
        match self {
            Value::Num(r) => Some(r),
            _ => None,
        }
    }

    /// The f64 image used by the fast evaluator: booleans as 0/1, enums as their index.
    pub fn to_f64(&self) -> f64 {
        match self {
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Num(r) => super::num::to_f64(r),
            Value::Enum(_, i) => *i as f64,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Num(r) => write!(f, "{}", display(r)),
            Value::Enum(id, i) => write!(f, "enum{id}#{i}"),
        }
    }
}
