//! Name resolution for `.nis` expressions: variables by slot, constants,
//! enumeration members, and the engine functions `performed`, `argmax` and
//! network calls.

use super::model::ExtFn;
use crate::lang::types::ExtCall;
use crate::lang::{Constants, EnumTable, Scope, Symbol, TExpr, TKind, Ty, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// What a network looks like to the checker.
#[derive(Clone, Debug)]
pub struct NetShape {
    pub name: String,
    pub inputs: usize,
    pub outputs: usize,
    pub output_names: Vec<String>,
}

/// Which engine functions an expression may use.
#[derive(Clone, Copy, Debug, Default)]
pub struct Allow {
    pub performed: bool,
    pub networks: bool,
}

pub struct NisScope<'a> {
    pub consts: &'a Constants,
    pub enums: &'a EnumTable,
    pub vars: HashMap<String, (usize, Ty)>,
    pub nets: &'a [NetShape],
    pub ext: &'a RefCell<Vec<ExtFn>>,
    pub allow: Allow,
    pub agent_actions: Option<usize>,
    pub env_actions: Option<usize>,
    pub percept_enum: Option<usize>,
}

impl NisScope<'_> {
    fn ext_id(&self, f: ExtFn) -> usize {
        let mut ext = self.ext.borrow_mut();
        if let Some(i) = ext.iter().position(|g| *g == f) {
            return i;
        }
        ext.push(f);
        ext.len() - 1
    }

    fn net_call(&self, net: usize, args: &[TExpr]) -> Result<(), String> {
        let shape = &self.nets[net];
        if !self.allow.networks {
            return Err(format!(
                "network `{}` can only be called in `observe`",
                shape.name
            ));
        }
        if args.len() != shape.inputs {
            return Err(format!(
                "network `{}` takes {} input(s) but is called with {}",
                shape.name,
                shape.inputs,
                args.len()
            ));
        }
        if let Some(a) = args.iter().find(|a| !a.ty.is_numeric()) {
            let _ = a;
            return Err(format!(
                "the inputs of network `{}` must be numbers",
                shape.name
            ));
        }
        Ok(())
    }
}

impl Scope for NisScope<'_> {
    fn lookup(&self, name: &str) -> Option<Symbol> {
        if let Some(&(slot, ty)) = self.vars.get(name) {
            return Some(Symbol::Var { slot, ty });
        }
        if let Some(v) = self.consts.get(name) {
            return Some(Symbol::Const(v.clone()));
        }
        self.enums.member(name).map(Symbol::Const)
    }

    fn call(&self, name: &str, args: &[TExpr]) -> Option<Result<ExtCall, String>> {
        if name == "performed" {
            if !self.allow.performed {
                return Some(Err("`performed(..)` is only available in `update`".into()));
            }
            let ok = args.len() == 1
                && matches!(&args[0].kind, TKind::Const(Value::Enum(id, _))
                    if Some(*id) == self.agent_actions || Some(*id) == self.env_actions);
            if !ok {
                return Some(Err(
                    "`performed` takes one action name: `performed(guard)`".into()
                ));
            }
            let id = self.ext_id(ExtFn::Performed);
            return Some(Ok(ExtCall { id, ty: Ty::Bool }));
        }
        if name == "argmax" {
            return Some(self.argmax(args));
        }
        if let Some(net) = self.nets.iter().position(|n| n.name == name) {
            if let Err(e) = self.net_call(net, args) {
                return Some(Err(e));
            }
            let id = self.ext_id(ExtFn::NetVector { net });
            return Some(Ok(ExtCall { id, ty: Ty::Real }));
        }
        for (net, shape) in self.nets.iter().enumerate() {
            if let Some(output) = shape.output_names.iter().position(|o| o == name) {
                if let Err(e) = self.net_call(net, args) {
                    return Some(Err(e));
                }
                let id = self.ext_id(ExtFn::NetOutput { net, output });
                return Some(Ok(ExtCall { id, ty: Ty::Real }));
            }
        }
        None
    }

    fn enum_name(&self, id: usize) -> String {
        self.enums.describe(id)
    }
}

impl NisScope<'_> {
    fn argmax(&self, args: &[TExpr]) -> Result<ExtCall, String> {
        let usage = "`argmax` takes a network call and one percept per output: `argmax(policy(h / 4), rest_only, volunteer)`";
        let Some(first) = args.first() else {
            return Err(usage.into());
        };
        let net = match &first.kind {
            TKind::Ext(id, _) => match self.ext.borrow()[*id] {
                ExtFn::NetVector { net } => net,
                _ => return Err(usage.into()),
            },
            _ => return Err(usage.into()),
        };
        let Some(percept_enum) = self.percept_enum else {
            return Err("`argmax` needs the template's `percept` declaration".into());
        };
        let mut percepts = Vec::new();
        for a in &args[1..] {
            match &a.kind {
                TKind::Const(Value::Enum(id, i)) if *id == percept_enum => percepts.push(*i),
                _ => return Err(format!("{usage}; an argument is not a percept")),
            }
        }
        let outputs = self.nets[net].outputs;
        if percepts.len() != outputs {
            return Err(format!(
                "network `{}` has {outputs} output(s) but `argmax` names {} percept(s)",
                self.nets[net].name,
                percepts.len()
            ));
        }
        let id = self.ext_id(ExtFn::Argmax { percepts });
        Ok(ExtCall {
            id,
            ty: Ty::Enum(percept_enum),
        })
    }
}
