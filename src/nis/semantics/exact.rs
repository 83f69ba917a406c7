//! The exact domain of the rules ([`super::rules`]): the model's
//! expressions evaluated exactly (rationals, [`crate::lang::eval`]) at the
//! slots of a finite state, networks in f64 through the semantics' cache,
//! every condition true or false, every value a code of its finite type.

use super::rules::{Domain, Truth};
use super::{value_code, ActionMask, SemResult, Semantics};
use crate::lang::{error_at, eval, num, Env, SourceError, Span, TExpr, Value};
use crate::nis::front::model::{ExtFn, Model, VarDecl};
use rustc_hash::FxHashMap as HashMap;

/// Evaluation environment: slot values plus what `performed` and networks need.
struct Ctx<'a> {
    model: &'a Model,
    slots: Vec<Value>,
    performed: ActionMask,
    env_action: usize,
    net_cache: &'a mut HashMap<(usize, Vec<u64>), Vec<f64>>,
}

impl Ctx<'_> {
    fn network(&mut self, net: usize, args: &[Value]) -> Vec<f64> {
        let input: Vec<f64> = args.iter().map(Value::to_f64).collect();
        let key = (net, input.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        if let Some(out) = self.net_cache.get(&key) {
            return out.clone();
        }
        let out = self.model.networks[net].network.eval(&input);
        self.net_cache.insert(key, out.clone());
        out
    }
}

impl Env for Ctx<'_> {
    fn var(&self, slot: usize) -> Value {
        self.slots[slot].clone()
    }

    fn ext(&self, id: usize, args: &[Value]) -> Result<Value, String> {
        match &self.model.ext[id] {
            ExtFn::Performed => match args.first() {
                Some(Value::Enum(e, i)) if *e == self.model.template.action_enum => {
                    Ok(Value::Bool(self.performed >> i & 1 == 1))
                }
                Some(Value::Enum(_, i)) => Ok(Value::Bool(self.env_action == *i)),
                _ => Err("`performed` needs an action".into()),
            },
            ExtFn::NetOutput { net, output } => {
                // Scalar outputs are rare and not cached: `Env::ext` only sees `&self`.
                let input: Vec<f64> = args.iter().map(Value::to_f64).collect();
                let out = self.model.networks[*net].network.eval(&input)[*output];
                num::from_f64(out)
                    .map(Value::Num)
                    .ok_or_else(|| "the network output is not a finite number".to_string())
            }
            ExtFn::Argmax { .. } | ExtFn::NetVector { .. } => {
                Err("a network vector outside `argmax`".to_string())
            }
        }
    }
}

impl Semantics<'_> {
    pub(super) fn eval_value(
        &mut self,
        e: &TExpr,
        slots: Vec<Value>,
        performed: ActionMask,
        env_action: usize,
    ) -> SemResult<Value> {
        let ctx = Ctx {
            model: self.model,
            slots,
            performed,
            env_action,
            net_cache: &mut self.net_cache,
        };
        eval(e, &ctx).map_err(|err| error_at(&self.model.source, err.span, err.message))
    }

    pub(super) fn eval_bool(
        &mut self,
        e: &TExpr,
        slots: Vec<Value>,
        performed: ActionMask,
        env_action: usize,
    ) -> SemResult<bool> {
        Ok(self
            .eval_value(e, slots, performed, env_action)?
            .as_bool()
            .unwrap_or(false))
    }
}

/// The exact domain at one state: the slots, the performed set and the
/// environment's action (both 0 where the expression cannot read them).
pub(super) struct Exact<'s, 'm> {
    pub sem: &'s mut Semantics<'m>,
    pub slots: &'s [Value],
    pub performed: ActionMask,
    pub env_action: usize,
}

impl<'s, 'm> Exact<'s, 'm> {
    /// At `slots`, outside an update (nothing performed yet).
    pub fn at(sem: &'s mut Semantics<'m>, slots: &'s [Value]) -> Self {
        Exact {
            sem,
            slots,
            performed: 0,
            env_action: 0,
        }
    }

    fn value(&mut self, e: &TExpr) -> SemResult<Value> {
        let slots = self.slots.to_vec();
        self.sem
            .eval_value(e, slots, self.performed, self.env_action)
    }
}

impl Domain for Exact<'_, '_> {
    type Value = i64;
    type Error = Box<SourceError>;

    fn truth(&mut self, e: &TExpr) -> SemResult<Truth> {
        let slots = self.slots.to_vec();
        let b = self
            .sem
            .eval_bool(e, slots, self.performed, self.env_action)?;
        Ok(Truth::of(b))
    }

    /// The value's code; a value outside the declared range is an error at
    /// the assigned expression.
    fn assign(&mut self, e: &TExpr, var: &VarDecl) -> SemResult<i64> {
        let v = self.value(e)?;
        if !var.ty.contains(&v) {
            return Err(error_at(
                &self.sem.model.source,
                e.span,
                format!(
                    "this update leaves the declared range {} of `{}`: value {v}",
                    var.ty.describe(),
                    var.name
                ),
            ));
        }
        Ok(value_code(&v).unwrap_or(0))
    }

    /// Through the cache of distinct inputs; a NaN or infinite output is an
    /// error at the call.
    fn network(&mut self, net: usize, inputs: &[TExpr], span: Span) -> SemResult<Vec<f64>> {
        let mut values = Vec::with_capacity(inputs.len());
        for i in inputs {
            values.push(self.value(i)?);
        }
        let sem = &mut *self.sem;
        let before = sem.net_cache.len();
        let mut ctx = Ctx {
            model: sem.model,
            slots: Vec::new(),
            performed: 0,
            env_action: 0,
            net_cache: &mut sem.net_cache,
        };
        let out = ctx.network(net, &values);
        sem.network_evaluations += sem.net_cache.len() - before;
        if out.iter().any(|x| !x.is_finite()) {
            return Err(error_at(
                &sem.model.source,
                span,
                "the network gives a NaN or infinite output",
            ));
        }
        Ok(out)
    }

    fn percept(&mut self, e: &TExpr, count: usize) -> SemResult<usize> {
        match self.value(e)? {
            Value::Enum(_, i) if i < count => Ok(i),
            other => Err(error_at(
                &self.sem.model.source,
                e.span,
                format!("`observe` gave {other}, not a percept"),
            )),
        }
    }
}
