//! Checked expressions ([`TExpr`]) as MILP expressions over one state's
//! variables. Numbers become affine expressions (piecewise-linear builtins by
//! the `milp` big-M builders), Booleans exact 0/1 expressions (both
//! directions hold, so `!` and first-matching update cases are sound),
//! enumerations one-hot vectors. Constant subexpressions are folded, so the
//! initial step, whose state is a point, adds almost nothing.

use super::options::milp_error;
use super::ranges::RangeCheck;
use crate::lang::types::Builtin;
use crate::lang::{num, BinOp, DeclType, TExpr, TKind, Ty, UnOp, Value};
use crate::milp::{constant, not, EncodeOptions, LinExpr, Obbt};
use crate::nis::front::model::{ExtFn, Model};
use crate::report::RunError;
use std::collections::HashMap;

/// The expression encoder's state: the MILP under construction and what
/// names and enumerations need. M(n) and the slot encoding of M_ab(m)
/// unroll rounds with it ([`super::round`]).
pub struct Enc<'m> {
    pub model: &'m Model,
    pub milp: crate::milp::Model,
    pub encode: EncodeOptions,
    /// Members per enumeration id (percepts, actions, enumerated variables).
    pub enum_sizes: HashMap<usize, usize>,
    pub counter: usize,
    /// Name stem of the variables being added (step and agent).
    pub prefix: String,
    /// Argmax choices must win by this much (0: ties allowed); strategies
    /// of real-valued models are re-solved with it after a near-tie.
    pub argmax_margin: f64,
    pub network_copies: usize,
    pub network_binaries: usize,
    /// Bound tightening of the network copies in this MILP's context.
    pub obbt: Obbt,
    /// Update values that may leave their declared range.
    pub range_checks: Vec<RangeCheck>,
    /// The template agents' first percepts when they are observed (`=
    /// observe`) and pinned by the start (one MILP per tied combination);
    /// `None`: each agent's observation chooses.
    pub first_percepts: Option<Vec<usize>>,
    /// The agents' observations after the round being added are not encoded
    /// (no formula or later round reads them): each keeps its old percept
    /// in the MILP, and the decoder observes it in f64 ([`super::concrete::F64`]).
    pub skip_observation: bool,
    /// The environment's action in the rounds from depth 0, 1, ..: pinned
    /// by a part of a choice split ([`super::split`]); a deeper round
    /// chooses freely.
    pub env_pins: Vec<usize>,
    /// Network copies by (network, input expressions): a call with the same
    /// inputs reuses the copy (a network is a function of its inputs).
    copies: HashMap<CallKey, Vec<LinExpr>>,
}

/// A network call's identity: the network and its inputs, term by term.
type CallKey = (usize, Vec<(Vec<(usize, u64)>, u64)>);

fn call_key(net: usize, inputs: &[LinExpr]) -> CallKey {
    let terms = inputs
        .iter()
        .map(|e| {
            let t = e
                .merged_terms()
                .into_iter()
                .map(|(v, c)| (v.index(), c.to_bits()))
                .collect();
            (t, e.constant_part().to_bits())
        })
        .collect();
    (net, terms)
}

impl<'m> Enc<'m> {
    /// An empty MILP for `model`, network copies bounded as `encode` says.
    pub fn new(model: &'m Model, encode: EncodeOptions) -> Self {
        let mut enum_sizes = HashMap::new();
        let t = &model.template;
        enum_sizes.insert(t.percept_enum, t.percepts.len());
        enum_sizes.insert(t.action_enum, t.actions.len());
        enum_sizes.insert(model.env.action_enum, model.env.actions.len());
        for a in &model.named {
            let nt = &a.template;
            enum_sizes.insert(nt.percept_enum, nt.percepts.len());
            enum_sizes.insert(nt.action_enum, nt.actions.len());
        }
        let named_vars = model.named.iter().flat_map(|a| &a.template.vars);
        for v in t.vars.iter().chain(&model.env.vars).chain(named_vars) {
            if let DeclType::Enum { id, values } = &v.ty {
                enum_sizes.insert(*id, values.len());
            }
        }
        let obbt = Obbt::new(&encode);
        Enc {
            model,
            milp: crate::milp::Model::new(),
            encode,
            enum_sizes,
            counter: 0,
            prefix: String::new(),
            argmax_margin: 0.0,
            network_copies: 0,
            network_binaries: 0,
            obbt,
            range_checks: Vec::new(),
            first_percepts: None,
            skip_observation: false,
            env_pins: Vec::new(),
            copies: HashMap::new(),
        }
    }
}

