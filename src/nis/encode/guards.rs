//! Guards of first-match update cases as sets of members of one one-hot
//! choice (the environment's action, say): `b0 | keep` is {b0, keep}.
//! When every guard of an update is such a set, or a constant, the "case j
//! fires" conditions are exact sums of the choice's components: no binary,
//! and the "no case fires" default is the constant 0 when the guards cover
//! every member, so the default's values never enter the successor.
//! Guards that read anything else (a comparison the bounds do not decide, a
//! `performed` over several agents) leave the update to the general encoding.

use super::expr::{Ctx, Enc, Val};
use crate::lang::{BinOp, TExpr, TKind, UnOp, Value};
use crate::milp::{constant, LinExpr};
use crate::nis::front::model::ExtFn;

/// A guard as the members of one one-hot slot for which it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardSet {
    Const(bool),
    Over { slot: usize, members: u64 },
}

impl GuardSet {
    fn not(self, width: impl Fn(usize) -> usize) -> GuardSet {
        match self {
            GuardSet::Const(b) => GuardSet::Const(!b),
            GuardSet::Over { slot, members } => GuardSet::Over {
                slot,
                members: all(width(slot)) & !members,
            },
        }
    }

    /// `a & b` (`and`) or `a | b`; `None` for sets over different slots.
    fn combine(self, other: GuardSet, and: bool) -> Option<GuardSet> {
        use GuardSet::*;
        Some(match (self, other) {
            (Const(a), Const(b)) => Const(if and { a && b } else { a || b }),
            (Const(c), s @ Over { .. }) | (s @ Over { .. }, Const(c)) => match (and, c) {
                (true, true) | (false, false) => s,
                (true, false) => Const(false),
                (false, true) => Const(true),
            },
            (
                Over {
                    slot: a,
                    members: x,
                },
                Over {
                    slot: b,
                    members: y,
                },
            ) if a == b => Over {
                slot: a,
                members: if and { x & y } else { x | y },
            },
            _ => return None,
        })
    }
}

fn all(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl Enc<'_> {
    /// The guard `e` as a [`GuardSet`], if it is one.
    pub fn guard_set(&mut self, e: &TExpr, ctx: &Ctx) -> Option<GuardSet> {
        let width = |slot: usize| match ctx.slots.get(slot) {
            Some(Some(Val::Enum(xs))) => xs.len(),
            _ => 0,
        };
        match &e.kind {
            TKind::Const(Value::Bool(b)) => Some(GuardSet::Const(*b)),
            TKind::Unary(UnOp::Not, a) => Some(self.guard_set(a, ctx)?.not(width)),
            TKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let (x, y) = (self.guard_set(a, ctx)?, self.guard_set(b, ctx)?);
                x.combine(y, *op == BinOp::And)
            }
            TKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) => {
                let member = match (&a.kind, &b.kind) {
                    (TKind::Var(s), TKind::Const(Value::Enum(_, i)))
                    | (TKind::Const(Value::Enum(_, i)), TKind::Var(s)) => Some((*s, *i)),
                    _ => None,
                };
                match member {
                    Some((slot, i)) if i < 64 && width(slot) > 0 => {
                        let set = self.member_set(ctx, slot, i);
                        Some(if *op == BinOp::Eq {
                            set
                        } else {
                            set.not(width)
                        })
                    }
                    _ => self.decided(e, ctx),
                }
            }
            TKind::Ext(id, _) if self.model.ext[*id] == ExtFn::Performed => self.decided(e, ctx),
            _ => self.decided(e, ctx),
        }
    }

    /// `slot = member i`: constant when the slot's one-hot is constant.
    fn member_set(&self, ctx: &Ctx, slot: usize, i: usize) -> GuardSet {
        let Some(Some(Val::Enum(xs))) = ctx.slots.get(slot) else {
            return GuardSet::Const(false);
        };
        match xs.iter().map(constant).collect::<Option<Vec<f64>>>() {
            Some(cs) => GuardSet::Const(cs.get(i).is_some_and(|c| *c > 0.5)),
            None => GuardSet::Over {
                slot,
                members: 1 << i,
            },
        }
    }

    /// A subexpression whose encoding the bounds decide (a constant).
    fn decided(&mut self, e: &TExpr, ctx: &Ctx) -> Option<GuardSet> {
        let b = self.boolean(e, ctx).ok()?;
        constant(&b).map(|c| GuardSet::Const(c > 0.5))
    }

    /// The "case j fires first" conditions of `guards` (and, last, "none
    /// fires") as exact sums of one one-hot slot's components, when every
    /// guard is a [`GuardSet`] over that slot or a constant.
    pub fn first_match_by_sets(&mut self, guards: &[&TExpr], ctx: &Ctx) -> Option<Vec<LinExpr>> {
        let mut sets = Vec::with_capacity(guards.len());
        for g in guards {
            sets.push(self.guard_set(g, ctx)?);
        }
        let mut slot = None;
        for s in &sets {
            if let GuardSet::Over { slot: o, .. } = s {
                if slot.is_some_and(|x| x != *o) {
                    return None;
                }
                slot = Some(*o);
            }
        }
        let xs: Vec<LinExpr> = match slot {
            Some(o) => match ctx.slots.get(o) {
                Some(Some(Val::Enum(xs))) => xs.clone(),
                _ => return None,
            },
            None => Vec::new(),
        };
        // Without a slot every guard is a constant: one pseudo-member.
        let full = if slot.is_some() { all(xs.len()) } else { 1 };
        let mask_of = |s: &GuardSet| match s {
            GuardSet::Const(true) => full,
            GuardSet::Const(false) => 0,
            GuardSet::Over { members, .. } => *members & full,
        };
        let sum = |mask: u64| -> LinExpr {
            if slot.is_none() {
                return LinExpr::constant(if mask != 0 { 1.0 } else { 0.0 });
            }
            if mask == full {
                return LinExpr::constant(1.0);
            }
            let mut e = LinExpr::constant(0.0);
            for (k, x) in xs.iter().enumerate() {
                if mask >> k & 1 == 1 {
                    e += x.clone();
                }
            }
            e
        };
        let mut covered = 0u64;
        let mut fire = Vec::with_capacity(sets.len() + 1);
        for s in &sets {
            let m = mask_of(s);
            fire.push(sum(m & !covered));
            covered |= m;
        }
        fire.push(sum(full & !covered));
        Some(fire)
    }
}