/// Members of an enumerated type (0 for other types).
pub fn enum_len(ty: &DeclType) -> usize {
    match ty {
        DeclType::Enum { values, .. } => values.len(),
        _ => 0,
    }
}

/// A slot's value in the MILP.
#[derive(Clone, Debug)]
pub enum Val {
    /// A number (int or real).
    Num(LinExpr),
    /// A 0/1 expression.
    Bool(LinExpr),
    /// One 0/1 expression per member of the enumeration, summing to 1.
    Enum(Vec<LinExpr>),
}

/// What expressions of one evaluation may read: the slots (`None`: not
/// readable here), `performed(a)` per agent action, the environment action.
pub struct Ctx<'c> {
    pub slots: &'c [Option<Val>],
    pub performed: Option<&'c [LinExpr]>,
    pub env_action: Option<&'c [LinExpr]>,
}

impl<'c> Ctx<'c> {
    /// A context that reads the slots only (no round's choices).
    pub fn of(slots: &'c [Option<Val>]) -> Self {
        Ctx {
            slots,
            performed: None,
            env_action: None,
        }
    }
}

/// The constant value of a declared type's code as a MILP value.
pub fn value_val(v: &Value, enum_size: usize) -> Val {
    match v {
        Value::Bool(b) => Val::Bool(LinExpr::constant(f64::from(u8::from(*b)))),
        Value::Num(r) => Val::Num(LinExpr::constant(num::to_f64(r))),
        Value::Enum(_, i) => Val::Enum(one_hot(*i, enum_size)),
    }
}

/// The code of a finite type as a constant MILP value.
pub fn code_val(ty: &DeclType, code: i64) -> Val {
    match ty {
        DeclType::Bool => Val::Bool(LinExpr::constant(code as f64)),
        DeclType::Enum { values, .. } => Val::Enum(one_hot(code as usize, values.len())),
        _ => Val::Num(LinExpr::constant(code as f64)),
    }
}

pub fn one_hot(i: usize, size: usize) -> Vec<LinExpr> {
    (0..size)
        .map(|j| LinExpr::constant(if j == i { 1.0 } else { 0.0 }))
        .collect()
}

impl Enc<'_> {
    /// A fresh auxiliary name with a readable stem.
    pub fn aux(&mut self, stem: &str) -> String {
        self.counter += 1;
        format!("{stem}#{}", self.counter)
    }

    fn enum_size(&self, ty: Ty) -> Result<usize, RunError> {
        match ty {
            Ty::Enum(id) => self
                .enum_sizes
                .get(&id)
                .copied()
                .ok_or_else(|| RunError::input("an enumeration the MILP encoder does not know")),
            _ => Err(RunError::input("an enumeration was expected")),
        }
    }

    /// A number-valued expression; an error located at the innermost
    /// subexpression whose f64 form is not finite (a constant such as
    /// `1e400`, a product beyond f64), which would otherwise reach HiGHS as
    /// an infinite coefficient and be blamed on a MILP variable.
    pub fn num(&mut self, e: &TExpr, ctx: &Ctx) -> Result<LinExpr, RunError> {
        let x = self.num_of(e, ctx)?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.beyond_f64(e))
        }
    }

    fn num_of(&mut self, e: &TExpr, ctx: &Ctx) -> Result<LinExpr, RunError> {
        Ok(match &e.kind {
            TKind::Const(Value::Num(r)) => LinExpr::constant(num::to_f64(r)),
            TKind::Var(s) => match ctx.slots.get(*s) {
                Some(Some(Val::Num(x))) => x.clone(),
                _ => return Err(self.unreadable(e)),
            },
            TKind::Unary(UnOp::Neg, a) => -self.num(a, ctx)?,
            TKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div), a, b) => {
                let (x, y) = (self.num(a, ctx)?, self.num(b, ctx)?);
                match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => match (constant(&x), constant(&y)) {
                        (Some(c), _) => y * c,
                        (_, Some(c)) => x * c,
                        _ => return Err(self.nonlinear(e, "a product of two variables")),
                    },
                    _ => match constant(&y) {
                        // Constants divide as the exact semantics' f64 conversion does.
                        Some(c) if c != 0.0 => match constant(&x) {
                            Some(k) => LinExpr::constant(k / c),
                            None => x * (1.0 / c),
                        },
                        _ => return Err(self.nonlinear(e, "a division by a variable or by 0")),
                    },
                }
            }
            TKind::If(c, a, b) => {
                let c = self.boolean(c, ctx)?;
                let (a, b) = (self.num(a, ctx)?, self.num(b, ctx)?);
                self.milp.select("if", &c, a, b).map_err(milp_error)?
            }
            TKind::Builtin(f, args) => {
                let xs: Vec<LinExpr> = args
                    .iter()
                    .map(|a| self.num(a, ctx))
                    .collect::<Result<_, _>>()?;
                self.builtin(e, *f, xs)?
            }
            TKind::Ext(id, args) => match self.model.ext[*id] {
                ExtFn::NetOutput { net, output } => {
                    let outs = self.network(net, args, ctx)?;
                    outs[output].clone()
                }
                _ => return Err(self.nonlinear(e, "this engine function")),
            },
            _ => return Err(self.nonlinear(e, "this expression")),
        })
    }

    fn builtin(&mut self, e: &TExpr, f: Builtin, xs: Vec<LinExpr>) -> Result<LinExpr, RunError> {
        if let Some(cs) = xs.iter().map(constant).collect::<Option<Vec<f64>>>() {
            let v = match (f, cs.as_slice()) {
                (Builtin::Min, _) => cs.iter().copied().fold(f64::INFINITY, f64::min),
                (Builtin::Max, _) => cs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                (Builtin::Clamp, [x, lo, hi]) => x.max(*lo).min(*hi),
                (Builtin::Abs, [x]) => x.abs(),
                (Builtin::Floor, [x]) => x.floor(),
                (Builtin::Ceil, [x]) => x.ceil(),
                (Builtin::Mod, [x, y]) if *y != 0.0 => x.rem_euclid(*y),
                _ => return Err(self.nonlinear(e, "this call")),
            };
            return Ok(LinExpr::constant(v));
        }
        match (f, xs.as_slice()) {
            (Builtin::Min, _) => self.extremum(xs, false),
            (Builtin::Max, _) => self.extremum(xs, true),
            (Builtin::Clamp, [x, lo, hi]) => {
                let below = self.extremum(vec![x.clone(), lo.clone()], true)?;
                self.extremum(vec![below, hi.clone()], false)
            }
            (Builtin::Abs, [x]) => self.extremum(vec![x.clone(), -x.clone()], true),
            _ => Err(self.nonlinear(e, "floor, ceil or mod of a variable")),
        }
    }

    /// The outputs of a network copy on the given argument expressions.
    pub fn network(
        &mut self,
        net: usize,
        args: &[TExpr],
        ctx: &Ctx,
    ) -> Result<Vec<LinExpr>, RunError> {
        let inputs: Vec<LinExpr> = args
            .iter()
            .map(|a| self.num(a, ctx))
            .collect::<Result<_, _>>()?;
        let decl = &self.model.networks[net];
        if let Some(cs) = inputs.iter().map(constant).collect::<Option<Vec<f64>>>() {
            // A constant input: the f64 evaluation is the copy (no variables).
            return Ok(decl
                .network
                .eval(&cs)
                .into_iter()
                .map(LinExpr::constant)
                .collect());
        }
        let key = call_key(net, &inputs);
        if let Some(outputs) = self.copies.get(&key) {
            return Ok(outputs.clone());
        }
        let prefix = self.aux(&format!("{}.{}", self.prefix, decl.name));
        let copy = self
            .milp
            .add_network_obbt(
                &prefix,
                &decl.network,
                &inputs,
                &self.encode,
                &mut self.obbt,
            )
            .map_err(milp_error)?;
        self.network_copies += 1;
        self.network_binaries += copy.binaries.len();
        let outputs: Vec<LinExpr> = copy.outputs.into_iter().map(LinExpr::from).collect();
        self.copies.insert(key, outputs.clone());
        Ok(outputs)
    }

    /// A Boolean-valued expression as an exact 0/1 expression.
    pub fn boolean(&mut self, e: &TExpr, ctx: &Ctx) -> Result<LinExpr, RunError> {
        Ok(match &e.kind {
            TKind::Const(Value::Bool(b)) => LinExpr::constant(f64::from(u8::from(*b))),
            TKind::Var(s) => match ctx.slots.get(*s) {
                Some(Some(Val::Bool(x))) => x.clone(),
                _ => return Err(self.unreadable(e)),
            },
            TKind::Unary(UnOp::Not, a) => not(self.boolean(a, ctx)?),
            TKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies | BinOp::Iff), a, b) => {
                let (x, y) = (self.boolean(a, ctx)?, self.boolean(b, ctx)?);
                match op {
                    BinOp::And => self.milp.and("and", vec![x, y]),
                    BinOp::Or => self.milp.or("or", vec![x, y]),
                    BinOp::Implies => self.milp.or("or", vec![not(x), y]),
                    _ => self.iff(x, y),
                }
            }
            TKind::Binary(op, a, b) => self.compare(e, *op, a, b, ctx)?,
            TKind::If(c, a, b) => {
                let c = self.boolean(c, ctx)?;
                let (a, b) = (self.boolean(a, ctx)?, self.boolean(b, ctx)?);
                let left = self.milp.and("and", vec![c.clone(), a]);
                let right = self.milp.and("and", vec![not(c), b]);
                self.milp.or("or", vec![left, right])
            }
            TKind::Ext(id, args) if self.model.ext[*id] == ExtFn::Performed => {
                self.performed(e, args, ctx)?
            }
            _ => return Err(self.nonlinear(e, "this condition")),
        })
    }

    fn iff(&mut self, x: LinExpr, y: LinExpr) -> LinExpr {
        let a = self.milp.or("or", vec![not(x.clone()), y.clone()]);
        let b = self.milp.or("or", vec![x, not(y)]);
        self.milp.and("and", vec![a, b])
    }

    fn compare(
        &mut self,
        e: &TExpr,
        op: BinOp,
        a: &TExpr,
        b: &TExpr,
        ctx: &Ctx,
    ) -> Result<LinExpr, RunError> {
        if !matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        ) {
            return Err(self.nonlinear(e, "this operator"));
        }
        let eq = match a.ty {
            Ty::Bool => {
                let (x, y) = (self.boolean(a, ctx)?, self.boolean(b, ctx)?);
                Some(self.iff(x, y))
            }
            Ty::Enum(_) => {
                let (x, y) = (self.enumv(a, ctx)?, self.enumv(b, ctx)?);
                let mut terms = Vec::new();
                for (xi, yi) in x.into_iter().zip(y) {
                    terms.push(self.milp.and("and", vec![xi, yi]));
                }
                // Both are one-hot: at most one member agrees.
                Some(LinExpr::sum(terms))
            }
            _ => None,
        };
        if let Some(eq) = eq {
            return match op {
                BinOp::Eq => Ok(eq),
                BinOp::Ne => Ok(not(eq)),
                _ => Err(self.nonlinear(e, "an order on Booleans or enumerations")),
            };
        }
        let d = self.num(a, ctx)? - self.num(b, ctx)?;
        Ok(match op {
            BinOp::Le => self.le_zero(d)?,
            BinOp::Ge => self.le_zero(-d)?,
            BinOp::Lt => not(self.le_zero(-d)?),
            BinOp::Gt => not(self.le_zero(d)?),
            _ => {
                let le = self.le_zero(d.clone())?;
                let ge = self.le_zero(-d)?;
                let eq = self.milp.and("and", vec![le, ge]);
                if op == BinOp::Eq {
                    eq
                } else {
                    not(eq)
                }
            }
        })
    }

    fn performed(&mut self, e: &TExpr, args: &[TExpr], ctx: &Ctx) -> Result<LinExpr, RunError> {
        let Some(arg) = args.first() else {
            return Err(self.nonlinear(e, "`performed` without an action"));
        };
        let agent_action = arg.ty == Ty::Enum(self.model.template.action_enum);
        let source = if agent_action {
            ctx.performed
        } else {
            ctx.env_action
        };
        let Some(source) = source.map(<[LinExpr]>::to_vec) else {
            return Err(self.unreadable(e));
        };
        let which = self.enumv(arg, ctx)?;
        let mut terms = Vec::new();
        for (w, p) in which.into_iter().zip(source) {
            terms.push(self.milp.and("and", vec![w, p]));
        }
        Ok(LinExpr::sum(terms))
    }

    /// An enumeration-valued expression as a one-hot vector.
    pub fn enumv(&mut self, e: &TExpr, ctx: &Ctx) -> Result<Vec<LinExpr>, RunError> {
        let size = self.enum_size(e.ty)?;
        Ok(match &e.kind {
            TKind::Const(Value::Enum(_, i)) => one_hot(*i, size),
            TKind::Var(s) => match ctx.slots.get(*s) {
                Some(Some(Val::Enum(x))) => x.clone(),
                _ => return Err(self.unreadable(e)),
            },
            TKind::If(c, a, b) => {
                let c = self.boolean(c, ctx)?;
                let (a, b) = (self.enumv(a, ctx)?, self.enumv(b, ctx)?);
                self.if_then_else(&c, a, b)
            }
            _ => return Err(self.nonlinear(e, "this enumeration value")),
        })
    }

    /// Per position the exact 0/1 expression `c ? then : otherwise`, for
    /// 0/1 `c` and 0/1 vectors of one length (one-hot values, percept
    /// choices): `(c & then) | (!c & otherwise)`.
    pub(super) fn if_then_else(
        &mut self,
        c: &LinExpr,
        then: Vec<LinExpr>,
        otherwise: Vec<LinExpr>,
    ) -> Vec<LinExpr> {
        let mut out = Vec::with_capacity(then.len());
        for (x, y) in then.into_iter().zip(otherwise) {
            let l = self.milp.and("and", vec![c.clone(), x]);
            let r = self.milp.and("and", vec![not(c.clone()), y]);
            out.push(self.milp.or("or", vec![l, r]));
        }
        out
    }

    fn extremum(&mut self, items: Vec<LinExpr>, is_max: bool) -> Result<LinExpr, RunError> {
        let name = self.aux("max");
        self.milp
            .extremum_of(&name, items, is_max)
            .map_err(milp_error)
    }

    /// The exact 0/1 expression of `d <= 0`.
    pub fn le_zero(&mut self, d: LinExpr) -> Result<LinExpr, RunError> {
        let name = self.aux("cmp");
        self.milp.is_nonpositive(&name, d).map_err(milp_error)
    }

    fn unreadable(&self, e: &TExpr) -> RunError {
        RunError::from(crate::lang::error_at(
            &self.model.source,
            e.span,
            "the MILP encoder cannot read this here (a slot or `performed` outside its block)",
        ))
    }

    fn beyond_f64(&self, e: &TExpr) -> RunError {
        let text = self.model.source.slice(e.span);
        let what = if self.model.constants.iter().any(|(n, _)| n == text) {
            format!("the constant `{text}`")
        } else {
            format!("`{text}`")
        };
        RunError::from(crate::lang::error_at(
            &self.model.source,
            e.span,
            format!(
                "{what} has no finite f64 value (beyond about 1.8e308), and the MILP decider computes in f64: scale the model down"
            ),
        ))
    }

    fn nonlinear(&self, e: &TExpr, what: &str) -> RunError {
        RunError::from(crate::lang::error_at(
            &self.model.source,
            e.span,
            format!("the MILP decider cannot encode {what}: it needs piecewise-linear expressions"),
        ))
    }
}
